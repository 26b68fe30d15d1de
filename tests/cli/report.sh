#!/usr/bin/env bash
# report.sh: `tuner report` over the synthetic fixture: the files it writes, well-formed XML for
# every SVG and the HTML (python3's xml.etree, a real parser), byte-for-byte determinism, the
# winners and comparisons agreeing with `tuner best --compare`, the device filter and its errors,
# the folder replaced as a whole, a convergence figure for a recorded random-strategy run, and the
# committed report under reports/ being what the committed measurements give (like header --check).
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz
SLUG=synthetic-gpu-test-fixture-not-a-measurement

start=$(date +%s)
check "report the fixture" $TUNER report --db $FX -o $T/a -q
took=$(( $(date +%s) - start ))
check "report runs in seconds (took ${took}s)" test "$took" -le 10
R=$T/a/$SLUG
check "index.html written" test -s $R/index.html
check "README.md written" test -s $R/README.md
n_svg=$(ls $R/*.svg 2>/dev/null | wc -l)
# 2 ops (bandwidth + importance each) and 4 (op, dtype) groups (slices + distribution each)
same "figures written" "$n_svg" "12"

# slices: by default each group's largest problem only; --all-problems draws every problem's
# panels (the fixture's groups hold several problems); the other figures are the same bytes
check "report --all-problems" $TUNER report --db $FX -o $T/all --all-problems -q
panels() { grep -c 'class="f">' "$1"; }
one=$(ls $R/slices-*.svg | head -n 1)
same "default slices: one problem's panels" "$(panels "$one")" 1
check "--all-problems: one block of panels per problem" test "$(panels "$T/all/$SLUG/$(basename "$one")")" -gt 1
check "--all-problems changes only the slices" diff -r -x 'slices-*' -x index.html -x README.md "$R" "$T/all/$SLUG"
check "the caption says which problems" grep -q 'of the largest problem' "$R/README.md"

check "every SVG and the HTML parse as XML; every figure is shown by both pages" python3 - "$R" <<'PY'
import glob, os, re, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
svgs = sorted(os.path.basename(f) for f in glob.glob(os.path.join(d, "*.svg")))
for f in svgs:
    root = ET.parse(os.path.join(d, f)).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", (f, root.tag)
    assert float(root.get("width")) > 0 and float(root.get("height")) > 0, f
    assert len(list(root.iter())) > 20, (f, "nearly empty")
html = ET.parse(os.path.join(d, "index.html")).getroot()
imgs = sorted(i.get("src") for i in html.iter("img"))
assert imgs == svgs, ("html images", imgs, svgs)
md = open(os.path.join(d, "README.md"), encoding="utf-8").read()
md_imgs = sorted(re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md))
assert md_imgs == svgs, ("markdown images", md_imgs, svgs)
# every in-page link of the HTML has its target
ids = {e.get("id") for e in html.iter() if e.get("id")}
for a in html.iter("a"):
    href = a.get("href")
    if href.startswith("#"):
        assert href[1:] in ids, ("dangling link", href)
PY

check "report again" $TUNER report --db $FX -o $T/b -q
check "byte for byte deterministic" diff -r $T/a $T/b

# the winner row of mul f16 at 32 Mi agrees with `tuner best --compare`
read -r cfg us def_us gain < <($TUNER best --db $FX --op elementwise.mul --dtype f16 --compare --format csv |
    python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["shape"] == "n=33554432,offset=0":
        print(r["config"], r["median_us"], r["default_us"], r["gain_over_default"])')
row=$(grep -F '| `n=33554432,offset=0` |' $R/README.md | grep -F "\`$cfg\`")
check "the mul f16 32 Mi winner of best --compare is in the report" test -n "$row"
check "its time" grep -qF "| $(printf '%.2f' "$us") |" <<<"$row"
check "its default time and gain" grep -qF "| $(printf '%.2f' "$def_us") | $(printf '%.2f' "$gain")× |" <<<"$row"
check "the default was measured (gain shown)" test "$(printf '%.0f' "$def_us")" -gt 0
check "the most important parameter is named" grep -qE '\| `[a-z_]+` [0-9.]+%' <<<"$row"
# a playoff: the second fastest of mul f16 at 32 Mi beat the fastest side by side, at playoff
# medians above both own medians; the report's tuned config is the header's (the view best's),
# the playoff's winner, with its own median, as tuner best says
$TUNER db import $FX --db $T/pl.db -q
read -r second < <(python3 - "$T/pl.db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
rows = con.execute("""SELECT e.id, e.run_id, c.text FROM evaluations e JOIN problems p ON p.id = e.problem_id
    JOIN configs c ON c.id = e.config_id WHERE p.op = 'elementwise.mul' AND p.dtype = 'f16'
    AND p.shape = 'n=33554432,offset=0' AND e.status = 'ok' ORDER BY e.median_us, c.text LIMIT 2""").fetchall()
for (eid, run, _), med in zip(rows, (2000.0, 1900.0)):
    con.execute("INSERT INTO playoffs(evaluation_id, run_id, median_us, n_runs, samples, created_at)"
                " VALUES (?, ?, ?, 3, ?, '2026-11-27T00:00:00Z')", (eid, run, med, f"[{med},{med},{med}]"))
con.commit()
print(rows[1][2])
PY
)
check "the playoff is well-formed" $TUNER db check --db $T/pl.db -q
read -r bcfg bus < <($TUNER best --db $T/pl.db --op elementwise.mul --dtype f16 --format csv |
    python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["shape"] == "n=33554432,offset=0": print(r["config"], r["median_us"])')
same "tuner best takes the playoff's winner" "$bcfg" "$second"
check "report the database with the playoff" $TUNER report --db $T/pl.db -o $T/pl -q
prow=$(grep -F '| `n=33554432,offset=0` |' $T/pl/$SLUG/README.md | grep -F "| \`$second\` |")
check "the report's tuned config is the playoff's winner" test -n "$prow"
check "with its own median" grep -qF "| $(printf '%.2f' "$bus") |" <<<"$prow"

# the per-value table of the most important parameter: every cell of mul f16 is the fastest ok
# median among the configs with that value, as plain sqlite3 computes it from the database
$TUNER db import $FX --db $T/v.db -q
check "a per-value table for mul f16" python3 - "$R/README.md" "$T/v.db" <<'PY'
import re, sqlite3, sys
md = open(sys.argv[1]).read()
sec = md[md.index("### elementwise.mul f16"):]
sec = sec[:sec.index("\n### ", 5)] if "\n### " in sec[5:] else sec
m = re.search(r"with each value of `(\w+)` fixed.*?\n\n(\|.*?)\n\n", sec, re.S)
assert m, "no per-value table"
param, table = m.group(1), m.group(2).splitlines()
values = [h.strip().split("=", 1)[1] for h in table[0].strip("|").split("|")[1:]]
con = sqlite3.connect(sys.argv[2])
cells = 0
for line in table[2:]:
    cols = [c.strip() for c in line.strip("|").split("|")]
    shape = cols[0].strip("`")
    for v, cell in zip(values, cols[1:]):
        best = con.execute(
            "SELECT min(e.median_us) FROM evaluations e JOIN problems p ON p.id = e.problem_id"
            " JOIN configs c ON c.id = e.config_id WHERE p.op = 'elementwise.mul' AND p.dtype = 'f16'"
            " AND p.shape = ? AND e.status = 'ok' AND (',' || c.text || ',') LIKE ?",
            (shape, f"%,{param}={v},%")).fetchone()[0]
        want = "\u2013" if best is None else f"{best:.2f}"
        assert cell == want, (shape, v, cell, want)
        cells += 1
assert cells >= 4, cells
PY
check "statuses are counted" grep -qE '[0-9]+ ok, [0-9]+ (invalid|fault)' $R/README.md
check "no convergence figure without a search run" grep -q "Every run recorded on this device was exhaustive" $R/README.md

# the device filter
check "device by slug" $TUNER report --db $FX -o $T/s --device $SLUG -q
check "device by name" $TUNER report --db $FX -o $T/n --device "Synthetic GPU (test fixture, not a measurement)" -q
check "device by uuid" $TUNER report --db $FX -o $T/u --device GPU-00000000-0000-0000-0000-00000000f1c7 -q
check "filtered reports are the same report" diff -r $T/a $T/s
check_fails "unknown device" 2 $TUNER report --db $FX -o $T/x --device "no such gpu"
cp $T/.out $T/unknown.out
check "the error lists the recorded devices" grep -qF "recorded: 'Synthetic GPU" $T/unknown.out
[ ! -e $T/x ]; same "nothing written for an unknown device" "$?" "0"
check_fails "missing input" 1 $TUNER report --db $T/missing.sql -o $T/y
check_fails "unwritable output" 1 $TUNER report --db $FX -o /proc/version/x
check_fails "unknown option" 2 $TUNER report --bogus

# the folder is replaced as a whole: a stale figure does not survive
touch $R/stale.svg
check "regenerate over an existing report" $TUNER report --db $FX -o $T/a -q
[ ! -e $R/stale.svg ]; same "stale file removed" "$?" "0"
check "no temporary folders left" test -z "$(ls -A $T/a | grep -v "^$SLUG\$")"

# a random-strategy run recorded beside the exhaustive one gets a convergence figure
check "random run over the replay" $TUNER run tests/fixtures/elementwise_small.yaml --backend replay:$FX \
    --strategy random --budget-evals 12 --seed 3 --db $T/r.db -q
check "add the exhaustive measurements" $TUNER db import $FX --db $T/r.db -q
check "report with a search run" $TUNER report --db $T/r.db -o $T/c -q
check "convergence figure written" test -s $T/c/$SLUG/convergence-1.svg
check "convergence figure is XML" python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
    $T/c/$SLUG/convergence-1.svg
check "convergence text" grep -qE 'Run 1: strategy `random`, seed 3, .*: [0-9]+ evaluations over 16 problems' \
    $T/c/$SLUG/README.md

# the committed report is what the committed measurements give
shopt -s nullglob
dumps=(db/results/*.sql.xz db/results/*.sql)
if [ ${#dumps[@]} -gt 0 ]; then
    check "report the committed measurements" $TUNER report -o $T/committed -q
    for d in $T/committed/*/; do
        name=$(basename "$d")
        check "reports/$name is current (regenerate: tuner report -o reports/)" diff -r "$d" "reports/$name"
    done
fi
finish

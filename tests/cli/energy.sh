#!/usr/bin/env bash
# energy.sh: energy as an objective without a GPU (docs/energy.md), over the fixture
# tests/fixtures/energy_vector.sql.xz (the H100 measurements of examples/vector with synthetic
# energy on saxpy's ok rows, none on scale_shift's). A schema-6 database migrates to version 7
# and passes `tuner db check`; schema-6 dumps import with NULL energy; export -> import ->
# export keeps the energy byte for byte; `tuner best --objective energy|edp` pick what plain
# sqlite3 computes from the rows (and time what `tuner best` always picked), counting the
# problems without energy on stderr; `tuner header --space --objective energy` writes the energy
# winners and says so (the time header unchanged, both compile); the replay backend answers the
# recorded energy, which `tuner run` stores; `tuner report` draws the time-energy section with the
# Pareto front (as a brute-force count finds it) and names both winners; bad objectives exit 2.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/energy_vector.sql.xz
V6=tests/cases/dumps/v6_without_energy/dump.sql
SLUG=nvidia-h100-80gb-hbm3
# said DESCRIPTION PATTERN [GREP OPTION]: the last command's output (check's $T/.out) holds it
said() {
    cp $T/.out $T/said.out
    check "$1" grep -q ${3:-} -- "$2" $T/said.out
}
# The configs of a user kernel's header table, in its order.
table_configs() {
    grep -o '"-DBLOCK=[0-9]* -DITEMS=[0-9]*", "saxpy", "block_size=[0-9]*,items=[0-9]*"' "$1" |
        grep -o 'block_size=[0-9]*,items=[0-9]*'
}

# ---- schema version 7 ----
check "import the fixture" $TUNER db import $FX --db $T/fx.db -q
check "db check: clean" $TUNER db check --db $T/fx.db -q
same "schema version 7" "$(sql $T/fx.db 'PRAGMA user_version')" 7
same "saxpy's 40 ok rows carry energy, scale_shift's 64 none" \
    "$(sql $T/fx.db "SELECT p.op, count(e.energy_j), count(e.power_w), count(e.throttle), count(*)
        FROM evaluations e JOIN problems p ON p.id = e.problem_id WHERE e.status = 'ok' GROUP BY p.op")" \
    "vector.saxpy|40|40|40|40
vector.scale_shift|0|0|0|64"

# a database of schema version 6, made by the version-6 dump's own SQL (as `sqlite3 x.db < dump`)
python3 - "$T/v6.db" "$V6" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.executescript(open(sys.argv[2]).read())
con.close()
PY
same "the version-6 database" "$(sql $T/v6.db "SELECT (SELECT user_version FROM pragma_user_version),
    (SELECT count(*) FROM pragma_table_info('evaluations') WHERE name = 'energy_j'), count(*) FROM evaluations")" "6|0|2"
check_fails "reading it refuses the older schema" 1 $TUNER db check --db $T/v6.db
said "the refusal says a writing command migrates it" "schema version 6 is older than this tuner's (7); a writing command"
check "a writing command migrates it (importing the fixture)" $TUNER db import $FX --db $T/v6.db -q
check "db check: the migrated database is clean" $TUNER db check --db $T/v6.db -q
same "version 7, the energy columns added, its rows kept with NULL energy" \
    "$(sql $T/v6.db "SELECT (SELECT user_version FROM pragma_user_version),
        (SELECT group_concat(name, ' ') FROM pragma_table_info('evaluations') WHERE cid >= 20),
        (SELECT count(*) FROM evaluations e JOIN runs r ON r.id = e.run_id
         WHERE r.started_at = '2026-11-25T04:33:07.557Z' AND e.energy_j IS NULL)")" \
    "7|energy_j power_w energy_window_ms sm_mhz mem_mhz temp_c throttle|2"
check_fails "the migrated table keeps the CHECK on energy_j" 1 python3 -c '
import sqlite3, sys
sqlite3.connect(sys.argv[1]).execute("UPDATE evaluations SET energy_j = 0 WHERE energy_j > 0").connection.commit()' $T/v6.db

# ---- dumps ----
check "a version-6 dump imports" $TUNER db import $V6 --db $T/old.db -q
same "with NULL energy" "$(sql $T/old.db "SELECT count(*), count(energy_j), count(power_w) FROM evaluations")" "2|0|0"
check "the committed examples dump (version 2) imports" $TUNER db import examples/vector/results/nvidia-h100-80gb-hbm3.sql.xz --db $T/old.db -q
same "with NULL energy" "$(sql $T/old.db "SELECT count(energy_j) FROM evaluations")" 0
check "db check" $TUNER db check --db $T/old.db -q

check "export the fixture's database" $TUNER db export --db $T/fx.db -o $T/a.sql
check "the dump writes the energy" grep -q "'block_size=64,items=2','ok',NULL,'\[.*,286.0,200.0,1980,2619,[0-9]*,0\]'" $T/a.sql
check "import it elsewhere" $TUNER db import $T/a.sql --db $T/b.db -q
check "export again" $TUNER db export --db $T/b.db -o $T/b.sql
check "export -> import -> export is the identity" cmp $T/a.sql $T/b.sql
same "every energy column came back" \
    "$(sql $T/b.db "SELECT sum(energy_j), sum(power_w), sum(energy_window_ms), sum(sm_mhz), sum(temp_c), count(throttle) FROM evaluations")" \
    "$(sql $T/fx.db "SELECT sum(energy_j), sum(power_w), sum(energy_window_ms), sum(sm_mhz), sum(temp_c), count(throttle) FROM evaluations")"
check "the xz dump is the same text" $TUNER db export --db $T/b.db -o $T/b.sql.xz
same "xz round trip" "$(xzcat $T/b.sql.xz | md5sum)" "$(md5sum < $T/b.sql)"
check "merge carries the energy" $TUNER db merge $T/fx.db --db $T/m.db -q
same "merged rows with energy" "$(sql $T/m.db "SELECT count(energy_j) FROM evaluations")" 40

# ---- winners by objective ----
# what sqlite3 says: per problem the ok row of least score, ties by config text
expect() {
    sql $T/fx.db "SELECT p.shape, (SELECT c.text FROM evaluations e JOIN configs c ON c.id = e.config_id
        WHERE e.problem_id = p.id AND e.status = 'ok' AND e.energy_j IS NOT NULL
        ORDER BY $1, c.text, e.kernel_hash LIMIT 1) FROM problems p WHERE p.op = 'vector.saxpy' ORDER BY p.size_key"
}
best_csv() { $TUNER best --db $FX --op vector.saxpy --format csv "$@" | python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin): print(r["shape"] + "|" + r["config"])'; }
same "best --objective energy: the least energy_j" "$(best_csv --objective energy)" "$(expect e.energy_j)"
same "best --objective edp: the least energy_j x median_us" "$(best_csv --objective edp)" "$(expect 'e.energy_j * e.median_us')"
same "best --objective time is tuner best" "$(best_csv --objective time)" "$(best_csv)"
same "the three differ on this fixture (energy: 64x2 twice; edp: 64x2, then the time winner)" \
    "$(best_csv --objective energy | cut -d'|' -f2 | tr '\n' ' ')/$(best_csv --objective edp | cut -d'|' -f2 | tr '\n' ' ')/$(best_csv | cut -d'|' -f2 | tr '\n' ' ')" \
    "block_size=64,items=2 block_size=64,items=2 /block_size=64,items=2 block_size=128,items=2 /block_size=256,items=1 block_size=128,items=2 "
same "csv: energy_j and power_w of the winner" \
    "$($TUNER best --db $FX --op vector.saxpy --format csv --objective energy | python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin): print(r["energy_j"], r["power_w"])')" \
    "$(sql $T/fx.db "SELECT printf('%.6g %.2f', e.energy_j, e.power_w) FROM evaluations e JOIN configs c ON c.id = e.config_id
        JOIN problems p ON p.id = e.problem_id WHERE c.text = 'block_size=64,items=2' AND p.op = 'vector.saxpy' ORDER BY p.size_key")"
same "json: energy_j, and null where none was measured" \
    "$($TUNER best --db $FX --format json | python3 -c 'import json, sys
print(" ".join("%s:%s" % (r["op"].split(".")[1], "null" if r["energy_j"] is None else "J") for r in json.load(sys.stdin)))')" \
    "saxpy:J saxpy:J scale_shift:null scale_shift:null scale_shift:null scale_shift:null"
check "best --objective energy" $TUNER best --db $FX --objective energy
same "problems without energy have no winner, said once on stderr" \
    "$(grep -c 'tuner best' $T/.out) $(grep -o 'tuner best: 4 problems without energy measured, no winner under --objective energy' $T/.out)" \
    "1 tuner best: 4 problems without energy measured, no winner under --objective energy"
same "only saxpy's problems have an energy winner" "$(grep -c '^NVIDIA' $T/.out)" 2
said "the table has the energy columns" 'J/run +W +config' -E
check "best without energy in the rows: no energy columns" $TUNER best --db $FX --op vector.scale_shift
same "(none)" "$(grep -c 'J/run' $T/.out)" 0

# ---- headers ----
check "header --space, time" $TUNER header --space examples/vector/saxpy.yaml --db $FX -o $T/t.h -q
check "header --space --objective time: the same bytes" \
    $TUNER header --space examples/vector/saxpy.yaml --db $FX -o $T/t2.h --objective time -q
sed -i 's|t2\.h|t.h|; s|T2_H_|T_H_|' $T/t2.h
check "(byte for byte)" cmp $T/t.h $T/t2.h
check "the time header names no objective" bash -c "! grep -q 'OBJECTIVE\|objective' $T/t.h"
check "header --space --objective energy" $TUNER header --space examples/vector/saxpy.yaml --db $FX -o $T/e.h --objective energy -q
check "it says what it was written for" grep -q '^#define VECTOR_SAXPY_OBJECTIVE "energy"$' $T/e.h
check "in its comment too" grep -q 'Winners by objective energy' $T/e.h
same "its entries are the energy winners" \
    "$(table_configs $T/e.h)" \
    "$(expect e.energy_j | cut -d'|' -f2)"
same "with their energy" "$(grep -c ' J \*/$' $T/e.h)" 2
cat > $T/use.c <<EOF
#include <stdio.h>
#include "e.h"
int main(void)
{
    long long n[1] = {16777216};
    const vector_saxpy_tuned *t = vector_saxpy_lookup("NVIDIA H100 80GB HBM3", 9, 0, 132, "f32", n);
    printf("%s %s\n", VECTOR_SAXPY_OBJECTIVE, t ? t->config : "none");
    return 0;
}
EOF
check "the energy header compiles" cc -std=c99 -Wall -Wextra -Werror -I$T -o $T/use $T/use.c -lm
same "and looks up the energy winner" "$($T/use)" "energy block_size=64,items=2"
check "header --space --objective edp" $TUNER header --space examples/vector/saxpy.yaml --db $FX -o $T/d.h --objective edp -q
same "its entries are the edp winners" \
    "$(table_configs $T/d.h)" \
    "$(expect 'e.energy_j * e.median_us' | cut -d'|' -f2)"
check_fails "no energy measured of scale_shift: no header under energy" 1 \
    $TUNER header --space examples/vector/scale_shift.yaml --db $FX -o $T/s.h --objective energy
said "it says why" 'no validated measurement with energy of vector.scale_shift'
[ ! -e $T/s.h ]; same "nothing written" "$?" 0
check "the built-in header under energy" $TUNER header --db $FX -o $T/builtin.h --objective energy -q
check "says its objective" grep -q 'Winners by objective energy' $T/builtin.h
check_fails "no energy in the inputs at all: no built-in header under energy" 1 \
    $TUNER header --db $V6 -o $T/none.h --objective energy
said "it says why" "no energy measured in $V6: no winner under --objective energy"
[ ! -e $T/none.h ]; same "nothing written" "$?" 0
check "under time the same inputs write a header" $TUNER header --db $V6 -o $T/none.h -q

# ---- replay answers the energy, and the run stores it ----
check "run saxpy over the replay, objective time" $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/t.db -q
same "no energy asked for, none stored (replay answers as the worker does)" \
    "$(sql $T/t.db "SELECT count(*), count(energy_j) FROM evaluations WHERE status = 'ok'")" "40|0"
# every config measured with its energy: measure.energy_top all (the old behaviour)
cat > $T/all.yaml <<EOF
base: "$(pwd)/examples/vector/saxpy.yaml"
search: { objective: energy }
measure: { energy_top: all }
EOF
check "run saxpy over the replay, objective energy, energy_top all" $TUNER run $T/all.yaml --backend replay:$FX --db $T/r.db
said "the summary counts every config's window" 'tuner: energy: 40 windows, 8.0 s, for 2 problems'
check "racing is off" bash -c "! grep -q 'racing at' $T/said.out"
same "every stored ok row carries the recorded energy" \
    "$(sql $T/r.db "SELECT count(*), count(energy_j) FROM evaluations WHERE status = 'ok'")" "40|40"
python3 - "$T/r.db" "$T/fx.db" >$T/diff.out <<'PY'
import sqlite3, sys
q = """SELECT p.shape, c.text, e.energy_j, e.power_w, e.energy_window_ms, e.sm_mhz, e.mem_mhz, e.temp_c, e.throttle
       FROM evaluations e JOIN configs c ON c.id = e.config_id JOIN problems p ON p.id = e.problem_id
       WHERE p.op = 'vector.saxpy' AND e.status = 'ok' ORDER BY 1, 2"""
a, b = (sqlite3.connect(f).execute(q).fetchall() for f in sys.argv[1:])
print("same" if a == b and len(a) == 40 else "differ: %r" % [x for x in zip(a, b) if x[0] != x[1]][:2])
PY
same "the same readings as recorded" "$(cat $T/diff.out)" same
check "db check" $TUNER db check --db $T/r.db -q

# ---- contenders only (the default under energy and edp) ----
# the contenders by the rows: ok configs within 25% of the best median, at most 4, fastest first
contenders() {
    sql $1 "SELECT p.shape, c.text FROM evaluations e JOIN configs c ON c.id = e.config_id
        JOIN problems p ON p.id = e.problem_id WHERE e.status = 'ok' AND e.median_us <= (1 + ${2:-0.25}) *
        (SELECT min(median_us) FROM evaluations x WHERE x.problem_id = e.problem_id AND x.status = 'ok')
        ORDER BY p.size_key, e.median_us, c.text" | awk -F'|' -v top=${3:-4} '++n[$1] <= top'
}
with_energy() {
    sql $1 "SELECT p.shape, c.text FROM evaluations e JOIN configs c ON c.id = e.config_id
        JOIN problems p ON p.id = e.problem_id WHERE e.energy_j IS NOT NULL ORDER BY p.size_key, e.median_us, c.text"
}
energies() {
    sql $1 "SELECT p.shape, c.text, printf('%.9g', e.energy_j) FROM evaluations e JOIN configs c ON c.id = e.config_id
        JOIN problems p ON p.id = e.problem_id WHERE e.energy_j IS NOT NULL AND p.op = 'vector.saxpy' ORDER BY 1, 2"
}
check "run saxpy over the replay, --objective energy" \
    $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/c.db --objective energy
cp $T/.out $T/run.out
check "the summary says how many windows, how long, for how many problems" grep -q 'tuner: energy: 8 windows, 1.6 s, for 2 problems' $T/run.out
check "and which configs" grep -qF "energy measured over 1 s windows for each problem's contenders (within 25% of its best time, at most 4): 8 of 8 windows with energy" $T/run.out
check "racing and the playoff stay on" grep -qE 'tuner: racing at 5%: .* 2 playoffs' $T/run.out
same "only the contenders have energy rows" "$(with_energy $T/c.db)" "$(contenders $T/c.db)"
same "(four a problem here)" "$(with_energy $T/c.db | wc -l)" 8
energies $T/fx.db > $T/fx.energies
same "their energy is the recorded one" "$(energies $T/c.db | grep -cxFf $T/fx.energies)" 8
best_of() { $TUNER best --db $1 --format csv --objective ${2:-energy} | python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin): print(r["shape"] + "|" + r["config"])'; }
same "the winner is the contender of least energy" "$(best_of $T/c.db)" \
    "$(sql $T/c.db "SELECT p.shape, (SELECT c.text FROM evaluations e JOIN configs c ON c.id = e.config_id
        WHERE e.problem_id = p.id AND e.energy_j IS NOT NULL ORDER BY e.energy_j, c.text LIMIT 1) FROM problems p ORDER BY p.size_key")"
same "the winners are contenders" "$(best_of $T/c.db | grep -cxFf <(with_energy $T/c.db))" 2
same "the time winner is a contender" "$(best_of $T/c.db time | grep -cxFf <(with_energy $T/c.db))" 2
check "the run's line names that winner" grep -qE "^  vector.saxpy f32 n=16777216 .* $(best_of $T/c.db | tail -n 1 | cut -d'|' -f2)\$" $T/run.out
check "again: resumed, no new window" $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/c.db --objective energy
said "none" 'tuner: energy: 0 windows, 0.0 s, for 0 problems'
cat > $T/top.yaml <<EOF
base: "$(pwd)/examples/vector/saxpy.yaml"
search: { objective: edp }
measure: { energy_within: 0.02, energy_top: 2, energy: 0.5 }
EOF
check "energy_within 0.02, energy_top 2, objective edp" $TUNER run $T/top.yaml --backend replay:$FX --db $T/c2.db
same "the contenders follow the keys" "$(with_energy $T/c2.db)" "$(contenders $T/c2.db 0.02 2)"
said "and the summary says them" "for each problem's contenders (within 2% of its best time, at most 2)"
check "space describes the contenders" $TUNER space $T/top.yaml
said "(said)" "objective edp (energy over 0.5 s windows for each problem's contenders: within 2% of its best time, at most 2)"
for bad in "energy_within: 0|measure.energy_within: must be above 0 and at most 10 (the fraction over the best time, 0.25 for 25%), found 0" \
           "energy_within: 10.5|measure.energy_within: must be above 0 and at most 10 (the fraction over the best time, 0.25 for 25%), found 10.5" \
           "energy_top: 0|measure.energy_top: must be at least 1, found 0" \
           "energy_top: 33|measure.energy_top: must be at most 32, found 33" \
           "energy_top: some|measure.energy_top: must be a count of configs (1 to 32) or all, found 'some'"; do
    key=${bad%%|*}; value=${key#*: }
    printf 'base: "%s/examples/vector/saxpy.yaml"\nmeasure:\n  %s\n' "$(pwd)" "$key" > $T/bad.yaml
    check_fails "$key" 2 $TUNER space $T/bad.yaml
    same "$key: file:line:col error" "$(head -n 1 $T/.out)" "$T/bad.yaml:3:$((${#key} - ${#value} + 3)): error: ${bad#*|}"
done

# ---- the report ----
check "report the fixture" $TUNER report --db $FX -o $T/rep -q
R=$T/rep/$SLUG
check "the time-energy figure of saxpy" test -s $R/energy-vector-saxpy-f32.svg
same "none for scale_shift (no energy)" "$(ls $R | grep -c '^energy-')" 1
check "it is XML, and both pages show it" python3 - "$R" <<'PY'
import os, re, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
svg = ET.parse(os.path.join(d, "energy-vector-saxpy-f32.svg")).getroot()
titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
assert sum("(Pareto front)" in t for t in titles) >= 2, titles
assert sum(t.startswith("time winner ") for t in titles) == 2, titles
assert sum(t.startswith("energy winner block_size=64,items=2") for t in titles) == 2, titles
html = ET.parse(os.path.join(d, "index.html")).getroot()
assert "energy-vector-saxpy-f32.svg" in [i.get("src") for i in html.iter("img")]
assert "(energy-vector-saxpy-f32.svg)" in open(os.path.join(d, "README.md")).read()
PY
# the Pareto front counted by the definition (no other config no slower and no costlier, better
# in one), and the winners with what each costs in the other
python3 - "$T/fx.db" >$T/pareto.out <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for shape, tw in con.execute("SELECT shape, config FROM best WHERE op = 'vector.saxpy' ORDER BY size_key"):
    pts = con.execute("""SELECT c.text, e.median_us, e.energy_j FROM evaluations e JOIN configs c ON c.id = e.config_id
        JOIN problems p ON p.id = e.problem_id WHERE p.op = 'vector.saxpy' AND p.shape = ? AND e.status = 'ok'""", (shape,)).fetchall()
    front = [p for p in pts if not any(q[1] <= p[1] and q[2] <= p[2] and (q[1] < p[1] or q[2] < p[2]) for q in pts)]
    ew = min(pts, key=lambda p: (p[2], p[0]))
    t = next(p for p in pts if p[0] == tw)
    print("| `%s` | %d of %d | %d | `%s`: %.2f µs | `%s`: %.2f mJ, %.1f%% less energy, %.1f%% slower |" % (
        shape, len(pts), len(pts), len(front), tw, t[1], ew[0], ew[2] * 1e3,
        100 * (1 - ew[2] / t[2]), 100 * (ew[1] / t[1] - 1)))
PY
check "the report's time-energy table is what the rows say" python3 - "$R/README.md" "$T/pareto.out" <<'PY'
import re, sys
md = open(sys.argv[1]).read()
want = open(sys.argv[2]).read().splitlines()
rows = [l for l in md.splitlines() if l.startswith("| `n=") and " of " in l]
assert len(rows) == 2 and len(want) == 2, (rows, want)
for g, w in zip(rows, want):
    gc = g.split(" | ")
    wc = w.split(" | ")
    assert gc[:3] == wc[:3], (gc, wc)                       # problem, configs, front
    assert gc[3].split(":")[0] == wc[3].split(":")[0], (gc[3], wc[3])   # the time winner
    assert gc[4].split(":")[0] == wc[4].split(":")[0], (gc[4], wc[4])   # the energy winner
    assert gc[4].split(", ", 1)[1] == wc[4].split(", ", 1)[1], (gc[4], wc[4])  # what it saves and costs
PY
check "the intro says what the section is" grep -q '^- \*\*Time against energy\*\* (2 problems measured with energy)' $R/README.md
check "report again" $TUNER report --db $FX -o $T/rep2 -q
check "byte for byte deterministic" diff -r $T/rep $T/rep2
check "a report of the version-6 dump: no time-energy section" $TUNER report --db $V6 -o $T/rep6 -q
check "(none)" bash -c "! grep -q 'against energy' $T/rep6/$SLUG/README.md && ! ls $T/rep6/$SLUG | grep -q '^energy-'"
check "report --objective energy" $TUNER report --db $FX -o $T/repe --objective energy
said "counts the problems without a winner" 'tuner report: 4 problems without energy measured, no winner under --objective energy'
same "whose rows say so" "$(grep -c '| no energy measured |' $T/repe/$SLUG/README.md)" 4
check "saxpy's tuned config is the energy winner" \
    grep -qF '| `n=16777216` | 16 Mi | `block_size=64,items=2` | 83.15 |' $T/repe/$SLUG/README.md
check "the page names its objective" grep -q 'Objective energy' $T/repe/$SLUG/README.md

# ---- bad input ----
for cmd in best "header --space examples/vector/saxpy.yaml" report; do
    check_fails "$cmd --objective bogus" 2 $TUNER $cmd --db $FX --objective bogus -o $T/bogus
    said "says which value" "bad value 'bogus' for --objective; see 'tuner ${cmd%% *} --help'"
done
[ ! -e $T/bogus ]; same "nothing written" "$?" 0
python3 - "$T/a.sql" "$T/bad.sql" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# one ok row with energy made 'invalid' (its statistics, samples and energy kept)
bad, n = re.subn(r"\('block_size=64,items=2','ok',", "('block_size=64,items=2','invalid',", text, count=1)
assert n == 1
open(sys.argv[2], "w").write(bad)
PY
check_fails "a dump with energy on a row not ok is refused" 1 $TUNER db import $T/bad.sql --db $T/bad.db
said "it says why" 'evaluation(s) with energy readings but not ok or without energy_j'
finish

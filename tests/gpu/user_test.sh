#!/usr/bin/env bash
# user_test.sh: user kernels on a real GPU (run by tests/gpu/run.sh). Tunes tests/gpu/user/
# faults.yaml, whose BUG parameter selects a defect, into a fresh database with a fresh compile
# cache and checks with python3's sqlite3 module that every defect got its own status (0 ok,
# 1 invalid, 2 fault, 3 invalid, 4 compile_error, 5 unsupported for the larger block, 6 timeout)
# and that the run went on after each. Then tunes the two examples of examples/vector (a -D
# kernel and a templated one with a reference kernel) and checks that they validated, and that
# a second run with the same cache compiles nothing; their problems play off, none failing.
# Last, tests/gpu/user/struct_echo.yaml with each compiler: a struct passed by value, a bool and
# a dtype scalar echoed back for four dtypes, every variant ok; and tests/gpu/user/arch_specific.yaml
# (kernel.arch_suffix: a, a kernel that builds only for sm_90a), texture_forms.yaml (texture
# arguments of every kind, read back against a reference kernel) and tma_scale.yaml (a TMA
# kernel over a tensor map the tuner encodes) and gather_index.yaml (indices and weights whose
# init values are expressions of the problem) with each compiler, every config ok.
# Prints "N passed, N failed".
source "$(dirname "$0")/lib.sh"

out=$($T run tests/gpu/user/faults.yaml --db "$tmp/f.db" --cache "$tmp/cache" 2>&1)
rc=$?
check "faults run exits 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
counts=$(python3 - "$tmp/f.db" <<'PY'
import sqlite3, sys
passed = failed = 0
def check(cond, what):
    global passed, failed
    if cond: passed += 1
    else:
        failed += 1
        print("user_test: FAIL: " + what)
try:
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    rows = db.execute("""SELECT c.text, e.status, COALESCE(e.error, ''), e.seq
        FROM evaluations e JOIN configs c ON c.id = e.config_id ORDER BY e.seq""").fetchall()
except Exception as ex:
    print("user_test: FAIL: cannot read the database: %s" % ex)
    print("0 1"); sys.exit(0)
want = {0: "ok", 1: "invalid", 2: "fault", 3: "invalid", 4: "compile_error", 6: "timeout"}
check(len(rows) == 14, "14 evaluations (7 defects x 2 blocks), got %d" % len(rows))
for cfg, status, error, seq in rows:
    kv = dict(x.split("=") for x in cfg.split(","))
    bug, block = int(kv["bug"]), int(kv["block"])
    expect = ("unsupported" if block > 128 else "ok") if bug == 5 else want[bug]
    check(status == expect, "%s: %s (%s), expected %s" % (cfg, status, error[:200], expect))
    if bug == 3:
        check("[1000002]" in error, "%s: the unwritten last element is named: %s" % (cfg, error[:200]))
    if bug == 4:
        check("faults.cu" in error and "error" in error, "%s: the compiler's log: %s" % (cfg, error[:200]))
ok_after_fault = [s for c, st, e, s in rows if st == "ok"]
faults = [s for c, st, e, s in rows if st in ("fault", "timeout")]
check(faults and ok_after_fault and max(ok_after_fault) > min(faults), "ok rows after the faults")
print("%d %d" % (passed, failed))
PY
)
printf '%s\n' "$counts" | grep -v '^[0-9]* [0-9]*$'
set -- $(printf '%s\n' "$counts" | tail -n 1)
passed=$((passed + ${1:-0})); failed=$((failed + ${2:-1}))

for s in saxpy scale_shift; do
    out=$($T run examples/vector/$s.yaml --db "$tmp/v.db" --cache "$tmp/cache" 2>&1)
    rc=$?
    check "$s runs (exit $rc)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
    printf '%s\n' "$out" | grep -E '^tuner: ' | sed 's/^/    /'
    # each problem's closest configs play off, binding each contender's variant before its run
    # (they once waited out the batch hold at every run, and the watchdog killed the playoff)
    check "$s: its problems played off" grep -Eq \
        '^tuner: racing at [0-9.]+%: [0-9]+ evaluations stopped early; [1-9][0-9]* playoffs' <<<"$out"
    check "$s: no playoff failed" sh -c '! printf "%s\n" "$1" | grep -q "playoff of .* failed"' _ "$out"
    check "$s: every variant validated" python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
bad = db.execute("SELECT count(*) FROM evaluations e JOIN problems p ON p.id = e.problem_id WHERE p.op = ? AND e.status <> ?", ("vector." + sys.argv[2], "ok")).fetchone()[0]
good = db.execute("SELECT count(*) FROM evaluations e JOIN problems p ON p.id = e.problem_id WHERE p.op = ? AND e.status = ?", ("vector." + sys.argv[2], "ok")).fetchone()[0]
sys.exit(0 if bad == 0 and good > 0 else 1)' "$tmp/v.db" "$s"
    again=$($T run examples/vector/$s.yaml --db "$tmp/v2.db" --cache "$tmp/cache" 2>&1)
    check "$s: a second run compiles nothing" grep -q 'compiled 0 variants' <<<"$again"
done

# every_ok NAME WANT WHAT: runs tests/gpu/user/NAME.yaml with each compiler into a database of
# its own and checks that every evaluation is ok, WANT of them ("8 ok of 8").
every_ok() {
    local name=$1 want=$2 what=$3 comp out rc res
    for comp in nvrtc nvcc; do
        out=$($T run tests/gpu/user/$name.yaml --compiler $comp --db "$tmp/${name}_$comp.db" \
              --cache "$tmp/cache" 2>&1)
        rc=$?
        check "$name ($comp) runs (exit $rc)" test "$rc" -eq 0
        [ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
        res=$(python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT p.dtype, e.status, COALESCE(e.error, \"\") FROM evaluations e JOIN problems p ON p.id = e.problem_id").fetchall()
bad = [r for r in rows if r[1] != "ok"]
print("%d ok of %d%s" % (len(rows) - len(bad), len(rows), "; " + str(bad[0])[:300] if bad else ""))' \
              "$tmp/${name}_$comp.db" 2>&1)
        check "$name ($comp): $what: $res" test "$res" = "$want"
    done
}

# structs passed by value, a bool and a dtype scalar: every variant of every dtype must echo the
# values the space gives (the reference kernel writes them): 2 configs x 4 dtypes
every_ok struct_echo "8 ok of 8" "every dtype's variants echo the struct"
# kernel.arch_suffix: a: a kernel that builds only for sm_90a (wgmma.fence), every config ok
# against the reference config
every_ok arch_specific "6 ok of 6" "every config of the sm_90a kernel ok"
# texture arguments of every kind (2-D u8 x 4 read normalized, 3-D i16, 2-D f16 with normalized
# coordinates and wrap, 1-D i32 over the buffer), each read back against a reference kernel that
# reads the buffers through pointers
every_ok texture_forms "4 ok of 4" "every texture reads what its buffer holds"
# a TMA kernel: the tuner encodes its CUtensorMap (tensor_map:, a box that is a parameter, a
# padded leading dimension) and the kernel copies its tiles with cp.async.bulk.tensor
every_ok tma_scale "16 ok of 16" "every tile copied by the TMA unit"
# init values that are expressions of the problem: indices in [0, m - 1], weights 1 / m, for two
# problems' m; the kernel traps on anything else
every_ok gather_index "6 ok of 6" "every index in range and every weight 1 / m"
finish

#!/usr/bin/env bash
# corpus.sh: the corpus of unedited nvcc-style kernels (tests/corpus/README.md) tuned on a real
# GPU. Run by tests/gpu/run.sh (make gpu-test), or alone: bash tests/gpu/corpus.sh [CASE...]
# (TUNER names the binary, default build/tuner; OUT, when set, gets the summary corpus.txt).
#
# For every case, with each compiler that applies (NVRTC and nvcc; nvcc only for the whole host
# program host_code_nvcc): `tuner run --strategy exhaustive` into a fresh database and a fresh
# compile cache, then, read back with python3's sqlite3 module (no sqlite3 CLI needed):
#   - the run exits 0;
#   - every config of the case's deliberate bug (its `wrong` below, named in the space file and
#     in tests/corpus/README.md) is `invalid`, and there is at least one;
#   - every config beyond the device (its `over` below: more than 1024 threads a block) is
#     `unsupported`, and blocks_2d and stencil_3d have some;
#   - every other config is `ok` (so at least one is).
# Prints one line per case and compiler: each problem's winner and its median time.
source "$(dirname "$0")/lib.sh"
need_gpu

# case|compilers|wrong (a Python expression over the config's parameters)|over (beyond the device)
table='
cub_block_reduce|nvrtc nvcc|cover == 2|False
printf_debug|nvrtc nvcc|threads_div == 2|False
const_filter|nvrtc nvcc|radius_short == 1|False
block_partials|nvrtc nvcc|threads == 384|False
two_pass_reduce|nvrtc nvcc|partials_div == 2|False
blocks_2d|nvrtc nvcc|swap_grid == 1|tile * rows_per_block > 1024
stencil_3d|nvrtc nvcc|swap_dims == 1|bx * by * bz > 1024
template_scale|nvrtc nvcc|floor_grid == 1|False
math_funcs|nvrtc nvcc|gelu_tanh == 1|False
host_code_nvcc|nvcc|grid_short == 1|False
stdint_limits|nvrtc nvcc|cover == 2|False
coop_groups|nvrtc nvcc|tile == 16|False
check_histogram|nvrtc nvcc|n_short == 1|False
assert_guard|nvrtc nvcc|round_n == 1|False
struct_params|nvrtc nvcc|ld_is_cols == 1|False
grid_sync|nvrtc nvcc|n_short == 1|blocks_per_sm * block > 2048
cluster_reduce|nvrtc nvcc|n_short == 1|False
traits_absmax|nvrtc nvcc|first_warp == 1 and block > 32|False
texture_resize|nvrtc nvcc|half_pixel == 0|False
dtype_by_macro|nvcc|n_short == 1|False
'
want_over=" blocks_2d stencil_3d grid_sync "
only=" $* "
summary=()

while IFS='|' read -r c compilers wrong over; do
    [ -n "$c" ] || continue
    [ "$only" = "  " ] || [[ "$only" == *" $c "* ]] || continue
    space=tests/corpus/$c/$c.yaml
    for comp in $compilers; do
        db=$tmp/$c.$comp.db
        start=$SECONDS
        out=$($T run "$space" --strategy exhaustive --compiler "$comp" --db "$db" --cache "$tmp/cache.$comp" 2>&1 </dev/null)
        rc=$?
        took=$((SECONDS - start))
        check "$c ($comp): tuner run exits 0 (got $rc)" test "$rc" -eq 0
        [ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
        res=$(python3 - "$db" "$c" "$comp" "$wrong" "$over" "$([[ "$want_over" == *" $c "* ]] && echo 1 || echo 0)" <<'PY'
import sqlite3, sys
path, case, comp, wrong, over, want_over = sys.argv[1:7]
passed = failed = 0
def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("corpus: FAIL: %s (%s): %s" % (case, comp, what))
def params(text):
    kv = {}
    for item in text.split(","):
        k, v = item.split("=", 1)
        try:
            kv[k] = int(v)
        except ValueError:
            kv[k] = v
    return kv
try:
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    rows = db.execute("""SELECT p.op, p.dtype, p.shape, c.text, e.status, COALESCE(e.error, ''), e.median_us
        FROM evaluations e JOIN configs c ON c.id = e.config_id JOIN problems p ON p.id = e.problem_id
        ORDER BY p.op, p.dtype, p.shape, c.text""").fetchall()
    best = db.execute("SELECT op, dtype, shape, config, median_us FROM best ORDER BY op, dtype, shape").fetchall()
except Exception as ex:
    print("corpus: FAIL: %s (%s): cannot read the database: %s" % (case, comp, ex))
    print("@@ 0 1 -")
    sys.exit(0)
check(len(rows) > 0, "no evaluations recorded")
n = {"ok": 0, "invalid": 0, "unsupported": 0}
for op, dtype, shape, cfg, status, error, us in rows:
    kv = params(cfg)
    where = "%s %s %s, config %s: %s%s" % (op, dtype, shape, cfg, status, (" (" + error[:160] + ")") if error else "")
    if eval(over, {}, dict(kv)):
        expect = "unsupported"
    elif eval(wrong, {}, dict(kv)):
        expect = "invalid"
    else:
        expect = "ok"
    n[expect] += status == expect
    check(status == expect, "%s, expected %s" % (where, expect))
check(n["ok"] > 0, "no ok evaluation")
check(n["invalid"] > 0, "the deliberate bug (%s) never came out invalid" % wrong)
if want_over == "1":
    check(n["unsupported"] > 0, "no unsupported evaluation (%s)" % over)
line = "; ".join("%s %s %s: %s %.2f us" % (op, dtype, shape, cfg, us) for op, dtype, shape, cfg, us in best)
print("@@ %d %d %s" % (passed, failed, line or "-"))
PY
)
        printf '%s\n' "$res" | grep -v '^@@ ' | head -n 30
        last=$(printf '%s\n' "$res" | grep '^@@ ' | tail -n 1)
        read -r _ p f best <<<"$last"
        passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))
        line=$(printf '%-17s %-5s %3ds  %s' "$c" "$comp" "$took" "${best:--}")
        echo "$line"
        summary+=("$line")
    done
done <<<"$table"

if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT" && {
        echo "# tests/gpu/corpus.sh on $(printf '%s\n' "$gpus" | head -n 1)"
        echo "# case, compiler, seconds, then per problem: winner and median"
        printf '%s\n' "${summary[@]}"
        echo "$passed passed, $failed failed"
    } > "$OUT/corpus.txt"
fi
finish

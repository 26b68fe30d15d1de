#!/usr/bin/env bash
# limits.sh: the limits of issue 21 that hold without a GPU, each a clear one-line error or a
# bounded run, never a hang or an out-of-memory kill: a space that would enumerate half a billion
# configs (refused at load, by `tuner space` and `tuner run`), a dump of a million lines of
# garbage (refused at its first line), a dump of a million junk rows (imported, in bounded time
# and memory), a dump whose statement never ends (stopped), a truncated .xz dump, a file that is
# not a SQLite database and a truncated database (refused by every reader), and a problem whose
# buffers exceed the GPU's memory (refused before anything runs, here against the replay
# backend's synthetic GPU of 80 GiB). Every command runs under `timeout` and, outside the
# sanitizer build (ASan reserves terabytes of address space), `ulimit -v` of 4 GiB, so a
# regression fails the check instead of hanging the suite or the machine.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz

# bounded SECONDS COMMAND...: the command under a time limit and (without ASan) a memory limit
bounded() {
    local secs=$1; shift
    if [ -z "${ASAN_OPTIONS:-}" ]; then
        ( ulimit -v $((4 << 20)); exec timeout -k 5 "$secs" "$@" )
    else
        timeout -k 5 "$secs" "$@"
    fi
}
# one_line_error WANT_RC PATTERN SECONDS COMMAND...: the command exits WANT_RC in time, and its
# stderr is one line matching PATTERN (grep -E)
one_line_error() {
    local want=$1 pat=$2 secs=$3; shift 3
    bounded "$secs" "$@" >"$T/o" 2>"$T/e"
    local rc=$? lines
    lines=$(wc -l < "$T/e")
    if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -qE "$pat" "$T/e"; then
        return 0
    fi
    echo "exit $rc (want $want), $lines stderr line(s), want one matching '$pat':"
    head -c 600 "$T/e"
    return 1
}

# ---- a space of half a billion configs ----
{
    printf 'kernel: elementwise\nops: [mul, add, fma, relu, gelu]\ndtypes: [f32, f16, bf16]\nproblems:\n'
    for i in $(seq 1 20); do printf '  - { n: %d }\n' $((i * 1024)); done
    printf 'params:\n  block_size: { range: [32, 1024, 32] }\n  waves: { range: [1, 1024] }\n'
    printf '  pack_size: { values: [1, 2, 4, 8] }\n  unroll: { values: [1, 2, 4] }\n'
    printf '  cache_hint: { values: [normal, evict_first] }\n  loop: { values: [grid_stride, one_shot] }\n'
} > $T/billions.yaml
check "tuner space: half a billion configs is a load error, in time, at params:" \
    one_line_error 2 'billions.yaml:26:3: error: the space is too large to enumerate' 120 $TUNER space $T/billions.yaml
check "tuner run: the same error before anything runs" \
    one_line_error 2 'error: the space is too large to enumerate' 120 \
    $TUNER run $T/billions.yaml --backend replay:$FX --db $T/billions.db
check "tuner run: no database created" test ! -e $T/billions.db

# ---- dumps ----
python3 - "$T" <<'PY'
import random, sys
t = sys.argv[1]
random.seed(21)
with open(t + "/garbage.sql", "w") as f:
    for i in range(1000000):
        f.write("".join(random.choice("abcdefgh ;,()'0123456789") for _ in range(24)) + "\n")
with open(t + "/junk.sql", "w") as f:
    for s in range(1000):
        f.write("INSERT INTO configs(text) VALUES" +
                ",".join("('junk %d')" % (s * 1000 + i) for i in range(1000)) + ";\n")
PY
check "a million lines of garbage: refused at line 1" \
    one_line_error 1 "garbage.sql': line 1: only INSERT statements are imported" 120 \
    $TUNER db import $T/garbage.sql --db $T/garbage.db
same "  and nothing imported" "$(sql $T/garbage.db 'SELECT count(*) FROM configs')" "0"
check "a million junk rows: imported in bounded time and memory" \
    bounded 300 $TUNER db import $T/junk.sql --db $T/junk.db
same "  all of them" "$(sql $T/junk.db 'SELECT count(*) FROM configs')" "1000000"
check "  and db check finds the database sound" bounded 300 $TUNER db check --db $T/junk.db
printf -- '-- tunekit dump, schema version 3\nINSERT INTO configs(text) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;\n' > $T/endless.sql
check "a statement that never ends: stopped with an error" \
    one_line_error 1 "endless.sql': line 2: the statement did not finish within" 120 \
    $TUNER db import $T/endless.sql --db $T/endless.db
head -c 20000 $FX > $T/cut.sql.xz
check "a truncated .xz dump: an error" \
    one_line_error 1 "cut.sql.xz': truncated .xz data" 60 $TUNER db import $T/cut.sql.xz --db $T/cut.db
check "  also as a replay source" \
    one_line_error 1 "cut.sql.xz': truncated .xz data" 60 $TUNER best --db $T/cut.sql.xz

# ---- database files ----
head -c 100000 /dev/urandom > $T/random.db
check "not a SQLite database: db info" \
    one_line_error 1 "random.db': not a SQLite database" 60 $TUNER db info --db $T/random.db
check "not a SQLite database: best" \
    one_line_error 1 "random.db': not a SQLite database" 60 $TUNER best --db $T/random.db
check "not a SQLite database: run" \
    one_line_error 1 "random.db': not a SQLite database" 60 \
    $TUNER run tests/fixtures/elementwise_small.yaml --backend replay:$FX --db $T/random.db
$TUNER db import $FX --db $T/real.db >/dev/null 2>&1
head -c $(( $(stat -c %s $T/real.db) / 4 )) $T/real.db > $T/truncated.db
check "a truncated database: db check" \
    one_line_error 1 "truncated.db': .*(malformed|corrupt)" 60 $TUNER db check --db $T/truncated.db
check "a truncated database: best" \
    one_line_error 1 "truncated.db': .*(malformed|corrupt)" 60 $TUNER best --db $T/truncated.db
check "a truncated database: run" \
    one_line_error 1 "truncated.db': .*(malformed|corrupt)" 60 \
    $TUNER run tests/fixtures/elementwise_small.yaml --backend replay:$FX --db $T/truncated.db

# ---- a problem larger than the GPU's memory ----
printf 'kernel: elementwise\nops: [mul]\ndtypes: [f32]\nproblems:\n  - { n: 65536 }\n  - { n: 8589934592 }\nparams:\n  block_size: { values: [256] }\n  waves: { values: [32] }\n  pack_size: { values: [4] }\n  unroll: { values: [1] }\n  loop: { values: [grid_stride] }\n' > $T/huge.yaml
check "buffers beyond the GPU's memory: refused before anything runs" \
    one_line_error 2 "huge.yaml: error: problem 'n=8589934592,offset=0' \(elementwise.mul f32\) needs 103.1 GB of buffers, more than the 85.9 GB of Synthetic GPU" 60 \
    $TUNER run $T/huge.yaml --backend replay:$FX --db $T/huge.db
check "  and no database created" test ! -e $T/huge.db
finish

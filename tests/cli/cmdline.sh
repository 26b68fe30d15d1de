#!/usr/bin/env bash
# cmdline.sh: bad command lines and bad files get one clear line and a non-zero exit, and leave
# nothing behind; every command has --help. The compressed dump form through the command line:
# export -> import -> export byte for byte, a truncated or corrupt .sql.xz refused with one line.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz
SP=tests/fixtures/elementwise_small.yaml

check_fails "no command" 2 $TUNER
check_fails "unknown command" 2 $TUNER frobnicate
for c in run space best header db devices; do check "$c --help" $TUNER $c --help; done
check "tuner --help" $TUNER --help
check_fails "run without a space" 2 $TUNER run
check_fails "unknown option" 2 $TUNER run $SP --frob 1
check_fails "negative budget" 2 $TUNER run $SP --budget-evals -3
check_fails "option without value" 2 $TUNER run $SP --db
check_fails "missing space file" 2 $TUNER run $T/missing.yaml --db $T/m.db
[ ! -e $T/m.db ]; same "no database created for a missing space" "$?" "0"
check_fails "unknown strategy" 2 $TUNER run $SP --strategy annealing-ish --db $T/s.db --backend replay:$FX
[ ! -e $T/s.db ]; same "no database created for an unknown strategy" "$?" "0"
check_fails "replay source missing" 1 $TUNER run $SP --backend replay:$T/nothing.sql --db $T/r.db
[ ! -e $T/r.db ]; same "no database created when the backend cannot open" "$?" "0"
check_fails "bad backend" 1 $TUNER run $SP --backend tpu --db $T/r.db
printf 'this is not a database, keep me\n' > $T/garbage.db
cp $T/garbage.db $T/garbage.orig
check_fails "best on a garbage file" 1 $TUNER best --db $T/garbage.db
check_fails "run into a garbage file" 1 $TUNER run $SP --backend replay:$FX --db $T/garbage.db
check "garbage file untouched" cmp $T/garbage.db $T/garbage.orig
check_fails "db check on a missing file" 1 $TUNER db check --db $T/nope.db
check_fails "db import of a missing dump" 2 $TUNER db import $T/nope.sql --db $T/i.db
check_fails "db unknown subcommand" 2 $TUNER db frob
check_fails "best, bad format" 2 $TUNER best --format xml
# ---- compressed dumps (.sql.xz) ----
check "import the fixture" $TUNER db import $FX --db $T/x1.db -q
check "export compressed" $TUNER db export --db $T/x1.db -o $T/x1.sql.xz
check "export as text" $TUNER db export --db $T/x1.db -o $T/x1.sql
if command -v xzcat >/dev/null 2>&1; then
    check "xzcat gives the text" cmp <(xzcat $T/x1.sql.xz) $T/x1.sql
fi
check "import the compressed dump" $TUNER db import $T/x1.sql.xz --db $T/x2.db -q
check "again: idempotent" $TUNER db import $T/x1.sql.xz --db $T/x2.db -q
check "re-export compressed" $TUNER db export --db $T/x2.db -o $T/x2.sql.xz
check "export -> import -> export is byte for byte" cmp $T/x1.sql.xz $T/x2.sql.xz
head -c 2000 $T/x1.sql.xz > $T/cut.sql.xz
check_fails "a truncated .sql.xz" 1 $TUNER db import $T/cut.sql.xz --db $T/x2.db -q
same "one line naming the file" "$(cat $T/.out)" \
     "tuner: error: dump '$T/cut.sql.xz': truncated .xz data (the file ends inside its .xz stream)"
check_fails "best on a truncated .sql.xz" 1 $TUNER best --db $T/cut.sql.xz
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0x55
open(sys.argv[2], "wb").write(b)' $T/x1.sql.xz $T/bad.sql.xz
check_fails "a corrupt .sql.xz" 1 $TUNER db import $T/bad.sql.xz --db $T/x2.db -q
same "one line naming the file" "$(cat $T/.out)" \
     "tuner: error: dump '$T/bad.sql.xz': corrupt .xz data (damaged or altered: run xz -t on it)"
same "the database kept what it had" "$(sql $T/x2.db 'select count(*) from evaluations')" \
     "$(sql $T/x1.db 'select count(*) from evaluations')"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    out=$($TUNER run $SP --db $T/g.db 2>&1); rc=$?
    same "no GPU: exit 1" "$rc" "1"
    printf '%s\n' "$out" | grep -q "no CUDA device"; same "no GPU: says so" "$?" "0"
    [ ! -e $T/g.db ]; same "no GPU: no database created" "$?" "0"
fi
finish

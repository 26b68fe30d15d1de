#!/usr/bin/env bash
# cmdline.sh: bad command lines and bad files get one clear line and a non-zero exit, and leave
# nothing behind; every command has --help.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql
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
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    out=$($TUNER run $SP --db $T/g.db 2>&1); rc=$?
    same "no GPU: exit 1" "$rc" "1"
    printf '%s\n' "$out" | grep -q "no CUDA device"; same "no GPU: says so" "$?" "0"
    [ ! -e $T/g.db ]; same "no GPU: no database created" "$?" "0"
fi
finish

#!/usr/bin/env bash
# strategies.sh: `tuner strategies` over the synthetic fixture (few seeds, so it stays fast): the
# table has a row per strategy and is the same twice, the CSV has a row per problem and
# strategy, a 100% budget finds every optimum, bad command lines exit 2, a dump of two devices
# that both recorded the family needs DUMP#UUID; and `tuner run`'s side: --warm-start starts each
# problem from another GPU's winners (a made-up second device in the database), and an
# exhaustive space under a budget smaller than the space is searched with the default search
# strategy instead.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz
SP=tests/fixtures/elementwise_small.yaml
UUID=GPU-00000000-0000-0000-0000-00000000f1c7

check "strategies, 3 seeds" $TUNER strategies $SP --replay $FX --seeds 3
out=$(cat $T/.out)
same "one row per strategy" "$(printf '%s\n' "$out" | grep -oE '^\| [a-z]+ ' | tr -d '| ' | tr '\n' ' ')" \
     "strategy random anneal genetic local bayes ensemble "
same "header names the device, problems and budget" \
     "$(printf '%s\n' "$out" | head -n 1 | grep -o '16 problems of 120-160 configs, budget 10% (12-16 evaluations), seeds 1-3')" \
     "16 problems of 120-160 configs, budget 10% (12-16 evaluations), seeds 1-3"
same "same seeds, same table" "$($TUNER strategies $SP --replay $FX --seeds 3 2>&1)" "$out"

check "csv" $TUNER strategies $SP --replay $FX --seeds 2 --format csv --strategy bayes,random
same "csv rows: problems x strategies + header" "$(wc -l < $T/.out)" "33"
same "csv header" "$(head -n 1 $T/.out)" \
     "op,dtype,shape,configs,budget,strategy,seeds,e1_median,e1_p90,e2_median,e2_p90,e5_median,e5_p90,gap_median,gap_p90,within2_share"

check "a budget of 100%" $TUNER strategies $SP --replay $FX --seeds 2 --budget 100% --op mul --dtype f16
same "every run finds the optimum at 100%" \
     "$(grep -cE '\|   0\.00% \|   0\.00% \| 100\.0% \| 4/4 \|' $T/.out)" "6"
check "a budget of 5 evaluations" $TUNER strategies $SP --replay $FX --seeds 2 --budget 5 --strategy local
same "budget in evaluations" "$(head -n 1 $T/.out | grep -o 'budget 5 evaluations')" "budget 5 evaluations"

check_fails "no --replay" 2 $TUNER strategies $SP
check_fails "no space" 2 $TUNER strategies --replay $FX
check_fails "unknown strategy" 2 $TUNER strategies $SP --replay $FX --strategy annealing
check_fails "budget 0%" 2 $TUNER strategies $SP --replay $FX --budget 0%
check_fails "budget 101%" 2 $TUNER strategies $SP --replay $FX --budget 101%
check_fails "seeds 0" 2 $TUNER strategies $SP --replay $FX --seeds 0
check_fails "unknown option" 2 $TUNER strategies $SP --replay $FX --frob 1
check_fails "bad space file" 2 $TUNER strategies $T/missing.yaml --replay $FX
check_fails "missing dump" 1 $TUNER strategies $SP --replay $T/missing.sql
check "strategies --help" $TUNER strategies --help

# ---- warm start: a second, older GPU recorded the same winners ----
# (the fixture's text, as the tuner exports it, with the device's uuid, name and cc changed)
$TUNER db export --db $FX | sed -e "s/$UUID/GPU-00000000-0000-0000-0000-0000000000a8/g" \
    -e "s/'Synthetic GPU (test fixture, not a measurement)',9,0,/'Older synthetic GPU (test fixture)',8,0,/" \
    > $T/other.sql
check "import the other GPU" $TUNER db import $T/other.sql --db $T/w.db -q
check "warm-started run, 1 evaluation per problem" \
    $TUNER run $SP --backend replay:$FX --db $T/w.db --warm-start --strategy random --budget-evals 1 --seed 1 -q
q="select op, dtype, shape, config from best where device_uuid = '$UUID' order by 1, 2, 3"
check "import the fixture" $TUNER db import $FX --db $T/fx.db -q
same "one evaluation per problem finds every winner" "$(sql $T/w.db "$q")" "$(sql $T/fx.db "$q")"
check "cold run, 1 evaluation per problem" \
    $TUNER run $SP --backend replay:$FX --db $T/c.db --strategy random --budget-evals 1 --seed 1 -q
[ "$(sql $T/c.db "$q")" != "$(sql $T/fx.db "$q")" ]; same "without warm start it does not" "$?" "0"
check "warm start with nothing recorded elsewhere" \
    $TUNER run $SP --backend replay:$FX --db $T/e.db --warm-start --budget-evals 3 -q
same "3 evaluations per problem" "$(sql $T/e.db 'select count(*) from evaluations')" "48"

# ---- a dump of two devices that both recorded the family: one must be picked ----
check "two devices in one database" $TUNER db import $FX --db $T/w.db -q
check "export them" $TUNER db export --db $T/w.db -o $T/two.sql
check_fails "two devices recorded it" 1 $TUNER strategies $SP --replay $T/two.sql --seeds 1
same "says how to pick one" "$(grep -o 'pick one with --replay [^ ]*#UUID' $T/.out)" "pick one with --replay $T/two.sql#UUID"
check "DUMP#UUID picks one" $TUNER strategies $SP --replay "$T/two.sql#$UUID" --seeds 1 --strategy local

# ---- the default strategy for an exhaustive space under a small budget ----
check "budget smaller than the space" $TUNER run $SP --backend replay:$FX --db $T/d.db --budget-evals 5 -q
same "searched with the default search strategy" "$(sql $T/d.db 'select strategy from runs')" "ensemble"
check "budget larger than the space" $TUNER run $SP --backend replay:$FX --db $T/x.db --budget-evals 1000 -q
same "exhaustive as the space says" "$(sql $T/x.db 'select strategy from runs')" "exhaustive"
finish

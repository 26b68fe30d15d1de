#!/usr/bin/env bash
# replay.sh: `tuner space` and `tuner run --backend replay:` over the synthetic fixture: every
# recorded config is stored, unrecorded ones are reported and never invented, the winners agree
# between the replayed database, the fixture, `tuner best`, the `best` view and the generated
# header, a second run resumes, and the random strategy honours its budget and seed.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql
SP=tests/fixtures/elementwise_small.yaml

out=$($TUNER space $SP 2>&1)
same "space size" "$(printf '%s\n' "$out" | awk '/^size:/ {print $2}')" "2240"

check "import the fixture" $TUNER db import $FX --db $T/fx.db -q
recorded=$(sql $T/fx.db "select count(*) from evaluations")
check "replay run" $TUNER run $SP --backend replay:$FX --db $T/a.db -q
same "every recorded config stored" "$(sql $T/a.db 'select count(*) from evaluations')" "$recorded"
same "statuses replayed" "$(sql $T/a.db 'select status, count(*) from evaluations group by 1 order by 1')" \
     "$(sql $T/fx.db 'select status, count(*) from evaluations group by 1 order by 1')"
same "samples replayed" "$(sql $T/a.db 'select count(*) from samples')" "$(sql $T/fx.db 'select count(*) from samples')"
out=$($TUNER run $SP --backend replay:$FX --db $T/b.db 2>&1)
same "unrecorded configs reported" "$(printf '%s\n' "$out" | grep -o '[0-9]* not recorded in the replay source')" \
     "$((2240 - recorded)) not recorded in the replay source"

q='select op, dtype, shape, config from best order by op, dtype, shape'
same "winners equal the fixture's" "$(sql $T/a.db "$q")" "$(sql $T/fx.db "$q")"
same "tuner best agrees with the best view" \
     "$($TUNER best --db $T/a.db --format csv | python3 -c 'import csv,sys
rows=list(csv.reader(sys.stdin))[1:]
print("\n".join(sorted("|".join(r[1:5]) for r in rows)))')" \
     "$(sql $T/a.db 'select op, dtype, shape, config from best' | sort)"
same "tuner best --format json agrees" \
     "$($TUNER best --db $T/a.db --format json | python3 -c 'import json,sys
print("\n".join(sorted("|".join((r["op"],r["dtype"],r["shape"],r["config"])) for r in json.load(sys.stdin))))')" \
     "$(sql $T/a.db 'select op, dtype, shape, config from best' | sort)"

check "export" $TUNER db export --db $T/a.db -o $T/a.sql
check "header from the export" $TUNER header -o $T/h.h $T/a.sql -q
missing=0
while IFS='|' read -r op dt size cfg; do
    grep -qF "{ \"$op\", \"$dt\", $size, \"$cfg\" }" $T/h.h || { missing=$((missing + 1)); echo "not in header: $op $dt $size $cfg"; }
done < <(sql $T/a.db 'select op, dtype, size_key, config from best where size_key is not null')
same "header holds every winner" "$missing" "0"
same "header entry count" "$(grep -o 'TK_TUNED_N_ENTRIES [0-9][0-9]*' $T/h.h)" \
     "TK_TUNED_N_ENTRIES $(sql $T/a.db 'select count(*) from best where size_key is not null')"
printf '#include "%s"\nint main(void) { return tk_tuned_entries[0].size > 0 ? 0 : 1; }\n' "$T/h.h" > $T/use_header.c
check "header compiles" gcc -std=c17 -Wall -Wextra -Werror -fsyntax-only -Ikernels -I/usr/local/cuda/include $T/use_header.c

out=$($TUNER run $SP --backend replay:$FX --db $T/a.db 2>&1)
same "second run resumes everything" "$(printf '%s\n' "$out" | grep -o '0 evaluated.*already in')" \
     "0 evaluated (none), $recorded already in"

check "random, budget 10" $TUNER run $SP --backend replay:$FX --db $T/r1.db --strategy random --budget-evals 10 --seed 7 -q
same "budget: 10 evaluations per problem" "$(sql $T/r1.db 'select count(*) from evaluations')" "160"
check "random again, same seed" $TUNER run $SP --backend replay:$FX --db $T/r2.db --strategy random --budget-evals 10 --seed 7 -q
q='select p.op, p.dtype, p.shape, c.text from evaluations e join problems p on p.id=e.problem_id join configs c on c.id=e.config_id order by e.seq'
same "same seed, same sequence" "$(sql $T/r1.db "$q" | md5sum)" "$(sql $T/r2.db "$q" | md5sum)"
check "random, other seed" $TUNER run $SP --backend replay:$FX --db $T/r3.db --strategy random --budget-evals 10 --seed 8 -q
[ "$(sql $T/r1.db "$q" | md5sum)" != "$(sql $T/r3.db "$q" | md5sum)" ]; same "other seed, other sequence" "$?" "0"
check "db check clean" $TUNER db check --db $T/a.db
finish

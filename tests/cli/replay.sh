#!/usr/bin/env bash
# replay.sh: `tuner space` and `tuner run --backend replay:` over the synthetic fixture: every
# recorded config is stored, unrecorded ones are reported and never invented, the winners agree
# between the replayed database, the fixture, `tuner best`, the `best` view and the generated
# header, a second run resumes, and the random strategy honours its budget and seed. A dump of
# several cards of one GPU model replays as that model without naming a card (each problem from
# the card with the most evaluations of it, ties to the smaller uuid), #UUID still picks one card,
# a dump of several models needs #NAME or #UUID, and so does the committed two-card H100 dump
# not (compressed dumps, .sql.xz, replay like text ones).
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz
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
# ---- cards of one GPU model replay as that model ----
UA=GPU-00000000-0000-0000-0000-00000000f1c7   # the fixture's card
UB=GPU-00000000-0000-0000-0000-00000000f1c8   # a second card of the same model
$TUNER db export --db $FX | sed "s/$UA/$UB/g" > $T/card_b.sql
check "two cards of one model in one database" $TUNER db import $FX $T/card_b.sql --db $T/cards.db -q
# card B's times doubled (so the card that answered is visible); problem 1: card A loses a few
# evaluations (B has more of it), problem 2: B has none (A answers); the rest: a tie (A, the
# smaller uuid)
check "make the cards differ" python3 - $T/cards.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA foreign_keys=ON")
a, b = (c.execute("select id from devices where uuid=?", (u,)).fetchone()[0]
        for u in ("GPU-00000000-0000-0000-0000-00000000f1c7", "GPU-00000000-0000-0000-0000-00000000f1c8"))
c.execute("update evaluations set median_us = 2 * median_us where device_id = ?", (b,))
p1, p2 = [r[0] for r in c.execute("select id from problems order by op, dtype, shape limit 2")]
c.execute("delete from evaluations where id in (select id from evaluations where device_id = ?"
          " and problem_id = ? order by id limit 5)", (a, p1))
c.execute("delete from evaluations where device_id = ? and problem_id = ?", (b, p2))
c.commit()
PY
check "export them compressed" $TUNER db export --db $T/cards.db -o $T/cards.sql.xz
check "replay the two cards without naming one" $TUNER run $SP --backend replay:$T/cards.sql.xz --db $T/m.db -q
# what each problem should have been answered from, by the stated rule, in plain SQL
pick='with n as (select problem_id, device_id, count(*) k from evaluations group by 1, 2),
  pick as (select problem_id, (select n2.device_id from n n2 join devices d on d.id = n2.device_id
           where n2.problem_id = n.problem_id order by n2.k desc, d.uuid limit 1) dev
           from n group by problem_id)
  select p.op, p.dtype, p.shape, c.text, e.status, e.median_us from evaluations e
  join pick on pick.problem_id = e.problem_id and pick.dev = e.device_id
  join problems p on p.id = e.problem_id join configs c on c.id = e.config_id order by 1, 2, 3, 4'
got='select p.op, p.dtype, p.shape, c.text, e.status, e.median_us from evaluations e
  join problems p on p.id = e.problem_id join configs c on c.id = e.config_id order by 1, 2, 3, 4'
same "each problem answered by the card with the most of its evaluations, ties to the smaller uuid" \
     "$(sql $T/m.db "$got" | md5sum)" "$(sql $T/cards.db "$pick" | md5sum)"
first='select op || " " || dtype || " " || shape from problems order by op, dtype, shape limit 1'
p1=$(sql $T/cards.db "$first")
per_card="select d.uuid, count(*) from evaluations e join devices d on d.id = e.device_id
  join problems p on p.id = e.problem_id where p.op || ' ' || p.dtype || ' ' || p.shape = '$p1'
  group by 1 order by 1"
same "problem 1: card B recorded more of it" "$(sql $T/cards.db "$per_card" | cut -d'|' -f1 | tr '\n' ' ')" "$UA $UB "
same "problem 1 replayed from card B (its times doubled)" \
     "$(sql $T/m.db "select count(*) from evaluations e join problems p on p.id = e.problem_id
        where p.op || ' ' || p.dtype || ' ' || p.shape = '$p1'")" \
     "$(sql $T/cards.db "select count(*) from evaluations e join problems p on p.id = e.problem_id
        join devices d on d.id = e.device_id where d.uuid = '$UB'
        and p.op || ' ' || p.dtype || ' ' || p.shape = '$p1'")"
same "the run sees one device: the card with the most evaluations" \
     "$(sql $T/m.db 'select uuid from devices')" \
     "$(sql $T/cards.db 'select d.uuid from evaluations e join devices d on d.id = e.device_id
        group by d.id order by count(*) desc, d.uuid limit 1')"
check "replay:DUMP#UUID replays one card alone" $TUNER run $SP --backend "replay:$T/cards.sql.xz#$UB" --db $T/b1.db -q
same "only card B's evaluations" "$(sql $T/b1.db 'select median_us from evaluations order by 1' | md5sum)" \
     "$(sql $T/cards.db "select median_us from evaluations e join devices d on d.id = e.device_id where d.uuid = '$UB' order by 1" | md5sum)"
# two models in one dump: a choice is needed
$TUNER db export --db $FX | sed -e "s/$UA/GPU-00000000-0000-0000-0000-0000000000a8/g" \
    -e "s/'Synthetic GPU (test fixture, not a measurement)',9,0,/'Older synthetic GPU (test fixture)',8,0,/" \
    > $T/older.sql
check "a second model in the database" $TUNER db import $T/older.sql --db $T/cards.db -q
check "export two models" $TUNER db export --db $T/cards.db -o $T/models.sql.xz
check_fails "two models need a choice" 1 $TUNER run $SP --backend replay:$T/models.sql.xz --db $T/x.db -q
cp $T/.out $T/models.out
check "the error lists the models" grep -qF "holds 2 GPU models ('Older synthetic GPU (test fixture)' (cc 8.0, 100 SMs, 1 card), 'Synthetic GPU (test fixture, not a measurement)' (cc 9.0, 100 SMs, 2 cards)); pick one with replay:$T/models.sql.xz#NAME or a card with replay:$T/models.sql.xz#UUID" $T/models.out
check "#NAME picks the model" $TUNER run $SP --backend "replay:$T/models.sql.xz#Older synthetic GPU (test fixture)" --db $T/o.db -q
same "the older model's evaluations" "$(sql $T/o.db 'select count(*) from evaluations')" "$recorded"

# the committed dump of two H100 cards replays without naming one: spaces/atomic.yaml was
# measured on the card with fewer evaluations
H100=db/results/nvidia-h100-80gb-hbm3.sql.xz
if [ -e $H100 ]; then
    check "the committed H100 dump replays without naming a card" \
        $TUNER run spaces/atomic.yaml --backend replay:$H100 --db $T/h100.db
    cp $T/.out $T/h100.out
    check "atomic evaluations replayed" grep -qE '^tuner: [1-9][0-9]* evaluated' $T/h100.out
    check_fails "none of them unrecorded" 1 grep -q 'not recorded' $T/h100.out
fi
finish

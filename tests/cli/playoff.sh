#!/usr/bin/env bash
# playoff.sh: racing's summary and the playoff without a GPU (docs/time-to-tune.md), over the
# replay backend, which answers a playoff with each contender's recorded runs. A run plays off
# every problem with two or more configs within the margin (each playoff row holding its runs),
# picks the same winners as the recording, and says so in its summary; a rerun plays nothing
# again; --race 0 or measure.race 0 turns both off; dumps, imports and merges keep the
# playoffs; `tuner retime` compares two results side by side, once or --repeat N times, for
# --rounds (the replay reads its recorded runs alike each time). Bad margins, repeats and rounds
# are one-line errors.
source "$(dirname "$0")/lib.sh"
A=tests/fixtures/synthetic_elementwise.sql.xz
B=tests/fixtures/synthetic_elementwise_b.sql.xz
SP=tests/fixtures/elementwise_small.yaml
winners='select op, dtype, shape, config from best order by 1, 2, 3'
contended="with ok as (select device_id, problem_id, median_us from evaluations where status = 'ok'),
           fastest as (select device_id, problem_id, min(median_us) as us from ok group by 1, 2)
           select count(*) from fastest f where (select count(*) from ok where ok.device_id =
           f.device_id and ok.problem_id = f.problem_id and ok.median_us <= f.us * 1.05) >= 2"

check "a run with racing and playoffs" $TUNER run $SP --backend replay:$A --db $T/p.db
cp "$T/.out" $T/last
n=$(sql $T/p.db "$contended")
check "  every problem with two or more configs within 5% played off ($n)" \
    grep -q "^tuner: racing at 5%: 0 evaluations stopped early; $n playoffs (0 changed the winner)" $T/last
check "  some problems did" test "$n" -gt 0
same "  one playoff per such problem" "$(sql $T/p.db 'select count(distinct e.problem_id) from playoffs pl join evaluations e on e.id = pl.evaluation_id')" "$n"
same "  at most four contenders each" "$(sql $T/p.db 'select max(c) from (select count(*) c from playoffs pl join evaluations e on e.id = pl.evaluation_id group by e.problem_id)')" "4"
same "  each row holds its runs" "$(sql $T/p.db 'select count(*) from playoffs where json_array_length(samples) <> n_runs or n_runs < 1')" "0"
check "  db check clean" $TUNER db check --db $T/p.db -q
check "the same run without racing" $TUNER run $SP --backend replay:$A --db $T/off.db --race 0
cp "$T/.out" $T/last
check "  says nothing of racing" bash -c "! grep -q racing $T/last"
same "  no playoffs" "$(sql $T/off.db 'select count(*) from playoffs')" "0"
same "  replayed playoffs keep the recording's winners" "$(sql $T/p.db "$winners")" "$(sql $T/off.db "$winners")"
sed 's/^measure: {/measure: { race: 0,/' $SP > $T/norace.yaml
check "measure.race 0 in the space" $TUNER run $T/norace.yaml --backend replay:$A --db $T/norace.db -q
same "  no playoffs" "$(sql $T/norace.db 'select count(*) from playoffs')" "0"

before=$(sql $T/p.db 'select group_concat(created_at) from playoffs')
check "a rerun" $TUNER run $SP --backend replay:$A --db $T/p.db
cp "$T/.out" $T/last
check "  plays nothing again" grep -q "; 0 playoffs (0 changed the winner)" $T/last
same "  the playoffs stay as they were" "$(sql $T/p.db 'select group_concat(created_at) from playoffs')" "$before"

check "export" $TUNER db export --db $T/p.db -o $T/p.sql.xz
check "import into a new database" $TUNER db import $T/p.sql.xz --db $T/i.db -q
same "  the playoffs travel" "$(sql $T/i.db 'select count(*) from playoffs')" "$(sql $T/p.db 'select count(*) from playoffs')"
same "  and the winners" "$(sql $T/i.db "$winners")" "$(sql $T/p.db "$winners")"
check "merge into another" $TUNER db merge $T/p.db --db $T/m.db -q
same "  the playoffs travel" "$(sql $T/m.db 'select count(*) from playoffs')" "$(sql $T/p.db 'select count(*) from playoffs')"
check "  db check clean" $TUNER db check --db $T/m.db -q

check "B exhaustive" $TUNER run $SP --backend replay:$B --db $T/full.db -q
check "B from A's results" $TUNER run $SP --backend replay:$B --transfer-from $A --db $T/tr.db -q
check "retime the two side by side" $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B
cp "$T/.out" $T/last
check "  one line per problem" test "$(grep -c '^  elementwise\.' $T/last)" -eq 16
check "  a summary" grep -q "^tuner retime: 16 problems: [0-9]* same config, [0-9]* re-timed side by side, 0 failed, 0 without a winner in both; regret of a over b: median" $T/last
check "  every problem within 2%" grep -q "within 2%: 16 of 16" $T/last
check "  against itself: every config the same" $TUNER retime $SP --db $T/full.db --against $T/full.db --backend replay:$B
cp "$T/.out" $T/last
check "  regret 0" grep -q "16 problems: 16 same config, 0 re-timed side by side, 0 failed, 0 without a winner in both; regret of a over b: median 0.00%, p90 0.00%, max 0.00%; within 1%: 16 of 16" $T/last
check "  as CSV" $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --format csv
cp "$T/.out" $T/last
check "  with a header row" grep -q "^op,dtype,shape,config_a,config_b,a_us,b_us,regret$" $T/last
check "  and 16 rows" test "$(grep -c '^elementwise\.' $T/last)" -eq 16
$TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B > $T/once 2>&1
check "  --repeat 3" $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --repeat 3
cp "$T/.out" $T/last
timed=$(grep -c '  a: ' $T/once)
check "  some problems re-timed ($timed)" test "$timed" -gt 0
same "  three readings on every re-timed line" "$(grep -c '  a: .*  (3 readings: \([-+][0-9.]*%\) to \1)$' $T/last)" "$timed"
same "  the replay reads alike each time: the same regrets as one reading" "$(sed '1d; s/  (3 readings: .*)$//' $T/last)" "$(sed 1d $T/once)"
check "  --rounds 50" $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --rounds 50
same "  the replay's recorded runs whatever the rounds" "$(cat $T/.out)" "$(cat $T/once)"
check_fails "retime --rounds 4" 2 $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --rounds 4
check_fails "retime --rounds 100001" 2 $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --rounds 100001
check_fails "retime --repeat 0" 2 $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --repeat 0
check_fails "retime --repeat 21" 2 $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --repeat 21
check_fails "retime --repeat x" 2 $TUNER retime $SP --db $T/tr.db --against $T/full.db --backend replay:$B --repeat x
check "  against another model: nothing in common" $TUNER retime $SP --db $T/tr.db --against $T/p.db --backend replay:$B
cp "$T/.out" $T/last
check "  says so" grep -q "16 without a winner in both" $T/last

check_fails "--race 1.5" 2 $TUNER run $SP --backend replay:$A --db $T/bad.db --race 1.5
check_fails "--race x" 2 $TUNER run $SP --backend replay:$A --db $T/bad.db --race x
check "  nothing written" test ! -e $T/bad.db
check_fails "retime without --against" 2 $TUNER retime $SP --db $T/p.db
check_fails "retime of a missing database" 2 $TUNER retime $SP --db $T/none.db --against $T/p.db --backend replay:$A
check_fails "retime --format json" 2 $TUNER retime $SP --db $T/p.db --against $T/p.db --format json
finish

#!/usr/bin/env bash
# resume_kill.sh: SIGKILL `tuner run` at several moments and run it again: the space completes
# with no duplicate and no lost evaluation, and `tuner db check` is clean. The kill moments are
# fractions of a measured uninterrupted run, so some land mid-run on any machine speed.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql
SP=tests/fixtures/elementwise_small.yaml

t0=$(date +%s.%N)
check "uninterrupted run" $TUNER run $SP --backend replay:$FX --db $T/ref.db -q
t1=$(date +%s.%N)
full=$(sql $T/ref.db 'select count(*) from evaluations')
dur=$(python3 -c "print(float('$t1') - float('$t0'))")
partial=0
for frac in 0.35 0.5 0.6 0.7 0.8 0.9; do
    $TUNER run $SP --backend replay:$FX --db $T/k.db -q >/dev/null 2>&1 &
    pid=$!
    sleep "$(python3 -c "print($dur * $frac)")"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    n=$(sql $T/k.db 'select count(*) from evaluations' 2>/dev/null || echo 0)
    [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$full" ] && partial=$((partial + 1))
done
[ "$partial" -gt 0 ]; same "at least one kill landed mid-run" "$?" "0"
check "run again after the kills" $TUNER run $SP --backend replay:$FX --db $T/k.db -q
same "complete: as many evaluations as an uninterrupted run" "$(sql $T/k.db 'select count(*) from evaluations')" "$full"
same "no duplicate natural key" "$(sql $T/k.db 'select count(*) from (select 1 from evaluations group by device_id, problem_id, config_id, kernel_hash having count(*) > 1)')" "0"
same "every ok evaluation has its samples" \
     "$(sql $T/k.db "select count(*) from evaluations e where status='ok' and n_runs <> (select count(*) from samples s where s.evaluation_id = e.id)")" "0"
q='select op, dtype, shape, config, median_us from best order by op, dtype, shape'
same "same winners as the uninterrupted run" "$(sql $T/k.db "$q")" "$(sql $T/ref.db "$q")"
check "db check clean" $TUNER db check --db $T/k.db
finish

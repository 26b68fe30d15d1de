#!/usr/bin/env bash
# scale.sh: several devices and shards without a GPU (docs/scaling.md), over the replay backend.
# Three copies of the recorded device share one model's problems and store what one device
# would; a device that fails mid-run (the test hook TUNEKIT_TEST_FAIL_DEVICE) gives its problem
# back and the others finish it, nothing lost or doubled, also when they had nothing else left; a model whose every device fails stops
# the run; two models each tune every problem. Shards 1..N, for several N including more shards
# than problems, exported and merged, give the rows, the winners and the header of one run.
# Merging reports conflicts by its rule (the rows already there stay).
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz
SP=tests/fixtures/elementwise_small.yaml
rows='select d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash, e.status, e.median_us, e.n_runs
      from evaluations e join devices d on d.id = e.device_id join problems p on p.id = e.problem_id
      join configs c on c.id = e.config_id order by 1, 2, 3, 4, 5'
winners='select device_uuid, op, dtype, shape, config from best order by 1, 2, 3, 4'

check "one device" $TUNER run $SP --backend replay:$FX --db $T/one.db -q
want_rows=$(sql $T/one.db "$rows")
want_winners=$(sql $T/one.db "$winners")
n_rows=$(sql $T/one.db 'select count(*) from evaluations')
n_tasks=$(sql $T/one.db 'select count(*) from problems')

check "three devices of one model" $TUNER run $SP --backend replay:$FX --devices 0,1,2 --db $T/three.db
grep -q "device 2 (replay:" $T/.out; same "each device reports its share" "$?" "0"
same "three devices store what one does" "$(sql $T/three.db "$rows")" "$want_rows"
same "one run per device" "$(sql $T/three.db 'select count(*) from runs')" "3"
shares=$(grep '^tuner: device [0-9] (replay:' $T/.out | grep -o '): [0-9]* evaluated' | awk '{s += $2} END {print s}')
same "the shares add up to every evaluation" "$shares" "$n_rows"

TUNEKIT_TEST_FAIL_DEVICE=1:3 check "a device fails after 3 evaluations" \
    $TUNER run $SP --backend replay:$FX --devices 0,1,2 --db $T/fail.db
grep -q "device 1 (replay:.*) failed: simulated failure after 3 evaluations" $T/.out
same "the failure is reported" "$?" "0"
same "its problem was re-queued: nothing lost" "$(sql $T/fail.db 'select count(*) from evaluations')" "$n_rows"
same "nothing doubled, the same winners" "$(sql $T/fail.db "$winners")" "$want_winners"
# the device fails only once the others have nothing left to do: they wait for the task it is
# tuning rather than stop, and take it when it comes back
TUNEKIT_TEST_FAIL_DEVICE=1:3:last check "a device fails when every other task is done" \
    $TUNER run $SP --backend replay:$FX --devices 0,1,2 --db $T/late.db
same "  its problem was re-queued: nothing lost" "$(sql $T/late.db 'select count(*) from evaluations')" "$n_rows"
same "  nothing doubled, the same winners" "$(sql $T/late.db "$winners")" "$want_winners"
TUNEKIT_TEST_FAIL_DEVICE=0:2 check_fails "the only device of a model fails" 1 \
    $TUNER run $SP --backend replay:$FX --db $T/dead.db
grep -q "simulated failure after 2 evaluations" $T/.out; same "says why" "$?" "0"
check "the same command resumes it" $TUNER run $SP --backend replay:$FX --db $T/dead.db -q
same "and completes it" "$(sql $T/dead.db "$rows")" "$want_rows"

# two models: a second synthetic device (another name and uuid) replayed beside the first
$TUNER db export --db $FX |
    sed -e 's/Synthetic GPU (test fixture, not a measurement)/Other synthetic GPU (test fixture, not a measurement)/' \
        -e 's/GPU-00000000-0000-0000-0000-00000000f1c7/GPU-00000000-0000-0000-0000-00000000f2c7/g' > $T/other.sql
check "two models" $TUNER run $SP --backend replay:$FX --backend replay:$T/other.sql --db $T/two.db -q
same "each model tunes every problem" \
    "$(sql $T/two.db 'select count(*) from evaluations e join devices d on d.id = e.device_id group by d.name order by 1')" \
    "$(printf '%s\n%s' "$n_rows" "$n_rows")"

# shards merged equal one run, for several N (the last more shards than problems)
for N in 1 2 3 $((n_tasks + 3)); do
    rm -f $T/merged.db
    total=0
    for K in $(seq 1 $N); do
        $TUNER run $SP --backend replay:$FX --shard $K/$N --db $T/s$K.db -q >/dev/null 2>&1 || echo "shard $K/$N failed"
        t=$(sql $T/s$K.db 'select count(*) from problems' 2>/dev/null)
        total=$((total + ${t:-0}))
        $TUNER db export --db $T/s$K.db -o $T/s$K.sql
    done
    same "$N shards take every problem once" "$total" "$n_tasks"
    check "merge $N shard dumps" $TUNER db merge $T/s*.sql --db $T/merged.db -q
    same "$N shards: the rows of one run" "$(sql $T/merged.db "$rows")" "$want_rows"
    same "$N shards: the winners of one run" "$(sql $T/merged.db "$winners")" "$want_winners"
    $TUNER db export --db $T/merged.db -o $T/merged.sql
    $TUNER db export --db $T/one.db -o $T/one.sql
    $TUNER header -o $T/h_merged.h $T/merged.sql -q
    $TUNER header -o $T/h_one.h $T/one.sql -q
    same "$N shards: the header of one run" "$(sed 1d $T/h_merged.h)" "$(sed 1d $T/h_one.h)"
    rm -f $T/s*.db $T/s*.sql
done
check_fails "a bad shard" 2 $TUNER run $SP --backend replay:$FX --shard 4/3 --db $T/x.db
check_fails "a bad device list" 2 $TUNER run $SP --backend replay:$FX --devices 0,0 --db $T/x.db
[ ! -e $T/x.db ]; same "nothing written for either" "$?" "0"

# merge conflicts: the same evaluations measured again with other results
check "merge again: no conflict" $TUNER db merge $T/one.db --db $T/merged.db -q
python3 - "$T/one.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("update evaluations set median_us = median_us * 2, created_at = '2030-01-01T00:00:00.000Z' where status = 'ok'"); c.commit()
PY
ok=$(sql $T/one.db "select count(*) from evaluations where status = 'ok'")
check "merge the changed database" $TUNER db merge $T/one.db --db $T/merged.db
grep -q "tuner db merge: $T/one.db: $ok evaluations measured again with other results; kept as $T/merged.db had them (first: GPU-" $T/.out
same "the conflicts are reported with the rule" "$?" "0"
same "and the rows already there stay" "$(sql $T/merged.db "$rows")" "$want_rows"

# the Slurm templates, run as an array of 3 with the replay backend, then merged
mkdir -p $T/res
for K in 1 2 3; do
    SLURM_ARRAY_TASK_ID=$K SLURM_ARRAY_TASK_COUNT=3 OUT=$T/slurm TUNE_ARGS="--backend replay:$FX -q" \
        bash templates/slurm/tune-array.sbatch $SP >/dev/null 2>&1 || echo "array task $K failed"
done
OUT=$T/slurm RESULTS=$T/res HEADER=$T/h_slurm.h MODEL=synthetic \
    check "the Slurm merge step" bash templates/slurm/tune-merge.sbatch
$TUNER header -o $T/h_one.h $T/one.sql -q
same "the Slurm array gives the header of one run" "$(sed 1d $T/h_slurm.h)" "$(sed 1d $T/h_one.h)"
finish

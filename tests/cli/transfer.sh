#!/usr/bin/env bash
# transfer.sh: the transfer search (docs/time-to-tune.md) without a GPU. Synthetic GPU B (the
# replay backend) is tuned starting from Synthetic GPU A's results (--transfer-from): every
# problem says how much of the space it searched and why it stopped, far fewer configs are
# measured than exhaustively, and each problem's winner is within 2% of the exhaustive best of
# the same recording. A second run into the same database measures nothing again. Asking for a
# transfer from the GPU being tuned, from a missing dump, or together with another strategy is a
# one-line error, and no database is written. `tuner strategies --transfer-from` replays it.
source "$(dirname "$0")/lib.sh"
A=tests/fixtures/synthetic_elementwise.sql.xz
B=tests/fixtures/synthetic_elementwise_b.sql.xz
SP=tests/fixtures/elementwise_small.yaml
best='select p.op, p.dtype, p.shape, min(e.median_us) from evaluations e
      join problems p on p.id = e.problem_id where e.status = '"'ok'"' group by 1, 2, 3 order by 1, 2, 3'

check "exhaustive run of B" $TUNER run $SP --backend replay:$B --db $T/full.db -q
check "transfer run of B from A" $TUNER run $SP --backend replay:$B --transfer-from $A --db $T/tr.db
cp "$T/.out" $T/tr.out
n_tasks=$(sql $T/full.db 'select count(*) from problems')
same "one transfer line per problem" "$(grep -c '^    transfer: [0-9]* of [0-9]* configs' $T/tr.out)" "$n_tasks"
same "every problem says why it stopped" "$(grep -c '^    transfer: .*; converged: ' $T/tr.out)" "$n_tasks"
check "the summary names the source" grep -q "transfer searched [0-9]* of 2240 configs .*starting from the winners in $A" $T/tr.out
full=$(sql $T/full.db 'select count(*) from evaluations')
tr=$(sql $T/tr.db 'select count(*) from evaluations')
check "under a fifth of the exhaustive evaluations ($tr of $full)" test $((tr * 5)) -lt "$full"
regret=$(python3 - "$T/full.db" "$T/tr.db" "$best" <<'EOF'
import sqlite3, sys
full = {r[:3]: r[3] for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[3])}
tr = {r[:3]: r[3] for r in sqlite3.connect(sys.argv[2]).execute(sys.argv[3])}
bad = [f"{k}: {tr.get(k)} vs {v}" for k, v in full.items() if k not in tr or tr[k] > v * 1.02]
print("; ".join(bad) if bad else "ok")
EOF
)
same "each winner within 2% of the exhaustive best" "$regret" "ok"
check "exhaustive run of A" $TUNER run $SP --backend replay:$A --db $T/a.db -q
first='select p.op, p.dtype, p.shape, c.text from evaluations e join problems p on p.id = e.problem_id
       join configs c on c.id = e.config_id where e.seq = (select min(seq) from evaluations f
       where f.problem_id = e.problem_id) order by 1, 2, 3'
winners='select op, dtype, shape, config from best order by 1, 2, 3'
same "each problem starts from A's winner" "$(sql $T/tr.db "$first")" "$(sql $T/a.db "$winners")"
check "resume: a second run" $TUNER run $SP --backend replay:$B --transfer-from $A --db $T/tr.db
cp "$T/.out" $T/last
check "  measures nothing again" grep -q "^tuner: 0 evaluated (none), $tr already in" $T/last
same "  and stores nothing new" "$(sql $T/tr.db 'select count(*) from evaluations')" "$tr"
check "--strategy transfer with --transfer-from" $TUNER run $SP --backend replay:$B --strategy transfer \
    --transfer-from $A --db $T/asked.db -q
same "  stores what the default does" "$(sql $T/asked.db "$best")" "$(sql $T/tr.db "$best")"

check_fails "transfer from the GPU being tuned" 2 \
    $TUNER run $SP --backend replay:$B --transfer-from $B --db $T/self.db
cp "$T/.out" $T/last
check "  says there is nothing to start from" grep -q "^--transfer-from: no other GPU's results of elementwise" $T/last
check_fails "transfer from a missing dump" 2 \
    $TUNER run $SP --backend replay:$B --transfer-from $T/missing.sql --db $T/missing.db
cp "$T/.out" $T/last
check "  names it" grep -q "missing.sql" $T/last
check_fails "--transfer-from with another strategy" 2 \
    $TUNER run $SP --backend replay:$B --transfer-from $A --strategy random --db $T/random.db
cp "$T/.out" $T/last
check "  says which to drop" grep -q "^--transfer-from starts the transfer search, which --strategy replaces" $T/last
check_fails "--transfer-from with a budget" 2 \
    $TUNER run $SP --backend replay:$B --transfer-from $A --budget-evals 50 --db $T/budget.db
check "no database written by a refused run" test ! -e $T/self.db -a ! -e $T/missing.db -a ! -e $T/random.db -a ! -e $T/budget.db

check "tuner strategies --transfer-from" $TUNER strategies $SP --replay $B --transfer-from $A --seeds 3
cp "$T/.out" $T/last
check "  reports evaluations per problem" grep -q "^  evaluations per problem: median [0-9]*" $T/last
check "  and every problem within 2% in every seed" grep -q "within 2%: 16 of 16" $T/last
finish

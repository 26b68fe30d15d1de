#!/usr/bin/env bash
# batch_starts.sh: scripts/batch_starts.py finds the samples that opened a batch by the sampling
# plan's rule (with racing: runs 0-4, 5-9, then batches of at least 2) and compares them with the
# others. A database made from the synthetic fixture, cut to one evaluation whose batch-opening
# samples are planted at twice the others, must come out exactly so; bad input is one line.
source "$(dirname "$0")/lib.sh"
BS="python3 scripts/batch_starts.py"
check "import the synthetic fixture" $TUNER db import tests/fixtures/synthetic_elementwise.sql.xz --db $T/b.db
python3 - "$T/b.db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
eid = con.execute("SELECT id FROM evaluations WHERE status = 'ok' ORDER BY id LIMIT 1").fetchone()[0]
con.execute("DELETE FROM playoffs")
con.execute("DELETE FROM evaluations WHERE id <> ?", (eid,))
con.execute("DELETE FROM samples")
# 16 runs: batches open at 0, 5, 10, 12, 14 (racing: 5, then 5 to min_runs 10, then at least 2)
for i in range(16):
    con.execute("INSERT INTO samples(evaluation_id, idx, us) VALUES (?, ?, ?)",
                (eid, i, 20.0 if i in (0, 5, 10, 12, 14) else 10.0))
con.execute("UPDATE evaluations SET n_runs = 16, median_us = 10.0 WHERE id = ?", (eid,))
con.commit()
PY
out=$($BS $T/b.db 2>&1)
same "five opening runs at twice the median, eleven others at it, the first at twice" \
    "$(echo "$out" | awk '$1 == "elementwise" {print $2, $3, $4, $5, $6, $7, $8, $9}')" \
    "5 2.0000 2.0000 10.000 11 1.0000 1.0000 2.0000"
out=$($BS $T/b.db 10 --no-race 2>&1)
same "without racing the first batch is min_runs: openings 0, 10, 12, 14" \
    "$(echo "$out" | awk '$1 == "elementwise" {print $2, $6}')" "4 12"
check_fails "no database given" 1 $BS
check_fails "a database that is not there" 1 $BS $T/none.db
same "says so in one line" "$($BS $T/none.db 2>&1 | wc -l)" 1
printf 'not sqlite' > $T/bad.db
check_fails "a file that is not a tuner database" 1 $BS $T/bad.db
same "says so in one line" "$($BS $T/bad.db 2>&1 | wc -l)" 1
check_fails "MIN_RUNS that is not a number" 1 $BS $T/b.db ten
check_fails "no evaluation with enough runs" 1 $BS $T/b.db 20
finish

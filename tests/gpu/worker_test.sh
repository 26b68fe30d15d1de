#!/usr/bin/env bash
# worker_test.sh: the worker's failure handling on a real GPU (run by tests/gpu/run.sh). Tunes
# tests/gpu/selftest.yaml, whose variants misbehave on purpose, into a fresh database, then checks
# with python3's sqlite3 module that the run exited 0 and finished, that every behaviour got its
# status (correct -> ok, wrong -> invalid, oob -> fault, hang -> timeout, abort -> fault,
# unsupported -> unsupported) with a telling error text, that ok rows carry their samples, and
# that ok rows were measured after the faults (a bad variant costs one row, never the run), and
# that the summary reports the workers' problem set-up times, and that TK_WORKER_PROFILE gets the
# workers' profile lines.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
out=$(TK_WORKER_PROFILE="$tmp/profile.txt" build/tuner run tests/gpu/selftest.yaml --db "$tmp/x.db" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "worker_test: FAIL: tuner run exited $rc"
    printf '%s\n' "$out" | tail -n 30 | sed 's/^/    /'
fi
# the workers' problem set-up times reach the summary (a worker restarted after a fault prepares
# its problem again, so the count is at least the number of problems)
if printf '%s\n' "$out" | grep -Eq '^tuner: set-up: [0-9]+ problems? prepared by the workers .*median [0-9.]+ ms, max [0-9.]+ ms$'; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "worker_test: FAIL: no 'tuner: set-up:' line in the run's summary"
fi

# every worker that exited on its own (the ones restarted after a fault or a hang did not) wrote
# its profile line, with every phase
if grep -Eq '^worker cuda:[0-9]+: time: [0-9.]+ s over [0-9]+ evaluations and [0-9]+ playoffs \([0-9]+ batches, [0-9]+ timed runs\): .* waiting for the parent, .* waiting for batches, .* writing answers$' "$tmp/profile.txt" 2>/dev/null; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "worker_test: FAIL: TK_WORKER_PROFILE wrote no profile line: $(head -c 300 "$tmp/profile.txt" 2>&1)"
fi

counts=$(python3 - "$tmp/x.db" <<'PY'
import sqlite3, sys

passed = failed = 0
def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("worker_test: FAIL: " + what)

try:
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    rows = db.execute("""
        SELECT c.text, e.status, COALESCE(e.error, ''), e.n_runs, e.seq, e.median_us,
               (SELECT COUNT(*) FROM samples s WHERE s.evaluation_id = e.id)
        FROM evaluations e JOIN configs c ON c.id = e.config_id ORDER BY e.seq""").fetchall()
    runs = db.execute("SELECT finished_at, copy_gbps FROM runs").fetchall()
    devices = db.execute("SELECT uuid, name FROM devices").fetchall()
except Exception as ex:   # no database: the run failed before writing it
    print("worker_test: FAIL: cannot read the database: %s" % ex)
    print("0 1")
    sys.exit(0)

expected = {"correct": "ok", "wrong": "invalid", "oob": "fault", "hang": "timeout",
            "abort": "fault", "unsupported": "unsupported"}
error_has = {"wrong": "differ", "oob": "ddress", "hang": "watchdog", "abort": "signal 6",
             "unsupported": "unsupported"}
check(len(devices) == 1 and devices[0][0].startswith("GPU-"), "one device with a GPU- uuid: %r" % devices)
check(len(runs) == 1 and runs[0][0] is not None, "the run finished: %r" % runs)
check(len(runs) == 1 and (runs[0][1] or 0) > 0, "the run has a copy bandwidth: %r" % runs)
check(len(rows) == 18, "18 evaluations (3 block sizes x 6 behaviours), got %d" % len(rows))

def behaviour(config):
    return dict(kv.split("=", 1) for kv in config.split(","))["behaviour"]

for b, want in sorted(expected.items()):
    mine = [r for r in rows if behaviour(r[0]) == b]
    check(len(mine) == 3, "%s: 3 rows, got %d" % (b, len(mine)))
    for config, status, error, n_runs, seq, median, n_samples in mine:
        check(status == want, "%s: status %s, expected %s (%s)" % (config, status, want, error))
        if b in error_has:
            check(error_has[b] in error, "%s: error text mentions %r: %r" % (config, error_has[b], error))
        if want == "ok":
            check(3 <= n_runs <= 5 and n_samples == n_runs and median > 0,
                  "%s: 3..5 timed runs with their samples (n_runs %s, samples %s, median %s)"
                  % (config, n_runs, n_samples, median))
        else:
            check(n_samples == 0, "%s: a %s row has no samples" % (config, status))

bad_seqs = [r[4] for r in rows if r[1] in ("fault", "timeout")]
ok_seqs = [r[4] for r in rows if r[1] == "ok"]
check(bad_seqs and ok_seqs and max(ok_seqs) > min(bad_seqs),
      "ok rows were measured after a fault or timeout (ok %r, faults %r)" % (ok_seqs, bad_seqs))
print("%d %d" % (passed, failed))
PY
)
printf '%s\n' "$counts" | grep -v '^[0-9]* [0-9]*$'
last=$(printf '%s\n' "$counts" | tail -n 1)
if [[ "$last" =~ ^([0-9]+)\ ([0-9]+)$ ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
else
    echo "worker_test: FAIL: the database check did not finish"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# resume_kill.sh: SIGKILL `tuner run` at several moments, each on a fresh database, then run it
# again: every database completes the space with no duplicate and no lost evaluation, the same
# winners as an uninterrupted run, and `tuner db check` clean. The kill moments are fractions of
# the uninterrupted run's evaluations, the database polled until it holds them, so they land
# mid-run on any machine speed. Then the same
# with three devices sharing the work (--devices: a thread and a database connection each).
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz
SP=tests/fixtures/elementwise_small.yaml

check "uninterrupted run" $TUNER run $SP --backend replay:$FX --db $T/ref.db -q
full=$(sql $T/ref.db 'select count(*) from evaluations')
q='select op, dtype, shape, config, median_us from best order by op, dtype, shape'
want=$(sql $T/ref.db "$q")
# run_and_kill DB N SECONDS ARGS...: runs `tuner run ARGS... --db DB -q` from a poller that is
# already up (Python's start, up to 0.35 s on some machines, would otherwise let a fast replay
# finish first) and SIGKILLs it once DB holds N evaluations (polled every 2 ms), or after four
# times SECONDS whatever it holds; so a kill lands mid-run however fast or busy the machine is.
run_and_kill() {
    python3 - "$TUNER" "$@" <<'EOF'
import signal, sqlite3, subprocess, sys, time
tuner, db, n, dur = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
p = subprocess.Popen([tuner, "run", *sys.argv[5:], "--db", db, "-q"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
end = time.time() + max(dur, 1.0) * 4
while time.time() < end and p.poll() is None:
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
        got = c.execute("select count(*) from evaluations").fetchone()[0]
        c.close()
    except sqlite3.Error:
        got = 0
    if got >= n:
        break
    time.sleep(0.002)
if p.poll() is None:
    p.send_signal(signal.SIGKILL)
p.wait()
EOF
}
kill_and_resume() {   # LABEL FRACTIONS ARGS...
    local label=$1 fracs=$2; shift 2
    local partial=0 complete=0 clean=0 same_winners=0 no_dups=0 tries=0 db n t0 t1 dur
    t0=$(date +%s.%N)
    $TUNER run $SP --backend replay:$FX "$@" --db $T/$label-warm.db -q
    t1=$(date +%s.%N)
    dur=$(python3 -c "print(float('$t1') - float('$t0'))")
    for frac in $fracs; do
        tries=$((tries + 1))
        db=$T/$label$tries.db
        run_and_kill "$db" "$(python3 -c "print(int($full * $frac))")" "$dur" \
            $SP --backend replay:$FX "$@"
        n=$(sql $db 'select count(*) from evaluations' 2>/dev/null)
        [ -n "$n" ] && [ "$n" -lt "$full" ] && partial=$((partial + 1))
        $TUNER run $SP --backend replay:$FX "$@" --db $db -q >/dev/null 2>&1
        [ "$(sql $db 'select count(*) from evaluations')" = "$full" ] && complete=$((complete + 1))
        [ "$(sql $db 'select count(*) from (select 1 from evaluations group by device_id, problem_id, config_id, kernel_hash having count(*) > 1)')" = 0 ] &&
          [ "$(sql $db "select count(*) from evaluations e where status='ok' and n_runs <> (select count(*) from samples s where s.evaluation_id = e.id)")" = 0 ] &&
          no_dups=$((no_dups + 1))
        [ "$(sql $db "$q")" = "$want" ] && same_winners=$((same_winners + 1))
        $TUNER db check --db $db -q >/dev/null 2>&1 && clean=$((clean + 1))
    done
    local least=$(( tries >= 10 ? 3 : 2 ))
    [ "$partial" -ge "$least" ]; same "$label: at least $least of $tries kills landed mid-run (got $partial)" "$?" "0"
    same "$label: every killed run completes after a rerun" "$complete" "$tries"
    same "$label: no duplicate, every ok evaluation has its samples" "$no_dups" "$tries"
    same "$label: same winners as the uninterrupted run" "$same_winners" "$tries"
    same "$label: db check clean" "$clean" "$tries"
}
kill_and_resume one "0.05 0.1 0.15 0.2 0.25 0.3 0.35 0.4 0.45 0.5 0.55 0.6 0.65 0.7 0.75 0.8 0.85 0.9"
kill_and_resume devices "0.05 0.1 0.2 0.3 0.4 0.5 0.6 0.7" --devices 0,1,2
finish

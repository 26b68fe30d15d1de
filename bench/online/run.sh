#!/usr/bin/env bash
# run.sh: measures tuning at run time (bench/online/README.md) on this machine's GPU, made one
# the table does not know: the softmax example program (app.c) with the table's entries of this
# GPU removed. Usage: bench/online/run.sh WORK [ROWS COLS SHORT LONG]. Needs build/tuner (or
# $TUNER) and build/libtunekit.a.
#  1. the program without tuning (the table's nearest config), SHORT launches, 3 times;
#  2. the same with TUNEKIT_TUNE=1 into a fresh tune folder each time: the extra wall time;
#  3. LONG launches with tuning on: the tuner ends while the program runs, which then switches;
#  4. the program again: the winner from the tune folder, no tuner;
#  5. the captured problem tuned offline, exhaustively, and the two winners re-timed side by
#     side (tuner retime, 500 rounds, 3 readings).
set -u
W=$1; ROWS=${2:-8192}; COLS=${3:-4096}; SHORT=${4:-20000}; LONG=${5:-200000}
cd "$(dirname "$0")/../.."
T=${TUNER:-build/tuner}
T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
export TUNEKIT_TUNER=$T TUNEKIT_CACHE=$W/cache
unset TUNEKIT_TUNE TUNEKIT_TUNE_DIR
mkdir -p $W
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
log() { echo "== $* ($(date +%T))"; }
now() { date +%s.%N; }
$T header --space examples/softmax/softmax.yaml -o $W/softmax_tuned.h || exit 1
grep -o '{ "[^"]*", [0-9]*, [0-9]*, [0-9]*, "f32"' $W/softmax_tuned.h | sort | uniq -c
cc -std=c11 -O2 -I$W -Ikernels -I$CUDA_HOME/include bench/online/app.c build/libtunekit.a \
   -L$CUDA_HOME/lib64 -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt -o $W/app || exit 1
run() {   # LABEL ENV...: the program, timed from outside
    local label=$1; shift
    local s=$(now)
    env "$@" $W/app $ROWS $COLS $N unknown
    local rc=$?
    echo "wall $label $(python3 -c "print(f'{$(now) - $s:.3f}')") s, exit $rc"
}
wait_tuner() {   # FOLDER: until the tuner started there has ended (it holds tune.lock)
    local c=$1/softmax.softmax/f32-rows=$ROWS-cols=$COLS s=$(now)
    python3 -c 'import fcntl,sys; f=open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX)' $c/tune.lock
    echo "tuner: ended $(python3 -c "print(f'{$(now) - $s:.1f}')") s after the program"
    tail -n 4 $c/tune.log
}
N=50; log "warm the cache: the nearest config"; run warm TUNEKIT_TUNE=0
N=$SHORT
for r in 1 2 3; do
    log "short, no tuning ($r)"; run "off $r" TUNEKIT_TUNE=0
    log "short, tuning ($r)"; run "on $r" TUNEKIT_TUNE=1 TUNEKIT_TUNE_DIR=$W/tune$r
    wait_tuner $W/tune$r
done
N=$LONG
log "long, no tuning"; run "long off" TUNEKIT_TUNE=0
log "long, tuning"; run "long on" TUNEKIT_TUNE=1 TUNEKIT_TUNE_DIR=$W/tunelong
wait_tuner $W/tunelong
N=$SHORT
log "again, the winner tuned before"; run "after" TUNEKIT_TUNE=1 TUNEKIT_TUNE_DIR=$W/tune1
C=$W/tune1/softmax.softmax/f32-rows=$ROWS-cols=$COLS
cat $C/space.yaml | grep -v '^ *#'
# the same problem without the run-time search: exhaustive, offline
python3 - $C/space.yaml $W/offline.yaml <<'PY'
import sys
out, skip = [], False
for line in open(sys.argv[1]):
    if line.startswith("search:"):
        skip = True
        continue
    if skip and line.startswith(" "):
        continue
    skip = False
    out.append(line.replace("file: ", "file: " + sys.argv[1].rsplit("/", 1)[0] + "/"))
open(sys.argv[2], "w").write("".join(out))
PY
log "offline, exhaustive"
$T run $W/offline.yaml --strategy exhaustive --db $W/offline.db -q 2>&1 | tail -n 3
for r in 1 2 3 long; do
    log "the winners: online ($r), offline"
    d=$W/tune$r/results.db; [ $r = long ] && d=$W/tunelong/results.db
    python3 -c 'import sqlite3,sys
for p in sys.argv[1:]:
    c=sqlite3.connect(p)
    print(p.split("/")[-2], c.execute("select config, median_us from best").fetchone(),
          "measured", c.execute("select count(*) from evaluations").fetchone()[0], "configs",
          dict(c.execute("select status, count(*) from evaluations group by status")))' $d $W/offline.db
    $T retime $W/offline.yaml --db $d --against $W/offline.db --repeat 3
done
log done

#!/usr/bin/env bash
# run.sh: the energy measurements of docs/energy.md on this machine's GPU. Usage:
# bench/energy/run.sh WORK. Needs build/tuner (or $TUNER), PyTorch (a busy GPU for the counter
# probe) and a C compiler.
#  1. bench/energy/counter.c: how often the board's energy counter moves, idle and busy;
#  2. bench/energy/elementwise.yaml (mul, f32 and f16, 32 Mi and 256 Mi elements), every config
#     measured whole with its energy, objective energy: the energy winner against the time
#     winner per problem (tuner best --objective, both);
#  3. repeatability: the f32 problems' configs measured again into a second database, energy
#     compared config by config;
#  4. the softmax example (f32 8192 x 4096, every config) with objective energy.
set -u
W=$1
cd "$(dirname "$0")/../.."
T=${TUNER:-build/tuner}
mkdir -p $W
log() { echo "== $* ($(date +%T), ${SECONDS}s)"; }
cc -std=c11 -O2 bench/energy/counter.c -ldl -o $W/counter || exit 1
log "the counter, idle"; $W/counter 2
log "the counter, busy (a PyTorch matmul loop)"
python3 -c 'import torch,time
a=torch.randn(8192,8192,device="cuda"); t=time.time()
while time.time()-t<4: b=a@a
torch.cuda.synchronize()' &
sleep 1; $W/counter 2; wait
log "elementwise, objective energy"
$T run bench/energy/elementwise.yaml --db $W/e1.db 2>&1 | tail -n 12
for o in time energy edp; do $T best --db $W/e1.db --objective $o; done
log "repeatability: f32 again"
sed -e 's/dtypes: \[f32, f16\]/dtypes: [f32]/' bench/energy/elementwise.yaml > $W/f32.yaml
$T run $W/f32.yaml --db $W/e2.db 2>&1 | tail -n 6
python3 - $W/e1.db $W/e2.db <<'PY'
import sqlite3, sys, statistics
def rows(p):
    c = sqlite3.connect(p)
    return {(s, cfg): (j, us) for s, cfg, j, us in c.execute(
        "select p.shape, c.text, e.energy_j, e.median_us from evaluations e join problems p on p.id = e.problem_id "
        "join configs c on c.id = e.config_id where e.status = 'ok' and e.energy_j is not null and p.dtype = 'f32'")}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
for lo, hi in ((100, 1e9), (30, 100), (10, 30), (0, 10)):
    d = [abs(b[k][0] / a[k][0] - 1) for k in a if k in b and lo <= a[k][1] < hi]
    if d:
        d.sort()
        print(f"repeat: configs of {lo:g}-{hi:g} us: {len(d)}, |energy change| median {100*statistics.median(d):.2f}%, "
              f"p90 {100*d[int(0.9*(len(d)-1))]:.2f}%, max {100*d[-1]:.2f}%, within 5%: {sum(x <= 0.05 for x in d)}")
PY
log "softmax f32 8192 x 4096, objective energy"
cat > $W/softmax.yaml <<YAML
base: "$(pwd)/examples/softmax/softmax.yaml"
dtypes: [f32]
problems:
  - { rows: 8192, cols: 4096 }
search: { strategy: exhaustive, objective: energy }
measure: { warmup: 2, min_runs: 10, max_runs: 100, rel_ci: 0.01, cache: cold, timeout: 10, max_seconds: 1, race: 0, energy: 0.1, energy_top: all }
YAML
$T run $W/softmax.yaml --db $W/s1.db 2>&1 | tail -n 6
for o in time energy edp; do $T best --db $W/s1.db --objective $o; done
$T db export --db $W/e1.db -o $W/elementwise-energy.sql.xz
$T db export --db $W/s1.db -o $W/softmax-energy.sql.xz
log done

#!/usr/bin/env bash
# device_settings.sh: the GPU's clocks and power limit as parameters (docs/energy.md, "Clocks and
# power limit") without a GPU: a user kernel's space lists gpu_clock_mhz, mem_clock_mhz or
# power_limit_w like any parameter (enumerated, in the config text), not as -D options; bad values
# are file:line:col errors, and a built-in family refuses them; a state file left by a killed run
# is restored by the next `tuner run`, through the fake NVML (tests/fixtures/fake_nvml.c, built
# beside the unit tests), said once on stderr and removed, and a run stops when it cannot be; the
# header takes its winners among the rows measured at the driver's settings while `tuner best`
# shows the settings in the config. Setting and refusing (unsupported with the reason) are
# tests/unit/test_device_settings.c's.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/energy_vector.sql.xz
FAKE=$(dirname "$TUNER")/tests/libfake_nvml.so
check "the fake NVML is built (make unit)" test -f "$FAKE"
export FAKE_NVML_LOG=$T/nvml.log
# said DESCRIPTION PATTERN: the last command's output (check's $T/.out) holds it
said() {
    cp $T/.out $T/said.out
    check "$1" grep -q -- "$2" $T/said.out
}

# ---- the space ----
cat > $T/dev.yaml <<EOF
base: "$(pwd)/examples/vector/saxpy.yaml"
params:
  power_limit_w: { values: [0, 250] }
  gpu_clock_mhz: { range: [0, 1800, 900] }
  block_size: { pow2: [64, 1024] }
  items: { values: [1, 2, 4, 8] }
EOF
check "a user kernel's space with device settings" $TUNER space $T/dev.yaml
cp $T/.out $T/space.out
check "they are parameters" grep -qE '^  power_limit_w +2 values: 0 250$' $T/space.out
check "range works" grep -qE '^  gpu_clock_mhz +3 values: 0 900 1800$' $T/space.out
check "and in the config text" grep -q '^  block_size=64,gpu_clock_mhz=0,items=2,power_limit_w=0$' $T/space.out
same "6 x the configs" "$(grep -o 'raw points: *[0-9]*' $T/space.out)" "raw points:  120"
check "compile: not passed to the kernel (the same 20 variants compiled)" \
    $TUNER compile $T/dev.yaml --cache $T/cache
said "(20 compiled)" '240 variants (0 refused by the compiler); 20 compiled'
cat > $T/defaults.yaml <<EOF
kernel:
  source: "$(pwd)/examples/vector/saxpy.cu"
  function: saxpy
  args:
    - { name: y, buffer: f32, count: n, init: { random: [-1, 1] }, output: true }
    - { name: x, buffer: f32, count: n, init: { random: [-1, 1] } }
    - { name: a, scalar: f32, value: 2.5 }
    - { name: n, scalar: i64, value: n }
  grid: ["ceil_div(n, BLOCK * ITEMS)"]
  block: [BLOCK]
reference:
  config: { BLOCK: 128, ITEMS: 1 }
problems:
  - { n: 1048576 }
params:
  BLOCK: { values: [128, 256] }
  ITEMS: { values: [1, 2] }
  mem_clock_mhz: { values: [0, 1593] }
EOF
check "default defines (every parameter a -D) leave device settings out; the reference needs none" \
    $TUNER compile $T/defaults.yaml --cache $T/cache2
said "(8 variants, 4 compiled: mem_clock_mhz is no -D)" '8 variants (0 refused by the compiler); 4 compiled'

# bad values: file:line:col
bad() {   # bad NAME BODY EXPECTED: the parameter NAME: BODY on line 3
    printf 'base: "%s/examples/vector/saxpy.yaml"\nparams:\n  %s: %s\n  block_size: { values: [64] }\n  items: { values: [1] }\n' \
        "$(pwd)" "$1" "$2" > $T/bad.yaml
    check_fails "$1: $2" 2 $TUNER space $T/bad.yaml
    same "$1: $2: the error" "$(head -n 1 $T/.out)" "$T/bad.yaml:$3"
}
bad gpu_clock_mhz "{ values: [0, -5] }" "3:32: error: gpu_clock_mhz: a device setting takes whole numbers from 0 (as the driver has it) to 100000, found '-5'"
bad power_limit_w "{ values: [2.5e2] }" "3:29: error: power_limit_w: a device setting takes whole numbers from 0 (as the driver has it) to 100000, found '2.5e2'"
bad mem_clock_mhz "{ values: [fast] }" "3:29: error: mem_clock_mhz: a device setting takes whole numbers from 0 (as the driver has it) to 100000, found 'fast'"
bad power_limit_w "{ range: [-100, 200, 100] }" "3:28: error: power_limit_w: a device setting takes whole numbers from 0 (as the driver has it) to 100000, found '-100'"
bad power_limit_w "{ values: [100001] }" "3:29: error: power_limit_w: a device setting takes whole numbers from 0 (as the driver has it) to 100000, found '100001'"
bad gpu_clock_mhz "{ pow2: [512, 2048] }" "3:20: error: gpu_clock_mhz: unknown key 'pow2' (expected values or range)"
sed 's/^params:/params:\n  power_limit_w: { values: [0, 200] }/' spaces/elementwise.yaml > $T/builtin.yaml
check_fails "a built-in family's space" 2 $TUNER space $T/builtin.yaml
said "says only a user kernel's space can" "builtin.yaml:[0-9]*:3: error: params: power_limit_w is a device setting, which only a user kernel's space can tune" $T/.out

# ---- a state file left by a killed run ----
export TUNEKIT_NVML_LIB=$FAKE
printf '# tunekit: the GPU settings to put back after a run (docs/energy.md)\nuuid=GPU-1234\npower_limit_mw=275000\ngpu_locked_clocks=none\nmem_locked_clocks=none\n' \
    > $T/r.db.device-settings.GPU-1234
check "the next run restores it" $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/r.db -q
same "said once on stderr" "$(grep -c 'restored' $T/.out) $(grep -o 'tuner: restored the GPU settings (clocks, power limit) a killed run left changed on GPU-1234' $T/.out)" \
    "1 tuner: restored the GPU settings (clocks, power limit) a killed run left changed on GPU-1234"
same "through NVML: the power limit as it was, the locks reset (a file without changed=: all three)" "$(cat $T/nvml.log)" "set_power_limit GPU-1234 275000
reset_gpu_locked GPU-1234
reset_mem_locked GPU-1234"
check "the file is gone" test ! -e $T/r.db.device-settings.GPU-1234
rm -f $T/nvml.log
check "the run after: nothing to restore" $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/r.db -q
same "(nothing said, no NVML call)" "$(grep -c restored $T/.out) $(cat $T/nvml.log 2>/dev/null | wc -l)" "0 0"
printf 'uuid=GPU-1234\n' > $T/r.db.device-settings.GPU-1234
check_fails "a state file it cannot restore stops the run" 1 \
    $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/r.db -q
said "and says why and what to do" "r.db.device-settings.GPU-1234: not a state file of the tuner's (no uuid= or power_limit_mw=); the run would take the changed settings for the driver's: restore them (nvidia-smi -rgc, -rmc, -pl) and remove the file" $T/.out
check "the file is kept" test -e $T/r.db.device-settings.GPU-1234
rm $T/r.db.device-settings.GPU-1234
printf 'uuid=GPU-1234\npower_limit_mw=275000\n' > $T/r.db.device-settings.GPU-1234
TUNEKIT_NVML_LIB=$T/none.so check_fails "without NVML it cannot either" 1 \
    $TUNER run examples/vector/saxpy.yaml --backend replay:$FX --db $T/r.db -q
said "(NVML not found)" "cannot restore the GPU settings in .*: NVML ($T/none.so) not found" $T/.out
rm $T/r.db.device-settings.GPU-1234
unset TUNEKIT_NVML_LIB

# ---- results: best shows them, the header takes the driver's settings ----
# the fixture's saxpy rows as measured at power_limit_w=0, and each again at power_limit_w=250,
# made twice as fast there (synthetic: so that the limited rows would win if they could)
check "import the fixture" $TUNER db import $FX --db $T/fx.db -q
python3 - "$T/fx.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in c.execute("SELECT DISTINCT e.config_id FROM evaluations e JOIN problems p ON p.id = e.problem_id WHERE p.op = 'vector.saxpy'")]
cols = [r[1] for r in c.execute("PRAGMA table_info(evaluations)") if r[1] != 'id']
for cid in ids:
    text = c.execute("SELECT text FROM configs WHERE id = ?", (cid,)).fetchone()[0]
    c.execute("UPDATE configs SET text = ? WHERE id = ?", (text + ",power_limit_w=0", cid))
    new = c.execute("INSERT INTO configs(text) VALUES (?)", (text + ",power_limit_w=250",)).lastrowid
    sel = ", ".join("?" if k == "config_id" else ("median_us / 2" if k == "median_us" else k) for k in cols)
    c.execute("INSERT INTO evaluations(%s) SELECT %s FROM evaluations WHERE config_id = %d" % (", ".join(cols), sel.replace("?", str(new)), cid))
c.commit()
PY
cat > $T/pl.yaml <<EOF
base: "$(pwd)/examples/vector/saxpy.yaml"
params:
  power_limit_w: { values: [0, 250] }
  block_size: { pow2: [64, 1024] }
  items: { values: [1, 2, 4, 8] }
EOF
check "tuner best" $TUNER best --db $T/fx.db --op vector.saxpy --format csv
same "shows the winners with their settings, as measured" \
    "$(python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])): print(r["config"])' $T/.out)" "block_size=256,items=1,power_limit_w=250
block_size=128,items=2,power_limit_w=250"
check "tuner header --space" $TUNER header --space $T/pl.yaml --db $T/fx.db -o $T/pl.h -q
check "the header's winners: measured at the driver's settings" \
    grep -q '"block_size=256,items=1,power_limit_w=0"' $T/pl.h
check "and of the other problem" grep -q '"block_size=128,items=2,power_limit_w=0"' $T/pl.h
check "none at 250 W" bash -c "! grep -q 'power_limit_w=250' $T/pl.h"
check "the header compiles" cc -std=c99 -Wall -Wextra -Werror -fsyntax-only -x c $T/pl.h
python3 - "$T/fx.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("DELETE FROM evaluations WHERE config_id IN (SELECT id FROM configs WHERE text LIKE '%power_limit_w=0')")
c.commit()
PY
check_fails "no row at the driver's settings: no header" 1 $TUNER header --space $T/pl.yaml --db $T/fx.db -o $T/none.h
said "says there is none" 'no validated measurement'
finish

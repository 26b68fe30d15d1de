#!/usr/bin/env bash
# flops.sh: a compute-bound user kernel in TFLOP/s, without a GPU (kernel.flops,
# docs/user-kernels.md). The 2-D convolution example, whose space gives its flops (2 x outputs x
# filter taps), replays from its committed H100 dump: the problems are stored with their flops,
# and the run's lines, `tuner best` (table, CSV, JSON) and the header's comments show TFLOP/s and
# the share of the H100's FP32 peak (132 SMs x 1.98 GHz x 2 x 128 lanes = 66.9 TFLOP/s) where
# they showed GB/s and the share of the copy rate. A dump of the results carries the flops
# through export and import. The committed dump itself, measured before the space gave flops,
# has none: `tuner best` on it shows GB/s, and `tuner header --space` takes the flops from the
# space.
source "$(dirname "$0")/lib.sh"
DUMP=examples/conv2d/results/nvidia-h100-80gb-hbm3.sql.xz
SP=examples/conv2d/conv2d.yaml
PEAK=66.9024e12   # the recorded H100's FP32 peak in FLOP/s

check "replay conv2d with flops" $TUNER run $SP --backend "replay:$DUMP" --db $T/c.db --budget-evals 30
cp $T/.out $T/run.out
same "the problems are stored with their flops" \
    "$(sql $T/c.db "select shape, flops from problems order by shape")" \
    "H=2048,R=9,W=2048|679477248
H=4096,R=17,W=4096|9697230848"

# what each winner's numbers must be: TFLOP/s = flops / time, the share of the FP32 peak
expect() {   # expect FORMAT: one line per winner, by shape, FORMAT taking shape, TFLOP/s, share
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for shape, us, flops in c.execute("select b.shape, b.median_us, p.flops from best b join problems p"
                                  " on p.id = b.problem_id order by b.shape"):
    print(sys.argv[2] % (shape, flops / (us * 1e6), 100 * flops / (us * 1e-6) / float(sys.argv[3])))' \
        $T/c.db "$1" $PEAK
}
same "the run's lines: TFLOP/s and the share of the FP32 peak" \
    "$(grep -o 'conv2d.conv2d f32 H=[^ ]* .* of FP32 peak' $T/run.out | sort |
       sed -E 's/^conv2d.conv2d f32 ([^ ]*) +[0-9.]+ us +([0-9.]+) TFLOP\/s +([0-9.]+)% of FP32 peak$/\1 \2 \3/')" \
    "$(expect '%s %.2f %.1f')"

check "tuner best" $TUNER best --db $T/c.db
same "tuner best names the columns" "$(head -n 1 $T/.out | tr -s ' ')" \
    "device op dtype shape median_us throughput share config"
same "tuner best: TFLOP/s and the share of the FP32 peak" \
    "$(tail -n +2 $T/.out | awk '{print $7, $9, $10, $11, $12, $13}')" \
    "$(expect '%s %.2f TFLOP/s %.1f%% FP32 peak')"
same "tuner best --format csv: tflops and frac_peak" \
    "$($TUNER best --db $T/c.db --format csv | python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin): print(r["shape"], r["tflops"], "%.1f" % (100 * float(r["frac_peak"])))')" \
    "$(expect '%s %.4f %.1f')"
same "tuner best --format json: tflops and frac_peak" \
    "$($TUNER best --db $T/c.db --format json | python3 -c 'import json, sys
for r in json.load(sys.stdin): print(r["shape"], "%.4f" % r["tflops"], "%.1f" % (100 * r["frac_peak"]))')" \
    "$(expect '%s %.4f %.1f')"

check "export" $TUNER db export --db $T/c.db -o $T/c.sql
grep -q "^INSERT INTO problems(op,dtype,shape,elements,bytes,size_key,flops) VALUES" $T/c.sql
same "the dump writes the flops" "$?" "0"
check "import it into a new database" $TUNER db import $T/c.sql --db $T/d.db -q
same "the flops come back" "$(sql $T/d.db "select shape, flops from problems order by shape")" \
    "$(sql $T/c.db "select shape, flops from problems order by shape")"
same "tuner best on the import reads the same" "$($TUNER best --db $T/d.db)" "$($TUNER best --db $T/c.db)"

check "header from the replayed results" $TUNER header --space $SP -o $T/c_tuned.h $T/c.sql
same "its entries' comments: TFLOP/s and the share of the FP32 peak" \
    "$(grep -o '/\* [0-9.]* us, [0-9.]* TFLOP/s, [0-9.]*% of FP32 peak \*/' $T/c_tuned.h | wc -l)" "2"

# the committed dump has no flops: bytes in `tuner best`, flops from the space in the header
check "tuner best on the committed dump" $TUNER best --db $DUMP
same "it shows GB/s and the share of copy" "$(head -n 1 $T/.out | awk '{print $6, $7}')" "GB/s %copy"
check "header from the committed dump" $TUNER header --space $SP -o $T/h_tuned.h
same "the space's flops fill what the dump lacks" \
    "$(grep -c '/\* [0-9.]* us, [0-9.]* TFLOP/s, [0-9.]*% of FP32 peak \*/' $T/h_tuned.h)" "2"
mkdir -p $T/conv2d && cp examples/conv2d/*.cu examples/conv2d/peer.py $T/conv2d/ && grep -v '^  flops:' $SP > $T/conv2d/conv2d.yaml
check "the same header from a space without flops" \
    $TUNER header --space $T/conv2d/conv2d.yaml -o $T/b_tuned.h $DUMP
same "GB/s and the share of copy then" \
    "$(grep -c '/\* [0-9.]* us, [0-9.]* GB/s, [0-9.]*% of copy \*/' $T/b_tuned.h)" "2"
finish

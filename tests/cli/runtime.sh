#!/usr/bin/env bash
# runtime.sh: libtunekit's run-time API without a GPU (docs/runtime.md). The descriptor a user
# kernel's header holds (tuner header --space), the example programs of examples/runtime built
# against it and libtunekit.a (they say there is no GPU and stop), and tests/fixtures/
# runtime_prepare.c: the config the table gives a known and an unknown device, NVRTC's compile
# into the cache, the errors of a bad descriptor. The compile cache is the tuner's: a variant the
# library compiled is found by `tuner compile`, and the other way round.
source "$(dirname "$0")/lib.sh"
if [ -z "${CUDA_HOME:-}" ]; then
    CUDA_HOME=/usr/local/cuda
    nvcc=$(command -v nvcc) && CUDA_HOME=$(dirname "$(dirname "$nvcc")")
fi
DUMP=examples/vector/results/nvidia-h100-80gb-hbm3.sql.xz
mkdir -p $T/inc
check "saxpy's header, with its descriptor" $TUNER header --space examples/vector/saxpy.yaml -o $T/inc/saxpy_tuned.h
check "softmax's header" $TUNER header --space examples/softmax/softmax.yaml -o $T/inc/softmax_tuned.h
grep -q '^static const tk_kernel_desc vector_saxpy_desc = {' $T/inc/saxpy_tuned.h
same "the descriptor is there" "$?" "0"
cc_run() {   # OUT SOURCE: build a C program against the headers and libtunekit.a
    cc -std=c11 -Wall -Wextra -Werror -I$T/inc -Ikernels -I"$CUDA_HOME/include" "$2" \
        build/libtunekit.a -L"$CUDA_HOME/lib64" -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt \
        -o "$1"
}
check "a program without the run-time API still compiles with the header" \
    cc -std=c99 -Wall -Wextra -Werror -I$T/inc -fsyntax-only -x c - <<<'#include "saxpy_tuned.h"
int main(void) { return vector_saxpy_lookup("x", 9, 0, 1, "f32", (const long long[]){ 1 }) == 0; }'
for p in saxpy softmax; do
    check "examples/runtime/$p.c builds against libtunekit.a" cc_run $T/$p examples/runtime/$p.c
done
if nvidia-smi -L >/dev/null 2>&1; then
    echo "runtime: a GPU is here: the examples run in tests/gpu/runtime_test.sh"
else
    check "saxpy says there is no GPU" $T/saxpy
    same "and stops" "$(cat $T/.out)" "saxpy: no CUDA device: nothing to run"
fi
check "the prepare fixture builds" cc_run $T/prep tests/fixtures/runtime_prepare.c
if ! $TUNER compile examples/vector/saxpy.yaml --cache $T/probe -q >$T/probe.out 2>&1 &&
   grep -q "NVRTC not found" $T/probe.out; then
    echo "runtime: NVRTC not found, compile checks skipped: $(head -n 1 $T/probe.out)"
    finish
fi
check "tk_kernel_prepare without a GPU" env TUNEKIT_CACHE=$T/c1 $T/prep
$TUNER db import $DUMP --db $T/d.db -q
large=$(sql $T/d.db "select config from best where op = 'vector.saxpy' and shape = 'n=16777216'")
small=$(sql $T/d.db "select config from best where op = 'vector.saxpy' and shape = 'n=1048576'")
same "the H100's winner for n = 16 Mi" "$(sed -n 2p $T/.out)" "h100 large: ok $large"
same "the nearest problem's winner for n = 1 M" "$(sed -n 3p $T/.out)" "h100 small: ok $small"
same "a GPU the table does not know: the nearest compute capability's" "$(sed -n 4p $T/.out | cut -d' ' -f1-4)" "$(sed -n 2p $T/.out | sed 's/h100/a100/')"
same "a dtype the kernel does not have" "$(sed -n 5p $T/.out)" "f16: invalid argument vector.saxpy: no dtype 'f16'"
same "a descriptor of another ABI" "$(sed -n 6p $T/.out)" \
    "abi: invalid argument tk_kernel_open: a descriptor of ABI 99, this library reads 4 and 5 (regenerate the header with this tunekit's tuner)"
same "an expression that does not parse" "$(sed -n 7p $T/.out)" \
    "grid: invalid argument vector.saxpy: grid 'ceil_div(n, block_size * )': unexpected ')'"
same "a source NVRTC refuses" "$(sed -n 8p $T/.out | cut -c1-73)" \
    "refused: CUDA runtime call failed vector.saxpy: NVRTC refused the variant"
same "a define whose condition is 0 is left out (the source needs ITEMS)" "$(sed -n 9p $T/.out | cut -c1-76)" \
    "cond never: CUDA runtime call failed vector.saxpy: NVRTC refused the variant"
same "... and passed where it holds" "$(sed -n 10p $T/.out)" "cond holds: ok "
same "a descriptor of ABI 4 opens, its defines unconditional" "$(sed -n 11p $T/.out)" "abi 4: ok "
check "the tuner compiles the space into the library's cache" $TUNER compile examples/vector/saxpy.yaml --cache $T/c1
same "it finds the two sm_90 variants the library compiled" "$(grep -o '18 compiled.*2 from the cache' $T/.out | sed 's/ in .*,/,/')" \
    "18 compiled, 2 from the cache"
check "the tuner fills a cache" $TUNER compile examples/vector/saxpy.yaml --cache $T/c2
before=$(ls $T/c2 | grep -c '\.\(cubin\|fail\)$')
check "the library prepares from it" env TUNEKIT_CACHE=$T/c2 $T/prep
after=$(ls $T/c2 | grep -c '\.\(cubin\|fail\)$')
# the sm_90 variants come from the cache; the A100's (sm_80), the refused source and the
# variant without ITEMS are new
same "it adds only the sm_80 variant and the two refused sources" "$((after - before))" "3"
ls $T/c2/nvrtc-sm_90.probe >/dev/null 2>&1; same "it remembers NVRTC's probe beside the cubins" "$?" "0"
# a probe written by another tunekit (other in-memory headers): probed again, so the library's
# keys stay the tuner's and it finds the tuner's cubins
sed -i '3s/+h[0-9a-f]*/+h0123456789ab/' $T/c2/nvrtc-sm_90.probe
before=$(ls $T/c2 | grep -c '\.\(cubin\|fail\)$')
check "the library prepares again past an old probe" env TUNEKIT_CACHE=$T/c2 $T/prep
after=$(ls $T/c2 | grep -c '\.\(cubin\|fail\)$')
same "nothing compiled anew: its keys are the tuner's" "$((after - before))" "0"
grep -q '+h0123456789ab' $T/c2/nvrtc-sm_90.probe; same "the probe file is written again" "$?" "1"
finish

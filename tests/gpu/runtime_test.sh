#!/usr/bin/env bash
# runtime_test.sh: libtunekit's run-time API on a GPU (docs/runtime.md): the example programs
# of examples/runtime (saxpy at three sizes, softmax f32), and 8 threads launching one tk_kernel
# at once (tests/fixtures/runtime_threads.c), each checking every element; capture: saxpy's
# inputs written bit for bit, kept when run again, skipped over the limit, and the capture tuned
# (every config validated on the captured data) into the base's header; the descriptors from
# the committed H100 results, NVRTC compiling into a cache of the test's own. Last,
# cluster_reduce and grid_sync (tests/corpus) and arch_specific (tests/gpu/user) tuned here and
# launched through their headers: thread block clusters, a cooperative grid and a kernel built for
# sm_90a. Skips without a GPU.
source "$(dirname "$0")/lib.sh"
need_gpu
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
export TUNEKIT_CACHE=$tmp/cache
check "saxpy's header" $T header --space examples/vector/saxpy.yaml -o $tmp/saxpy_tuned.h
check "softmax's header" $T header --space examples/softmax/softmax.yaml -o $tmp/softmax_tuned.h
build() {
    cc -std=c11 -Wall -Wextra -Werror -I$tmp -Ikernels -I"$CUDA_HOME/include" "$2" \
        build/libtunekit.a -L"$CUDA_HOME/lib64" -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt -o "$1"
}
check "examples/runtime/saxpy.c builds" build $tmp/saxpy examples/runtime/saxpy.c
check "examples/runtime/softmax.c builds" build $tmp/softmax examples/runtime/softmax.c
check "the threads test builds" build $tmp/threads tests/fixtures/runtime_threads.c
for n in 1000003 1048576 16777216; do
    check "saxpy n=$n, every element right" $tmp/saxpy $n
done
check "softmax f32 8192 x 4096, every element right" $tmp/softmax 8192 4096
check "softmax f32 4096 x 32768 (long rows)" $tmp/softmax 4096 32768
check "8 threads at once" $tmp/threads
# capture (docs/runtime.md): the program's launches captured, then tuned as they were
cap=$tmp/cap
check "saxpy n=1000003 with capture on" env TUNEKIT_CAPTURE=vector.saxpy TUNEKIT_CAPTURE_DIR=$cap $tmp/saxpy 1000003
C=$cap/vector.saxpy/f32-n=1000003
check "the capture: the program's x and y, bit for bit" python3 - "$C" <<'PY'
import sys, numpy as np
d = sys.argv[1]
i = np.arange(1000003, dtype=np.int64)
x = (((i * 7919) % 1000).astype(np.float32) / np.float32(500.0)) - np.float32(1.0)
y = (((i * 104729) % 1000).astype(np.float32) / np.float32(500.0)) - np.float32(1.0)
for name, want in (("x", x), ("y", y)):
    got = np.fromfile(f"{d}/{name}.bin", dtype=np.float32)
    assert got.shape == want.shape and np.array_equal(got.view(np.uint32), want.view(np.uint32)), name
print("x.bin and y.bin are the program's inputs")
PY
before=$(stat -c %Y.%s $C/x.bin)
check "run again: the program still right" env TUNEKIT_CAPTURE=all TUNEKIT_CAPTURE_DIR=$cap $tmp/saxpy 1000003
check "... and the capture kept as it was" test "$(stat -c %Y.%s $C/x.bin)" = "$before"
check "over the limit: the program right" env TUNEKIT_CAPTURE=saxpy TUNEKIT_CAPTURE_DIR=$cap TUNEKIT_CAPTURE_MAX_BYTES=1000 $tmp/saxpy 1048576
check "... and the capture skipped, saying why" grep -q "over the limit of 1000" $cap/vector.saxpy/f32-n=1048576/SKIPPED
check "the tuner tunes the capture" $T run $C/space.yaml --db $tmp/cap.db --strategy exhaustive -q
check "every config validated on the captured data" test "$(python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(c.execute("select count(*) from evaluations where status = \x27ok\x27").fetchone()[0])' $tmp/cap.db)" = 20
check "the base's header has the captured problem" $T header --space examples/vector/saxpy.yaml --db $tmp/cap.db -o $tmp/cap_tuned.h
check "... n = 1000003 in its table" grep -q "1000003" $tmp/cap_tuned.h
# launches that need cudaLaunchKernelEx (thread block clusters, a cooperative grid), through the
# library from headers of runs made here (tests/fixtures/runtime_launch_ex.c)
for c in cluster_reduce grid_sync; do
    check "$c tuned here" $T run tests/corpus/$c/$c.yaml --db $tmp/ex.db --cache $tmp/cache
    check "$c's header" $T header --space tests/corpus/$c/$c.yaml --db $tmp/ex.db -o $tmp/${c}_tuned.h
done
# and a kernel that builds only for sm_90a (kernel.arch_suffix: a), which the library compiles
# for the GPU's sm_XXa
check "arch_specific tuned here" $T run tests/gpu/user/arch_specific.yaml --db $tmp/ex.db --cache $tmp/cache
check "arch_specific's header" $T header --space tests/gpu/user/arch_specific.yaml --db $tmp/ex.db -o $tmp/arch_specific_tuned.h
check "... its descriptor asks for the suffix" grep -q '_desc_entries, "a",' $tmp/arch_specific_tuned.h
check "the launch_ex test builds" build $tmp/launch_ex tests/fixtures/runtime_launch_ex.c
check "clusters, a cooperative grid and sm_90a through the library, every result right" $tmp/launch_ex
finish

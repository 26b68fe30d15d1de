#!/usr/bin/env bash
# runtime_test.sh: libtunekit's run-time API on a GPU (docs/runtime.md): the example programs
# of examples/runtime (saxpy at three sizes, softmax f32), and 8 threads launching one tk_kernel
# at once (tests/fixtures/runtime_threads.c), each checking every element; the descriptors from
# the committed H100 results, NVRTC compiling into a cache of the test's own. Skips without a GPU.
set -u
cd "$(dirname "$0")/../.."
T=${TUNER:-build/tuner}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() {
    local what=$1; shift
    if "$@" >"$tmp/.out" 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "runtime_test: FAIL: $what"; sed 's/^/    /' "$tmp/.out" | tail -5; fi
    cat "$tmp/.out"
}
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "runtime_test: skipped: no GPU found"
    echo "0 passed, 0 failed"
    exit 0
fi
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# library.sh: the C API example (examples/library/tunekit_example.c, docs/library.md) compiles
# against build/libtunekit.a with the command docs/library.md gives, warning-free, and runs: its
# calls that need no GPU print what the library says, and without a GPU it prints the one line
# that says so and exits 0; with a GPU every kernel's result must match the CPU's.
# The C shown in README.md and docs/library.md must be lines of the example, so it compiles and
# runs too. REQUIRE_GPU=1 (tests/gpu/library_test.sh) makes the absence of a GPU a failure.
source "$(dirname "$0")/lib.sh"
if [ -z "${CUDA_HOME:-}" ]; then
    CUDA_HOME=/usr/local/cuda
    nvcc=$(command -v nvcc) && CUDA_HOME=$(dirname "$(dirname "$nvcc")")
fi
EX=$T/tunekit_example

check "the example compiles and links against build/libtunekit.a" \
    cc -std=c17 -Wall -Wextra -Werror -Ikernels -I"$CUDA_HOME/include" \
    examples/library/tunekit_example.c build/libtunekit.a -L"$CUDA_HOME/lib64" -lcudart_static \
    -lstdc++ -lm -ldl -lpthread -lrt -o "$EX"
check "the example runs" "$EX"
out=$("$EX" 2>&1)
line() { printf '%s\n' "$out" | grep -cxF "$1"; }
same "status strings" "$(line 'status 0 is "ok"; status 2 is "unsupported config"')" 1
same "dtypes" "$(line 'dtype bf16 is 2, bf16, 2 bytes')" 1
devices=$(sed -n 's/^#define TK_TUNED_N_DEVICES //p' kernels/tuned_configs.h)
entries=$(sed -n 's/^#define TK_TUNED_N_ENTRIES //p' kernels/tuned_configs.h)
same "what the tuned header holds" \
    "$(line "the tuned header holds $devices GPU models and $entries entries")" 1
same "a parameter space" \
    "$(line 'elementwise parameters: block_size cache_hint loop pack_size unroll waves')" 1
same "config text parsed" "$(printf '%s\n' "$out" | grep -c '^parsed ".*": ok, block_size 128, waves 8, pack_size 4, unroll 2$')" 1
same "an unsupported block size" \
    "$(line 'block_size=100 gives "unsupported config" (block sizes are multiples of 32)')" 1
same "reduce's default as text" "$(printf '%s\n' "$out" | grep -c "^reduce's default for f32: .*version=9.* (supported: 1)$")" 1
same "the relu mask's size" "$(line 'a relu mask for 1000 elements takes 32 32-bit words')" 1
if printf '%s\n' "$out" | grep -q '^GPU 0: '; then
    same "with a GPU: every kernel checked" "$(printf '%s\n' "$out" | grep -c '^ok  : ')" 7
    same "with a GPU: the last line" "$(printf '%s\n' "$out" | tail -n 1)" "every result matches the CPU's"
elif [ "${REQUIRE_GPU:-0}" = 1 ]; then
    same "a GPU is required here" "$(printf '%s\n' "$out" | tail -n 1)" "GPU 0: ..."
else
    same "without a GPU: says so, last" \
        "$(printf '%s\n' "$out" | tail -n 1 | sed 's/(cudaGetDeviceCount: [^)]*)/(cudaGetDeviceCount: ...)/')" \
        "no CUDA device (cudaGetDeviceCount: ...): the calls above need none; the kernels were not run"
fi

# The C shown in README.md and docs/library.md is the example's own code, line for line.
snippet_in_example() {
    python3 - "$1" examples/library/tunekit_example.c <<'PY'
import re, sys
doc, ex = (open(p, encoding="utf-8").read() for p in sys.argv[1:])
blocks = re.findall(r"```c\n(.*?)```", doc, re.S)
have = {l.strip() for l in ex.split("\n")}
missing = [l for b in blocks for l in b.split("\n") if l.strip() and l.strip() not in have]
print(f"{len(blocks)} blocks; missing: {missing}")
sys.exit(0 if blocks and not missing else 1)
PY
}
check "README.md's C example is the example program's code" snippet_in_example README.md
check "docs/library.md's C example is the example program's code" snippet_in_example docs/library.md
finish

#!/usr/bin/env bash
# user.sh: user kernels without a GPU (docs/user-kernels.md). The compile path through NVRTC
# (present wherever the CUDA toolkit is): every variant compiles, a second compile finds them all
# in the cache, editing the source changes the kernel hash, and each kind of bad kernel (syntax
# error, wrong argument list, a template that does not instantiate) stops before anything is
# written with a clear line, as does a buffer larger than the __constant__ variable it fills
# (both compilers); a config past the kernel's __launch_bounds__ is unsupported without a GPU;
# a kernel that needs sm_90a compiles with kernel.arch_suffix: a and
# is refused without it, and below compute capability 9.0. The checks that need the device (sizes, memory, geometry) against
# the H100 recorded in the committed dump. The committed H100 measurements of examples/vector
# replay through `tuner run`, and `tuner header --space` writes a header that a C and a C++
# program compile and use both ways (run-time lookup, compile-time defines).
source "$(dirname "$0")/lib.sh"
DUMP=examples/vector/results/nvidia-h100-80gb-hbm3.sql.xz
H100="replay:$DUMP"

# ---- compiling ----
if $TUNER compile examples/vector/saxpy.yaml --cache $T/probe -q >$T/probe.out 2>&1 ||
   ! grep -q "NVRTC not found" $T/probe.out; then
    check "compile saxpy into an empty cache" $TUNER compile examples/vector/saxpy.yaml --cache $T/c
    same "40 variants, 20 compilations (the problems share them)" \
        "$(grep -o '40 variants (0 refused by the compiler); 20 compiled' $T/.out)" \
        "40 variants (0 refused by the compiler); 20 compiled"
    check "compile saxpy again" $TUNER compile examples/vector/saxpy.yaml --cache $T/c
    same "the second compile compiles nothing" "$(grep -o '; 0 compiled.*20 from the cache' $T/.out | sed 's/ in .*,/,/')" \
        "; 0 compiled, 20 from the cache"
    check "the templated kernel and its reference kernel compile" \
        $TUNER compile examples/vector/scale_shift.yaml --cache $T/c
    same "scale_shift: 64 variants" "$(grep -o '64 variants (0 refused' $T/.out)" "64 variants (0 refused"
    # a reference kernel takes kernel.args too: one that takes fewer parameters is stopped at
    # reference: (it would read garbage on the GPU and fail every variant)
    mkdir -p $T/refk && cp examples/vector/*scale_shift* $T/refk/
    sed -i 's/    - { name: t, scalar: f32, value: 0.5 }/    - { name: t, scalar: f32, value: 0.5 }\n    - { name: u, scalar: f32, value: 0.25 }/' $T/refk/scale_shift.yaml
    sed -i '8s/float s, float t, long long n)/float s, float t, float u, long long n)/' $T/refk/scale_shift.cu
    check_fails "a reference kernel whose parameters are not kernel.args" 2 $TUNER compile $T/refk/scale_shift.yaml --cache $T/c
    same "... is named at reference:" "$(head -n 1 $T/.out)" \
        "$T/refk/scale_shift.yaml:20:3: error: reference.kernel (given the arguments of kernel.args) lists 6 arguments, but scale_shift_reference takes 5 parameters"

    mkdir -p $T/bad && cp examples/vector/*saxpy* $T/bad/
    sed -i 's/a \* x\[base + k\]/a * x[base + k] +* /' $T/bad/saxpy.cu
    check_fails "a source that does not compile" 2 $TUNER compile $T/bad/saxpy.yaml --cache $T/c
    same "it stops after 8 variants fail alike, with the first one's log" \
        "$(head -n 1 $T/.out | grep -o 'error: the first 8 variants of f32 n=1048576 all fail to compile with the same error (stopped there; nvrtc): .*saxpy.cu(9): error')" \
        "error: the first 8 variants of f32 n=1048576 all fail to compile with the same error (stopped there; nvrtc): $T/bad/saxpy.cu(9): error"
    # a warning before the error (Kernel Launcher's `#pragma kernel` lines) is not what stopped
    # the compile: the message shows the error line
    sed -i '1i #pragma kernel tune(block_size=32, 64)' $T/bad/saxpy.cu
    check_fails "a warning before the error" 2 $TUNER compile $T/bad/saxpy.yaml --cache $T/c
    same "the message shows the error, not the warning" \
        "$(head -n 1 $T/.out | grep -o 'with the same error (stopped there; nvrtc): [^|]*saxpy.cu([0-9]*): [a-z]*')" \
        "with the same error (stopped there; nvrtc): $T/bad/saxpy.cu(10): error"
    # The cache key holds every option, include directories too: a variant refused for a missing
    # header compiles once -I names its folder (a key without -I served the refusal again).
    mkdir -p $T/inc/sub && cp examples/vector/*saxpy* $T/inc/
    printf '#define SCALE_OF(a) (a)\n' > $T/inc/sub/scale_of.cuh
    sed -i 's|^extern|#include "scale_of.cuh"\nextern|; s/y\[base + k\] = a \* x/y[base + k] = SCALE_OF(a) * x/' $T/inc/saxpy.cu
    check_fails "a header outside the include path" 2 $TUNER compile $T/inc/saxpy.yaml --cache $T/ci
    grep -q 'cannot open source file "scale_of.cuh"' $T/.out; same "NVRTC says which header" "$?" "0"
    sed -i "s|  block: \[block_size\]|  block: [block_size]\n  options: [\"-I$T/inc/sub\"]|" $T/inc/saxpy.yaml
    check "the same variants with -I in the options compile" $TUNER compile $T/inc/saxpy.yaml --cache $T/ci
    same "20 compiled anew, none from the cache" "$(grep -o '; 20 compiled.*0 from the cache' $T/.out | sed 's/ in .*,/,/')" \
        "; 20 compiled, 0 from the cache"
    if command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
        check "nvcc compiles them too" $TUNER compile $T/inc/saxpy.yaml --cache $T/ci --compiler nvcc
        same "its own cache entries (the compiler is in the key)" \
            "$(grep -o 'sm_90 (nvcc): 40 variants (0 refused by the compiler); 20 compiled.*0 from the cache' $T/.out | sed 's/ in .*,/,/')" \
            "sm_90 (nvcc): 40 variants (0 refused by the compiler); 20 compiled, 0 from the cache"
    fi
    cp examples/vector/saxpy.cu $T/bad/
    sed -i 's/    - { name: n, scalar: i64, value: n }//' $T/bad/saxpy.yaml
    check_fails "an argument list one short" 2 $TUNER compile $T/bad/saxpy.yaml --cache $T/c
    same "it names the counts" "$(head -n 1 $T/.out)" \
        "$T/bad/saxpy.yaml:9:7: error: kernel.args lists 3 arguments, but saxpy takes 4 parameters"
    cp examples/vector/saxpy.yaml $T/bad/
    sed -i 's/name: n, scalar: i64/name: n, scalar: i32/' $T/bad/saxpy.yaml
    check_fails "an argument of the wrong size" 2 $TUNER compile $T/bad/saxpy.yaml --cache $T/c
    same "it names the argument" "$(head -n 1 $T/.out)" \
        "$T/bad/saxpy.yaml:12:7: error: kernel.args n: i32 (4 bytes), but parameter 4 of saxpy takes 8 bytes"
    cp examples/vector/*scale_shift* $T/bad/
    sed -i 's/template: \[ctype, block_size, items\]/template: [ctype, block_size]/' $T/bad/scale_shift.yaml
    check_fails "a template that does not instantiate" 2 $TUNER compile $T/bad/scale_shift.yaml --cache $T/c
    same "it names the template and the instance" "$(head -n 1 $T/.out)" \
        "$T/bad/scale_shift.yaml:8:14: error: kernel.template: scale_shift<float, 128> is no instance of the template scale_shift: its arguments do not match the template's parameters in number, order or kind (nvrtc)"

    h1=$($TUNER space examples/vector/saxpy.yaml | grep -o 'kernel hash [0-9a-f]*')
    cp examples/vector/*saxpy* $T/bad/
    echo "// an edit" >> $T/bad/saxpy.cu
    h2=$($TUNER space $T/bad/saxpy.yaml | grep -o 'kernel hash [0-9a-f]*')
    [ -n "$h1" ] && [ "$h1" != "$h2" ]; same "editing the source changes the kernel hash" "$?" "0"
    check "the edited kernel compiles anew" $TUNER compile $T/bad/saxpy.yaml --cache $T/c
    same "20 compiled again" "$(grep -o '; 20 compiled' $T/.out)" "; 20 compiled"

    # kernel.arch_suffix: a kernel that stops with #error unless compiled for sm_90a
    AS=tests/gpu/user/arch_specific.yaml
    check "arch_suffix: a compiles for sm_90a" $TUNER compile $AS --cc 9.0 --cache $T/c
    same "the line names sm_90a" "$(grep -o 'warpgroup_scale for sm_90a (nvrtc): 6 variants (0 refused' $T/.out)" \
        "warpgroup_scale for sm_90a (nvrtc): 6 variants (0 refused"
    mkdir -p $T/arch && cp tests/gpu/user/arch_specific.* $T/arch/ && sed -i '/arch_suffix: a/d' $T/arch/arch_specific.yaml
    check_fails "without the suffix the kernel's #error stops it" 2 $TUNER compile $T/arch/arch_specific.yaml --cc 9.0 --cache $T/c
    grep -q 'none of the 6 variants of f32 n=1000003 compiles (nvrtc).*needs the architecture-specific features of sm_90a' $T/.out
    same "the compiler's #error is in the message" "$?" "0"
    # the parameter sizes are checked for every dtype: a struct field of type dtype that the
    # kernel declares float fits f32 and f16 (8 bytes with padding) but not f64
    mkdir -p $T/dt
    printf '%s\n' '#include <cuda_fp16.h>' 'struct P { float a; int n; };' 'template <typename T>' \
        '__global__ void k(P p, T *y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < p.n) y[i] = (T)p.a; }' > $T/dt/k.cu
    printf '%s\n' 'kernel:' '  source: k.cu' '  function: k' '  template: [ctype]' '  args:' \
        '    - { name: p, struct: [ { name: a, dtype: 2 }, { name: n, i32: n } ] }' \
        '    - { name: y, buffer: dtype, count: n, output: true }' '  grid: ["ceil_div(n, block)"]' \
        '  block: [block]' 'reference:' '  config: { block: 128 }' 'dtypes: [f32, f16]' 'problems:' \
        '  - { n: 4096 }' 'params:' '  block: { values: [128, 256] }' > $T/dt/s.yaml
    check "a struct with a dtype field that fits f32 and f16" $TUNER compile $T/dt/s.yaml --cc 9.0 --cache $T/c
    sed -i 's/dtypes: \[f32, f16\]/dtypes: [f32, f64]/' $T/dt/s.yaml
    check_fails "... but not f64, found before anything runs" 2 $TUNER compile $T/dt/s.yaml --cc 9.0 --cache $T/c
    same "names the dtype" "$(head -n 1 $T/.out)" \
        "$T/dt/s.yaml:6:7: error: kernel.args p: a struct (16 bytes for dtype f64), but parameter 1 of k takes 8 bytes (\`tuner space\` shows the struct's layout, field by field)"
    # a buffer's element type against the pointer the kernel takes (its C++ name says it): the
    # llm.c habit of a macro that picks the type (#if defined(ENABLE_BF16)), defined for every
    # dtype by -DENABLE_BF16=0 as well
    mkdir -p $T/px
    printf '%s\n' '#include <cuda_bf16.h>' '#if defined(ENABLE_BF16)' 'typedef __nv_bfloat16 floatX;' \
        '#else' 'typedef float floatX;' '#endif' \
        '__global__ void twice(floatX *y, const floatX *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + x[i]; }' > $T/px/k.cu
    printf '%s\n' 'kernel:' '  source: k.cu' '  function: twice' '  defines: { ENABLE_BF16: 1 }' '  args:' \
        '    - { name: y, buffer: dtype, count: n, output: true }' \
        '    - { name: x, buffer: dtype, count: n, init: { random: [-1, 1] } }' \
        '    - { name: n, scalar: i32, value: n }' '  grid: ["ceil_div(n, block)"]' \
        '  block: [block]' 'reference:' '  config: { block: 128 }' 'dtypes: [bf16, f32]' 'problems:' \
        '  - { n: 4096 }' 'params:' '  block: { values: [128, 256] }' > $T/px/s.yaml
    check_fails "an f32 buffer for a kernel compiled for __nv_bfloat16" 2 $TUNER compile $T/px/s.yaml --cc 9.0 --cache $T/c
    same "names the buffer, the dtype and the type compiled" "$(head -n 1 $T/.out)" \
        "$T/px/s.yaml:6:7: error: kernel.args y: a buffer of f32 (dtype f32), but parameter 1 of twice points to __nv_bfloat16 as compiled (__nv_bfloat16*): a macro or template argument that picks the type?"
    sed -i 's/dtypes: \[bf16, f32\]/dtypes: [bf16]/' $T/px/s.yaml
    check "... and bf16 buffers for it compile" $TUNER compile $T/px/s.yaml --cc 9.0 --cache $T/c
    # a macro defined or not by a condition: -DENABLE_BF16 for bf16 only, so one space tunes both
    sed -i 's/dtypes: \[bf16\]/dtypes: [bf16, f32]/; s/defines: { ENABLE_BF16: 1 }/defines: { ENABLE_BF16: { if: dtype == "bf16" } }/' $T/px/s.yaml
    check "{ if: dtype == \"bf16\" }: each dtype gets its type" $TUNER compile $T/px/s.yaml --cc 9.0 --cache $T/c
    same "two compilations, one a dtype" "$(grep -o '4 variants (0 refused by the compiler); 2 compiled' $T/.out)" \
        "4 variants (0 refused by the compiler); 2 compiled"
    check "tuner space shows the condition" $TUNER space $T/px/s.yaml
    same "as written" "$(grep '^macros:' $T/.out)" 'macros:      -DENABLE_BF16 (if dtype == "bf16")'

    # without defines: and template:, the parameters the source names are its macros: a
    # parameter `width` it never names stays launch-only (as -Dwidth=32 it broke CUDA's own
    # headers), and one that is also a variable of the code breaks the compile with a hint
    mkdir -p $T/dd
    # (a comment or a string literal that says "width" names nothing: "Modified by" made a
    # parameter `by` a macro)
    printf '%s\n' '// y[i] = 1 for each i below n, whatever the block width' '/* width: the block */' \
        '#define TAG "width"' \
        '__global__ void k(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f; }' > $T/dd/k.cu
    printf '%s\n' 'kernel:' '  source: k.cu' '  function: k' '  args:' \
        '    - { name: y, buffer: f32, count: n, output: true }' '    - { name: n, scalar: i32, value: n }' \
        '  grid: ["ceil_div(n, width)"]' '  block: [width]' 'reference:' '  config: { width: 32 }' \
        'problems:' '  - { n: 4096 }' 'params:' '  width: { values: [32, 64] }' > $T/dd/s.yaml
    check "a parameter named width that the source never names" $TUNER compile $T/dd/s.yaml --cc 9.0 --cache $T/c
    same "is launch-only: one compilation" "$(grep -o '2 variants (0 refused by the compiler); 1 compiled' $T/.out)" \
        "2 variants (0 refused by the compiler); 1 compiled"
    check "tuner space says so" $TUNER space $T/dd/s.yaml
    same "macros: none" "$(grep '^macros:' $T/.out)" "macros:      none (not given, and the source names no parameter)"
    # its identity is what it was when every parameter was a macro: the same as the space that
    # lists them (results stored before keep their kernel)
    hd=$(grep -o 'kernel hash [0-9a-f]*' $T/.out)
    sed 's/^  function: k$/  function: k\n  defines: { width: width }/' $T/dd/s.yaml > $T/dd/explicit.yaml
    same "the kernel hash of the default defines is the listed ones'" \
        "$($TUNER space $T/dd/explicit.yaml | grep -o 'kernel hash [0-9a-f]*')" "$hd"
    # without kernel.family the space's folder names the kernel, however the path is given: run
    # inside the folder it was 'user' while the worker (an absolute path) said 'dd', and every
    # GPU run of it stopped
    same "the folder names the kernel" "$(sed -n '1s/.*(kernel \([a-z_]*\),.*/\1/p' $T/.out)" "dd"
    same "... given the file from inside it too" \
        "$(cd $T/dd && "$(realpath "$OLDPWD/$TUNER" 2>/dev/null || echo "$TUNER")" space s.yaml | sed -n '1s/.*(kernel \([a-z_]*\),.*/\1/p')" "dd"
    printf '%s\n' '__device__ int tiles(int n, int width) { return (n + width - 1) / width; }' >> $T/dd/k.cu
    check "named by a variable of the code: tuner space shows the macro" $TUNER space $T/dd/s.yaml
    same "macros: -Dwidth" "$(grep '^macros:' $T/.out)" "macros:      -Dwidth=width  (not given: the parameters the source names)"
    check_fails "... and the compile breaks" 2 $TUNER compile $T/dd/s.yaml --cc 9.0 --cache $T/c
    grep -q "(kernel.defines is not given, so each parameter the source names is passed as a macro: -Dwidth=...; where one is also a name in the code, list the macros in kernel.defines, or write defines: {} for none)" $T/.out
    same "the refusal says which macros the default passed, and what to do" "$?" "0"
    sed -i 's/^  function: k$/  function: k\n  defines: {}/' $T/dd/s.yaml
    check "with defines: {} it compiles" $TUNER compile $T/dd/s.yaml --cc 9.0 --cache $T/c
    # code written for an older CUDA: a texture reference (CUDA 12 removed them) is refused by
    # both compilers with what replaces it; host code calling cudaThreadSynchronize gets the -D
    # that maps it, and one reading a removed cudaDeviceProp member says no option can
    mkdir -p $T/old
    printf '%s\n' 'texture<float, 1, cudaReadModeElementType> tex_x;' \
        '__global__ void k(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = tex1Dfetch(tex_x, i); }' > $T/old/k.cu
    sed '/defines: {}/d' $T/dd/s.yaml > $T/old/s.yaml   # the default: no parameter named
    check_fails "a texture reference, NVRTC" 2 $TUNER compile $T/old/s.yaml --cc 9.0 --cache $T/c
    grep -q "k.cu(1) declares a texture reference (texture<T, dim, mode>), which CUDA 12 removed: neither nvcc nor NVRTC compiles it; the kernel must read through a cudaTextureObject_t parameter, which a \`texture:\` argument of the space gives" $T/.out
    same "... says what replaces it" "$?" "0"
    grep -q "kernel.defines is not given" $T/.out
    same "... and no hint about macros it did not pass" "$?" "1"
    check_fails "a texture reference, nvcc" 2 $TUNER compile $T/old/s.yaml --cc 9.0 --cache $T/c --compiler nvcc
    grep -q "declares a texture reference" $T/.out
    same "... the same hint" "$?" "0"
    printf '%s\n' '__global__ void k(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f; }' \
        'void run(float *y, int n) { k<<<1, 32>>>(y, n); cudaThreadSynchronize(); }' > $T/old/k.cu
    check_fails "cudaThreadSynchronize in host code, nvcc" 2 $TUNER compile $T/old/s.yaml --cc 9.0 --cache $T/c --compiler nvcc
    grep -q 'kernel.options: \["-DcudaThreadSynchronize=cudaDeviceSynchronize"\] maps it' $T/.out
    same "... the option that maps it" "$?" "0"
    sed -i 's/^  function: k$/  function: k\n  options: ["-DcudaThreadSynchronize=cudaDeviceSynchronize"]/' $T/old/s.yaml
    check "... which compiles" $TUNER compile $T/old/s.yaml --cc 9.0 --cache $T/c --compiler nvcc
    printf '%s\n' 'int clock_khz() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); return p.clockRate; }' >> $T/old/k.cu
    check_fails "a removed cudaDeviceProp member in host code" 2 $TUNER compile $T/old/s.yaml --cc 9.0 --cache $T/c --compiler nvcc
    grep -q "reads cudaDeviceProp's clockRate, which CUDA 13 removed, and no option maps a member" $T/.out
    same "... says so" "$?" "0"
    # what nvcc's implicit <math.h> gives device code, NVRTC gets too: INFINITY, NAN, M_PI
    printf '%s\n' '__global__ void k(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; float m = -INFINITY; if (i < n) y[i] = fmaxf(m, (float)M_PI) + (isnan(NAN) ? 0.f : 1.f); }' > $T/old/k.cu
    sed -i '/cudaThreadSynchronize/d' $T/old/s.yaml
    check "INFINITY, NAN and M_PI under NVRTC" $TUNER compile $T/old/s.yaml --cc 9.0 --cache $T/c
    # a parameter named only in a header found through an -I of kernel.options is a macro too
    # (and that header is part of the kernel's identity)
    mkdir -p $T/di/inc
    printf '%s\n' '#ifndef TILE' '#define TILE 4' '#endif' '#define SCALE (TILE * 2.0f)' > $T/di/inc/cfg.h
    printf '%s\n' '#include "cfg.h"' '__global__ void k(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = SCALE; }' > $T/di/k.cu
    sed "s|  block: \[width\]|  block: [width]\n  options: [\"-I$T/di/inc\"]|; s|  width: { values: \[32, 64\] }|  width: { values: [32, 64] }\n  TILE: { values: [1, 2] }|; s|config: { width: 32 }|config: { width: 32, TILE: 1 }|" \
        $T/dd/s.yaml | sed '/defines: {}/d' > $T/di/s.yaml
    check "tuner space over a header under an option's -I" $TUNER space $T/di/s.yaml
    same "TILE is a macro" "$(grep '^macros:' $T/.out)" "macros:      -DTILE=TILE  (not given: the parameters the source names)"
    h1=$(grep -o 'kernel hash [0-9a-f]*' $T/.out)
    echo '// an edit' >> $T/di/inc/cfg.h
    h2=$($TUNER space $T/di/s.yaml | grep -o 'kernel hash [0-9a-f]*')
    [ -n "$h1" ] && [ "$h1" != "$h2" ]; same "editing that header changes the kernel hash" "$?" "0"

    # init values that are expressions of the problem (an index buffer in [0, m - 1]); a
    # parameter there is refused (the contents are the same for every config), and a range that
    # one problem reverses names the problem
    GI=tests/gpu/user/gather_index.yaml
    check "init values as expressions of the problem" $TUNER compile $GI --cc 9.0 --cache $T/c
    check "tuner space shows them" $TUNER space $GI
    same "as written" "$(grep -o 'idx .*' $T/.out)" "idx          buffer i32 n  (random [0, m - 1])"
    mkdir -p $T/gi && cp tests/gpu/user/gather_index.* $T/gi/
    sed -i 's/random: \[0, m - 1\]/random: [0, block]/' $T/gi/gather_index.yaml
    check_fails "a parameter in an init value" 2 $TUNER space $T/gi/gather_index.yaml
    same "says why" "$(head -n 1 $T/.out)" \
        "$T/gi/gather_index.yaml:10:63: error: kernel.args idx.init.random: parameter 'block' is not in scope here (the contents of a buffer are the same for every config: its init sees the problem, dtype and device only)"
    sed -i 's/random: \[0, block\]/random: [0, m - 8]/' $T/gi/gather_index.yaml
    check_fails "a range one problem reverses" 2 $TUNER compile $T/gi/gather_index.yaml --cc 9.0 --cache $T/c
    same "names the problem" "$(head -n 1 $T/.out)" \
        "$T/gi/gather_index.yaml:10:63: error: kernel.args idx: init.random: lo (0) is greater than hi (-1) (f32 m=7,n=1000003)"

    # a define the source #defines again (cuda-samples' transpose: #define TILE_DIM 32) never
    # reaches the kernel: stopped, whether the first config is the source's value or not
    mkdir -p $T/rd
    printf '%s\n' '#define TILE 32' '__global__ void fill(float *y) { y[blockIdx.x * TILE + threadIdx.x] = TILE; }' > $T/rd/k.cu
    printf '%s\n' 'kernel:' '  source: k.cu' '  function: fill' '  defines: { TILE: tile }' '  args:' \
        '    - { name: y, buffer: f32, count: n, output: true }' '  grid: [n / tile]' '  block: [tile]' \
        'reference:' '  config: { tile: 32 }' 'problems:' '  - { n: 4096 }' 'params:' \
        '  tile: { values: [32, 64] }' > $T/rd/s.yaml
    rd_msg="error: kernel.defines TILE does not reach the kernel: the source #defines it itself (k.cu:1), and its value wins over -DTILE=... (the compiler warns of the redefinition), so every config would compile the same kernel; leave TILE out of the defines, or guard the source's #define with #ifndef"
    check_fails "a define the source overrides (the first config agrees with it)" 1 $TUNER compile $T/rd/s.yaml --cc 9.0 --cache $T/c
    same "names the define and where the source defines it" "$(head -n 1 $T/.out)" "$T/rd/s.yaml:4:20: $rd_msg"
    sed -i 's/values: \[32, 64\]/values: [64, 32]/' $T/rd/s.yaml
    check_fails "... (the first config differs: found before anything runs)" 2 $TUNER compile $T/rd/s.yaml --cc 9.0 --cache $T/c
    same "the same line" "$(head -n 1 $T/.out)" "$T/rd/s.yaml:4:20: $rd_msg"
    # Rodinia's block sizes: the #define is the #else of an #ifdef that sets it from another
    # macro, which is the one to define; every define the source overrides is named, nvcc's
    # places as NVRTC's
    cp $T/rd/k.cu $T/rd/k0.cu
    printf '%s\n' '#ifdef RD_WG_SIZE_0_0' '  #define TILE RD_WG_SIZE_0_0' '#elif defined(RD_WG_SIZE)' \
        '  #define TILE RD_WG_SIZE' '#else' '  #define TILE 32' '#endif' '#define SCALE 2' \
        '__global__ void fill(float *y) { y[blockIdx.x * TILE + threadIdx.x] = TILE * SCALE; }' > $T/rd/k.cu
    sed -i 's/defines: { TILE: tile }/defines: { TILE: tile, SCALE: 3 }/' $T/rd/s.yaml
    for cc in nvrtc nvcc; do
        check_fails "the #else of an #ifdef ($cc)" 2 $TUNER compile $T/rd/s.yaml --cc 9.0 --cache $T/c --compiler $cc
        same "... names both, and the macro to define instead" "$(head -n 1 $T/.out)" \
            "$T/rd/s.yaml:4:20: error: kernel.defines TILE and SCALE do not reach the kernel: the source #defines each itself (TILE k.cu:6, SCALE k.cu:8), and its value wins over -DTILE=... (the compiler warns of the redefinition), so every config would compile the same kernel; k.cu:6 is the #else of k.cu:1's #if on RD_WG_SIZE_0_0, whose branch sets TILE from it: defining RD_WG_SIZE_0_0 instead (kernel.defines) sets TILE; leave them out of the defines, or guard the source's #defines with #ifndef"
    done
    sed -i 's/defines: { TILE: tile, SCALE: 3 }/defines: { RD_WG_SIZE_0_0: tile }/' $T/rd/s.yaml
    check "... and defining that one compiles" $TUNER compile $T/rd/s.yaml --cc 9.0 --cache $T/c
    sed -i 's/defines: { RD_WG_SIZE_0_0: tile }/defines: { TILE: tile }/' $T/rd/s.yaml
    mv $T/rd/k0.cu $T/rd/k.cu
    sed -i 's/^#define TILE 32/#ifndef TILE\n#define TILE 32\n#endif/' $T/rd/k.cu
    check "guarded with #ifndef, it compiles" $TUNER compile $T/rd/s.yaml --cc 9.0 --cache $T/c

    # a buffer that fills a __constant__ variable (symbol:) against the variable's size in the
    # cubin (cuda-samples' convolutionSeparable: c_Kernel[17] given 18 floats would overflow on
    # the GPU): stopped before anything runs, with either compiler; fewer than it holds (a
    # partial cudaMemcpyToSymbol) compile; a later problem's count, and each config's variable
    # where a define sizes it, are held against it too
    mkdir -p $T/sym
    printf '%s\n' '#define KW 17' '__constant__ float c_Kernel[KW];' \
        '__global__ void conv(float *y, const float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float s = 0; for (int k = 0; k < KW; k++) s += c_Kernel[k] * x[i]; y[i] = s; } }' > $T/sym/k.cu
    printf '%s\n' 'kernel:' '  source: k.cu' '  function: conv' '  args:' \
        '    - { name: y, buffer: f32, count: n, output: true }' \
        '    - { name: x, buffer: f32, count: n, init: { random: [-1, 1] } }' \
        '    - { name: n_arg, scalar: i32, value: n }' \
        '    - { name: taps, buffer: f32, count: taps, init: { random: [-1, 1] }, symbol: c_Kernel }' \
        '  grid: ["ceil_div(n, block)"]' '  block: [block]' 'reference:' '  config: { block: 128 }' \
        'problems:' '  - { n: 4096, taps: 18 }' 'params:' '  block: { values: [128, 256] }' > $T/sym/s.yaml
    SYM_CCS=nvrtc
    if command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then SYM_CCS="nvrtc nvcc"; fi
    for cc in $SYM_CCS; do
        check_fails "18 floats for c_Kernel[17] ($cc)" 2 $TUNER compile $T/sym/s.yaml --cc 9.0 --cache $T/c --compiler $cc
        same "names the buffer, the variable and both sizes ($cc)" "$(head -n 1 $T/.out)" \
            "$T/sym/s.yaml:8:41: error: kernel.args taps: 18 elements of f32 (72 bytes) for variable c_Kernel, which holds 68 bytes (f32 n=4096,taps=18, config block=128)"
    done
    sed -i 's/taps: 18 }/taps: 17 }\n  - { n: 4096, taps: 5 }/' $T/sym/s.yaml
    for cc in $SYM_CCS; do
        check "17 and 5 floats for c_Kernel[17] ($cc)" $TUNER compile $T/sym/s.yaml --cc 9.0 --cache $T/c --compiler $cc
    done
    sed -i 's/taps: 5 }/taps: 20 }/' $T/sym/s.yaml
    check_fails "a later problem's 20 floats (found as its task begins, at the reference)" 2 $TUNER compile $T/sym/s.yaml --cc 9.0 --cache $T/c
    same "the same line, for that problem" "$(head -n 1 $T/.out)" \
        "$T/sym/s.yaml:8:41: error: kernel.args taps: 20 elements of f32 (80 bytes) for variable c_Kernel, which holds 68 bytes (f32 n=4096,taps=20, config block=128)"
    # the variable's size set by a define: each config's own cubin is held against the count
    sed -i 's/taps: 20 }/taps: 16 }/; s/^#define KW 17/#ifndef KW\n#define KW 17\n#endif/' $T/sym/s.yaml $T/sym/k.cu
    sed -i "s/  block: \[block\]/  block: [block]\n  defines: { KW: kw }/; s/config: { block: 128 }/config: { block: 128, kw: 17 }/; s/  block: { values: \[128, 256\] }/  block: { values: [128, 256] }\n  kw: { values: [17, 16] }/" $T/sym/s.yaml
    check_fails "a config whose c_Kernel[16] is one short (found as its variant is built)" 1 $TUNER compile $T/sym/s.yaml --cc 9.0 --cache $T/c
    same "names that config" "$(head -n 1 $T/.out)" \
        "$T/sym/s.yaml:8:41: error: kernel.args taps: 17 elements of f32 (68 bytes) for variable c_Kernel, which holds 64 bytes (f32 n=4096,taps=17, config block=128,kw=16)"

    # __launch_bounds__(128) with blocks of 256: the GPU would refuse the launch, so the config is
    # unsupported before anything runs (the PTX's .maxntid, kept in the cache's meta file), with
    # either compiler; a reference config past the bounds stops the run
    mkdir -p $T/lb
    printf '%s\n' '__global__ void __launch_bounds__(128) twice(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] *= 2.0f; }' > $T/lb/k.cu
    printf '%s\n' 'kernel:' '  source: k.cu' '  function: twice' '  args:' \
        '    - { name: y, buffer: f32, count: n, init: { random: [-1, 1] }, output: true }' \
        '    - { name: n_arg, scalar: i32, value: n }' \
        '  grid: ["ceil_div(n, block)"]' '  block: [block]' 'reference:' '  config: { block: 128 }' \
        'problems:' '  - { n: 4096 }' 'params:' '  block: { values: [128, 256] }' > $T/lb/s.yaml
    for cc in $SYM_CCS; do
        check "__launch_bounds__(128), blocks of 128 and 256 ($cc)" $TUNER compile $T/lb/s.yaml --cc 9.0 --cache $T/c --compiler $cc
        same "the block of 256 is beyond the limits ($cc)" "$(grep -o '2 variants (0 refused by the compiler, 1 beyond the device.s limits)' $T/.out)" \
            "2 variants (0 refused by the compiler, 1 beyond the device's limits)"
        same "... naming the bounds ($cc)" "$(grep '^unsupported' $T/.out)" \
            "unsupported: f32 n=4096 block=256: __launch_bounds__(128) of twice allows 128 threads a block; this config launches 256"
    done
    check "again, from the cache" $TUNER compile $T/lb/s.yaml --cc 9.0 --cache $T/c
    same "the same answer (the bounds are in the cache's meta file)" "$(grep -c '^unsupported: f32 n=4096 block=256: __launch_bounds__(128)' $T/.out)" "1"
    sed -i 's/config: { block: 128 }/config: { block: 256 }/' $T/lb/s.yaml
    check_fails "a reference config past the bounds" 2 $TUNER compile $T/lb/s.yaml --cc 9.0 --cache $T/c
    same "says the reference cannot run" "$(head -n 1 $T/.out)" \
        "$T/lb/s.yaml:10:3: error: the reference cannot run for f32 n=4096: __launch_bounds__(128) of twice allows 128 threads a block; this config launches 256"

    # tensor maps: the TMA kernel compiles with both compilers (NVRTC's <cuda.h> from memory);
    # a row stride TMA cannot take, a box too narrow, and a GPU without TMA are refused first
    check "a TMA kernel compiles with NVRTC" $TUNER compile tests/gpu/user/tma_scale.yaml --cc 9.0 --cache $T/c
    mkdir -p $T/tma && cp tests/gpu/user/tma_scale.* $T/tma/
    sed -i 's/ld: 1004 }/ld: 1003 }/' $T/tma/tma_scale.yaml
    check_fails "a leading dimension of 1003 floats" 2 $TUNER compile $T/tma/tma_scale.yaml --cc 9.0 --cache $T/c
    same "says TMA needs 16-byte strides" "$(head -n 1 $T/.out)" \
        "$T/tma/tma_scale.yaml:12:66: error: kernel.args tmap: dimension 1 of the tensor map over x starts every 1003 elements (4012 bytes): TMA needs a multiple of 16 bytes below 2^40 (f32 cols=1001,ld=1003,rows=1000)"
    cp tests/gpu/user/tma_scale.yaml $T/tma/
    sed -i 's/bx:        { values: \[32, 64\] }/bx:        { values: [32, 2] }/' $T/tma/tma_scale.yaml
    check "a box of 2 floats in some configs" $TUNER compile $T/tma/tma_scale.yaml --cc 9.0 --cache $T/c
    same "those configs are unsupported, the rest compile" "$(grep -o '16 variants (0 refused by the compiler, 8 beyond the device.s limits)' $T/.out)" \
        "16 variants (0 refused by the compiler, 8 beyond the device's limits)"
    grep -q "unsupported: f32 cols=1001,ld=1004,rows=1000 bx=2,by=8,threads_y=4: tensor map tmap: a box 2 elements wide (8 bytes) over x: TMA needs the innermost box dimension to be a multiple of 16 bytes" $T/.out
    same "says why, per config" "$?" "0"
    sed -i 's/config: { bx: 32, by: 8/config: { bx: 2, by: 8/' $T/tma/tma_scale.yaml
    check_fails "... but the reference config must run" 2 $TUNER compile $T/tma/tma_scale.yaml --cc 9.0 --cache $T/c
    check_fails "TMA on a GPU below 9.0" 2 $TUNER compile tests/gpu/user/tma_scale.yaml --cc 8.0 --cache $T/c
    same "says so" "$(head -n 1 $T/.out)" \
        "tests/gpu/user/tma_scale.yaml:12:7: error: kernel.args tmap: tensor maps (TMA) need compute capability 9.0; this GPU is 8.0"

    # texture arguments: the corpus's texture_resize compiles; a texture larger than its buffer
    # is refused before anything is compiled
    mkdir -p $T/tex && cp tests/corpus/texture_resize/texture_resize.* $T/tex/
    sed -i 's/dims: \[src_w, src_h\]/dims: [src_w + 1, src_h]/' $T/tex/texture_resize.yaml
    check_fails "a texture larger than its buffer" 2 $TUNER compile $T/tex/texture_resize.yaml --cc 9.0 --cache $T/c
    same "says how many elements it needs" "$(head -n 1 $T/.out)" \
        "$T/tex/texture_resize.yaml:14:43: error: kernel.args src: a texture of 1921 x 1080 x 1 texels of 1 element needs 2074680 elements, and buffer image has 2073600 (f32 dst_h=720,dst_w=1280,src_h=1080,src_w=1920)"
    check_fails "a GPU below 9.0 has no sm_80a" 2 $TUNER compile $AS --cc 8.0 --cache $T/c
    same "says where and why" "$(head -n 1 $T/.out)" \
        "$AS:9:16: error: kernel.arch_suffix: a: sm_80a does not exist (architecture-specific features start at compute capability 9.0; this GPU is 8.0)"
else
    echo "user: NVRTC not found, compile checks skipped: $(head -n 1 $T/probe.out)"
fi

# ---- what needs the device: the H100 of the committed dump ----
check "the examples check against the recorded H100" $TUNER space examples/vector/saxpy.yaml --backend "$H100"
cp examples/vector/*saxpy* $T/bad/ 2>/dev/null || { mkdir -p $T/bad; cp examples/vector/*saxpy* $T/bad/; }
sed -i 's/count: n, init: { random: \[-1, 1\] }, output/count: n - 2 * n, init: { random: [-1, 1] }, output/' $T/bad/saxpy.yaml
check_fails "a negative count" 2 $TUNER space $T/bad/saxpy.yaml --backend "$H100"
same "names the expression and its value" "$(head -n 1 $T/.out)" \
    "$T/bad/saxpy.yaml:9:38: error: kernel.args y.count: 'n - 2 * n' is -1048576, below the least allowed, 1 (f32 n=1048576, config block_size=128,items=1)"
cp examples/vector/saxpy.yaml $T/bad/
sed -i 's/count: n, init: { random: \[-1, 1\] } }/count: n * n * n * n, init: { random: [-1, 1] } }/' $T/bad/saxpy.yaml
check_fails "a count that overflows" 2 $TUNER space $T/bad/saxpy.yaml --backend "$H100"
same "says where it overflows" "$(head -n 1 $T/.out)" "$T/bad/saxpy.yaml:10:48: error: integer overflow in '*'"
cp examples/vector/saxpy.yaml $T/bad/
sed -i 's/count: n, init: { random: \[-1, 1\] } }/count: n * 100000, init: { random: [-1, 1] } }/' $T/bad/saxpy.yaml
check_fails "more memory than the GPU has" 2 $TUNER space $T/bad/saxpy.yaml --backend "$H100"
same "says how much" "$(head -n 1 $T/.out)" \
    "$T/bad/saxpy.yaml:10:38: error: kernel.args: the buffers need 419.44 GB (with the reference's copies of the outputs; the largest, x, 419.43 GB), the GPU has 85.02 GB (f32 n=1048576, config block_size=128,items=1)"
cp examples/vector/saxpy.yaml $T/bad/
sed -i 's/  block_size: { pow2: \[64, 1024\] }/  block_size: { pow2: [64, 2048] }/' $T/bad/saxpy.yaml
check "a block beyond the device is not an error of the space" $TUNER space $T/bad/saxpy.yaml --backend "$H100"
same "it says how many configs the device excludes, and the first" "$(grep '^device:' $T/.out)" \
    "device:      8 of the 48 configs exceed the limits of NVIDIA H100 80GB HBM3 (recorded unsupported, not run); the first: f32 n=1048576 block_size=2048,items=1: block.x is 2048: a block may be at most 1024 threads along x"
check "without a device, those of a compute capability 9.0 GPU" $TUNER space $T/bad/saxpy.yaml
same "the same count" "$(grep -o '^device:      8 of the 48 configs exceed the limits of a compute capability 9.0 GPU' $T/.out)" \
    "device:      8 of the 48 configs exceed the limits of a compute capability 9.0 GPU"
check "the run records them unsupported and goes on" $TUNER run $T/bad/saxpy.yaml --backend "$H100" --db $T/wide.db --strategy exhaustive
same "8 unsupported rows, the rest replayed" "$(grep -o '8 unsupported' $T/.out)" "8 unsupported"
cp examples/vector/saxpy.yaml $T/bad/
sed -i 's/  grid: \["ceil_div(n, block_size \* items)"\]/  grid: [1, "n"]/' $T/bad/saxpy.yaml
check_fails "a grid beyond the device" 2 $TUNER space $T/bad/saxpy.yaml --backend "$H100"
same "names the grid: the reference config must run" "$(head -n 1 $T/.out)" \
    "$T/bad/saxpy.yaml:13:14: error: grid.y is 1048576: a grid may be at most 65535 blocks along y (f32 n=1048576, the reference config block_size=128,items=1: the reference must run)"
check_fails "run refuses it before writing" 2 $TUNER run $T/bad/saxpy.yaml --backend "$H100" --db $T/none.db
[ ! -e $T/none.db ]; same "no database written" "$?" "0"

# ---- replay of the committed measurements ----
for s in saxpy scale_shift; do
    check "replay $s from the H100 dump" $TUNER run examples/vector/$s.yaml --backend "$H100" --db $T/r.db -q
done
check "import the dump itself" $TUNER db import $DUMP --db $T/d.db -q
same "every recorded evaluation replayed" \
    "$(sql $T/r.db "select count(*), sum(status = 'ok') from evaluations")" \
    "$(sql $T/d.db "select count(*), sum(status = 'ok') from evaluations")"
same "the same winners as recorded" "$(sql $T/r.db "select op, dtype, shape, config from best order by 1, 2, 3")" \
    "$(sql $T/d.db "select op, dtype, shape, config from best order by 1, 2, 3")"

# ---- the header for the user's program ----
mkdir -p $T/inc
check "header from the committed dump" $TUNER header --space examples/vector/saxpy.yaml -o $T/inc/saxpy_tuned.h
check "header --check on it" $TUNER header --space examples/vector/saxpy.yaml -o $T/inc/saxpy_tuned.h --check
best_small=$(sql $T/d.db "select config from best where op = 'vector.saxpy' and shape = 'n=1048576'")
best_large=$(sql $T/d.db "select config from best where op = 'vector.saxpy' and shape = 'n=16777216'")
cat > $T/use.c <<'EOF'
#include <stdio.h>
#include "saxpy_tuned.h"
int main(void)
{
    long long small[1] = {1000000}, large[1] = {20000000};
    const vector_saxpy_tuned *a = vector_saxpy_lookup("NVIDIA H100 80GB HBM3", 9, 0, 132, "f32", small);
    const vector_saxpy_tuned *b = vector_saxpy_lookup("NVIDIA H100 80GB HBM3", 9, 0, 132, "f32", large);
    const vector_saxpy_tuned *c = vector_saxpy_lookup("NVIDIA H100 PCIe", 9, 0, 114, "f32", large);
    const vector_saxpy_tuned *d = vector_saxpy_lookup("NVIDIA H100 80GB HBM3", 9, 0, 132, "f16", large);
    printf("%s|%s|%s|%s|%s\n", a->config, b->config, c->config, d ? "found" : "none", b->options);
#ifdef VECTOR_SAXPY_TUNED_block_size
    printf("block_size=%lld,items=%lld|%s\n", (long long)VECTOR_SAXPY_TUNED_block_size,
           (long long)VECTOR_SAXPY_TUNED_items, VECTOR_SAXPY_TUNED_OPTIONS);
#endif
    return 0;
}
EOF
check "a C program compiles with it" cc -std=c99 -Wall -Wextra -Werror -I$T/inc -o $T/use $T/use.c -lm
blk=${best_large#block_size=}; blk=${blk%%,*}; itm=${best_large##*items=}
same "run time: nearest problem, nearest device, no f16" "$($T/use)" \
    "$best_small|$best_large|$best_large|none|-DBLOCK=$blk -DITEMS=$itm"
check "a C++ program compiles with it, one device chosen at compile time" \
    c++ -Wall -Wextra -Werror -x c++ -DVECTOR_SAXPY_DEVICE_NVIDIA_H100_80GB_HBM3 -I$T/inc -o $T/use2 $T/use.c
same "compile time: the largest problem's winner" "$($T/use2 | tail -n 1)" "$best_large|-DBLOCK=$blk -DITEMS=$itm"
check_fails "no header for a kernel never measured" 1 $TUNER header --space tests/cases/valid/user_every_key.yaml -o $T/none.h
[ ! -e $T/none.h ]; same "nothing written" "$?" "0"
check_fails "header --space refuses a built-in family" 2 $TUNER header --space spaces/elementwise.yaml -o $T/none.h

# the examples' committed report is what their committed measurements give
check "report the examples" $TUNER report -o $T/exrep examples/gemm/results/nvidia-h100-80gb-hbm3.sql.xz \
    examples/conv2d/results/nvidia-h100-80gb-hbm3.sql.xz examples/softmax/results/nvidia-h100-80gb-hbm3.sql.xz \
    examples/vector/results/nvidia-h100-80gb-hbm3.sql.xz -q
check "examples/report is current (regenerate: see examples/README.md)" diff -r $T/exrep examples/report
finish

#!/usr/bin/env bash
# capture.sh: libtunekit's capture without a GPU (docs/runtime.md, "Capturing launches"), and the
# space files it writes (`base:` and `inputs:`, docs/user-kernels.md). tests/fixtures/
# runtime_capture.c captures saxpy from host copies: the folder of n = 1000 with x.bin, y.bin
# and space.yaml, kept as first written when captured again; FAILED for a NaN scalar, a NULL
# buffer and a struct passed by value, SKIPPED over the limit; a reference of files turned into the launched config. The
# tuner loads the capture with the base's kernel (the same kernel hash: its results serve the
# base's header), and refuses malformed ones with a one-line error.
source "$(dirname "$0")/lib.sh"
if [ -z "${CUDA_HOME:-}" ]; then
    CUDA_HOME=/usr/local/cuda
    nvcc=$(command -v nvcc) && CUDA_HOME=$(dirname "$(dirname "$nvcc")")
fi
mkdir -p $T/inc
check "saxpy's header" $TUNER header --space examples/vector/saxpy.yaml -o $T/inc/saxpy_tuned.h
check "the capture fixture builds" \
    cc -std=c11 -Wall -Wextra -Werror -I$T/inc -Ikernels -I"$CUDA_HOME/include" \
        tests/fixtures/runtime_capture.c build/libtunekit.a -L"$CUDA_HOME/lib64" -lcudart_static \
        -lstdc++ -lm -ldl -lpthread -lrt -o $T/cap
check "it runs" $T/cap $T/c
cp $T/.out $T/cap.out
line() { sed -n "/^$1: /p" $T/cap.out; }
C=$T/c/vector.saxpy
same "n = 1000 is captured" "$(line n=1000)" "n=1000: ok"
same "its folder: the inputs and the space" "$(cd $C/f32-n=1000 && ls | tr '\n' ' ')" "space.yaml x.bin y.bin "
same "x.bin: 1000 floats" "$(stat -c %s $C/f32-n=1000/x.bin)" "4000"
same "x[0..3] as the program had them" "$(od -An -tf4 -N16 $C/f32-n=1000/x.bin | xargs)" "0 1 2 3"
same "y is read by the kernel (y = a x + y): kept" "$(od -An -tf4 -N8 $C/f32-n=1000/y.bin | xargs)" "1 1"
same "the scalars' values" "$(grep -E '^  (a|n):' $C/f32-n=1000/space.yaml | xargs)" \
    "a: { value: 2.5 } n: { value: 1000 }"
same "the base is the kernel's own space, absolute" "$(grep '^base:' $C/f32-n=1000/space.yaml)" \
    "base: \"$PWD/examples/vector/saxpy.yaml\""
same "captured again: ok" "$(line again)" "again: ok"
same "... and kept as first written" "$(od -An -tf4 -N4 $C/f32-n=1000/x.bin | xargs)" "0"
same "a NaN scalar fails, saying why" "$(line nan)" \
    "nan: invalid argument vector.saxpy: capture FAILED ($C/f32-n=7): scalar a: nan (a space file's number is finite)"
same "... in its folder, alone" "$(ls $C/f32-n=7)" "FAILED"
same "a NULL buffer fails" "$(line null | sed 's/.*: //')" "a NULL host pointer"
same "... and leaves nothing half-written" "$(ls $C/f32-n=8)" "FAILED"
same "over the limit: skipped" "$(line over | cut -d: -f1,3-)" \
    "over: capture SKIPPED ($C/f32-n=500): the inputs are 4000 bytes, over the limit of 100 (TUNEKIT_CAPTURE_MAX_BYTES, or tk_kernel_capture's max_bytes)"
same "no temporary folder is left" "$(ls -a $C | grep -c '^\.f32')" "0"
same "a dtype the kernel does not have" "$(line 'bad dtype')" "bad dtype: invalid argument vector.saxpy: no dtype 'f16'"
same "a struct passed by value is not captured, saying why" "$(line struct)" \
    "struct: invalid argument vector.saxpy: capture FAILED ($C/f32-n=10): a is a struct passed by value: a capture keeps scalars and buffers, not a struct's fields"
same "nor a texture object" "$(line texture)" \
    "texture: invalid argument vector.saxpy: capture FAILED ($C/f32-n=12): a is a texture object: a capture keeps scalars and buffers, not what a texture reads"
same "nor a tensor map" "$(line tensor_map)" \
    "tensor_map: invalid argument vector.saxpy: capture FAILED ($C/f32-n=13): a is a tensor map: a capture keeps scalars and buffers, not what a tensor map reads"
same "... in its folder, alone" "$(ls $C/f32-n=10)" "FAILED"
same "a pointer argument (a buffer passed again) is captured" "$(line pointer)" "pointer: ok"
same "... without a file or a value of its own" "$(cd $C/f32-n=11 && ls | tr '\n' ' '; grep -c '^  x:' space.yaml)" \
    "space.yaml y.bin 0"
same "a reference of files becomes the launched config" \
    "$(sed -n '/^reference:/,/^inputs:/p' $C/f32-n=9/space.yaml | sed -n 2p)" "  config: { block_size: 128, items: 1 }"

# the tuner reads a capture as the base's kernel on the captured problem and data
check "tuner space reads the capture" $TUNER space $C/f32-n=1000/space.yaml --cc 9.0
same "the base's kernel" "$(grep -o 'kernel hash [0-9a-f]*' $T/.out)" \
    "$($TUNER space examples/vector/saxpy.yaml --cc 9.0 | grep -o 'kernel hash [0-9a-f]*')"
same "the captured problem only" "$(sed -n '/^problems:/,/^params/p' $T/.out | sed -n 2p | xargs)" "n=1000"
same "x from its file" "$(grep -E '^  x ' $T/.out | grep -o '(from .*)')" "(from $C/f32-n=1000/x.bin)"
same "the base is said" "$(grep '^base:' $T/.out)" \
    "base:        $PWD/examples/vector/saxpy.yaml (this file's problems and inputs over it)"
check "the reference-files capture loads" $TUNER space $C/f32-n=9/space.yaml --cc 9.0
check "a header from the capture" $TUNER header --space $C/f32-n=1000/space.yaml -o $T/h.h
same "names the base as the space a capture extends" "$(grep -o '"[^"]*saxpy.yaml"' $T/h.h)" \
    "\"$PWD/examples/vector/saxpy.yaml\""

# malformed captures: one line each, exit 2
mkdir -p $T/e
cp $C/f32-n=1000/x.bin $T/e/
bad() {   # NAME WANT YAML
    printf '%s\n' "$3" >$T/e/$1.yaml
    check_fails "$1: exit 2" 2 $TUNER space $T/e/$1.yaml --cc 9.0
    same "$1: the error" "$(sed "s|$T/e/||g" $T/.out)" "$2"
}
S=$PWD/examples/vector/saxpy.yaml
bad noroot "noroot.yaml:3:9: error: inputs: only a space with a base: has inputs" \
'problems: [{n: 4}]
params: {b: {values: [1]}}
inputs: {x: {file: x.bin}}'
bad missing "missing.yaml:1:7: error: base: nothere.yaml: cannot open: No such file or directory" \
'base: nothere.yaml'
bad builtin "builtin.yaml:1:7: error: base: only a user kernel's space may extend another" \
"base: $PWD/spaces/elementwise.yaml"
bad chain "chain.yaml:1:7: error: base: $C/f32-n=1000/space.yaml extends another space itself" \
"base: $C/f32-n=1000/space.yaml"
bad kernel "kernel.yaml:2:9: error: kernel: a space with a base: runs the base's kernel; change it there" \
"base: $S
kernel: {source: a.cu}"
bad noarg "noarg.yaml:2:10: error: inputs.q: the kernel has no argument 'q'" \
"base: $S
inputs: {q: {file: x.bin}}"
bad pure "pure.yaml:2:20: error: inputs.y: y is a pure output (nothing is read from it)" \
"base: $PWD/tests/corpus/template_scale/template_scale.yaml
inputs: {y: {file: x.bin}}"
bad both "both.yaml:2:13: error: inputs.x: give { file: PATH } for a buffer, { value: NUMBER } for a scalar" \
"base: $S
inputs: {x: {file: x.bin, value: 1}}"
bad scalarfile "scalarfile.yaml:2:13: error: inputs.a: give { file: PATH } for a buffer, { value: NUMBER } for a scalar" \
"base: $S
inputs: {a: {file: x.bin}}"
bad nofile "nofile.yaml:2:20: error: inputs.x: nope.bin: No such file or directory" \
"base: $S
inputs: {x: {file: nope.bin}}"
bad list "list.yaml:2:9: error: inputs: expected a mapping, found a list" \
"base: $S
inputs: [1]"
printf 'base: %s\nproblems: [{n: 4}]\ninputs: {a: {value: 1.5e-3}, x: {file: x.bin}}\n' "$S" >$T/e/ok.yaml
check "a hand-written one: a float in exponent form, a file beside it" $TUNER space $T/e/ok.yaml --cc 9.0
same "its value" "$(grep -E '^  a ' $T/.out | xargs)" "a scalar f32 1.5e-3"
finish

#!/usr/bin/env bash
# corpus.sh: the corpus of unedited nvcc-style kernels (tests/corpus/README.md) without a GPU.
# For every case: `tuner space` describes it, and `tuner compile` builds every variant with NVRTC
# and with nvcc (--compiler), each into a fresh cache, none refused by the compiler. The two
# cases whose host code only nvcc compiles (host_code_nvcc: main(), <vector>, <iostream>;
# dtype_by_macro: launchers that print) must be refused by NVRTC with exit 2 and a message that
# points to nvcc. The two cases whose blocks go
# past 1024 threads for some configs (blocks_2d, stencil_3d) must say, against the H100 of the
# committed dump, that the device excludes them.
# Needs the CUDA toolkit (nvcc and NVRTC): without nvcc the whole script is skipped.
source "$(dirname "$0")/lib.sh"
H100="replay:examples/vector/results/nvidia-h100-80gb-hbm3.sql.xz"

nvcc_at=$(command -v nvcc 2>/dev/null)
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    [ -z "$nvcc_at" ] && [ -n "$d" ] && [ -x "$d/bin/nvcc" ] && nvcc_at=$d/bin/nvcc
done
if [ -z "$nvcc_at" ]; then
    echo "corpus: skipped: nvcc not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)"
    finish
    exit
fi

# every case; the ones NVRTC cannot compile (a whole host program) are listed in nvcc_only
cases="cub_block_reduce printf_debug const_filter block_partials two_pass_reduce blocks_2d stencil_3d
       template_scale math_funcs host_code_nvcc stdint_limits coop_groups check_histogram assert_guard
       struct_params grid_sync cluster_reduce traits_absmax texture_resize dtype_by_macro"
nvcc_only=" host_code_nvcc dtype_by_macro "
beyond_device=" blocks_2d stencil_3d "
for c in $cases; do
    [ -f tests/corpus/$c/$c.yaml ] && [ -f tests/corpus/$c/$c.cu ]
    same "$c: tests/corpus/$c/ holds $c.cu and $c.yaml" "$?" "0"
done

for c in $cases; do
    y=tests/corpus/$c/$c.yaml
    check "$c: tuner space" $TUNER space $y
    case "$beyond_device" in *" $c "*)
        check "$c: tuner space against the H100" $TUNER space $y --backend "$H100"
        grep -Eiq 'device.*(limit|exclude)|exceed|beyond the device' $T/.out
        same "$c: the space says which configs the device excludes (more than 1024 threads a block)" "$?" "0"
    esac
    for comp in nvrtc nvcc; do
        cache=$(mktemp -d "$T/cache.XXXXXX")
        start=$SECONDS
        if [ "$comp" = nvrtc ] && [[ "$nvcc_only" == *" $c "* ]]; then
            check_fails "$c: NVRTC refuses a whole host program" 2 \
                $TUNER compile $y --compiler nvrtc --cache "$cache"
            # the case's own name holds "nvcc": look for the hint in the rest of the message
            sed "s/$c//g" $T/.out | grep -qi nvcc
            rc=$?
            same "$c: NVRTC's refusal points to nvcc: $(head -n 3 $T/.out | tr '\n' ' ' | head -c 300)" "$rc" "0"
            grep -q "(the space sets it: leave out --compiler nvrtc)" $T/.out
            same "$c: ... and, the space saying nvcc, to leave out the override" "$?" "0"
            continue
        fi
        check "$c: every variant compiles with $comp" $TUNER compile $y --compiler $comp --cache "$cache"
        refused=$(grep -Eo '[0-9]+ refused' $T/.out | sort -u | tr '\n' ' ')
        same "$c ($comp): no variant refused by the compiler" "$refused" "0 refused "
        [ -n "${CORPUS_VERBOSE:-}" ] && echo "corpus: $c $comp $((SECONDS - start)) s: $(grep -Eo '[0-9]+ variants.*compiled' $T/.out | head -n 1)"
    done
done
finish

#!/usr/bin/env bash
# build.sh [OUTPUT]: builds tk_gap (bench/pytorch_gap/tk_gap.cu), default build/pytorch_gap/tk_gap.
#   LIB=1 (the default when build/libtunekit.a exists): linked against build/libtunekit.a (seconds).
#   LIB=0, or no build/libtunekit.a: from the kernel sources it needs (index_add, relu_mask,
#        elementwise, launch.cu and three C files), for sm_90 only, the files compiled side by
#        side: a self-contained ~22 MB binary, minutes (relu_mask.cu alone is most of it). This is
#        the one to build on a CPU machine and carry to the GPU machine: the 57 MB libtunekit.a
#        does not fit a device call's 64 MiB beside the repository.
#   SHARED=1: the shared library judge.py loads (tk_gap.cu with -DTK_GAP_SHARED, position-
#        independent code), default output build/pytorch_gap/tk_gap.so; with LIB=1 linked against
#        the position-independent libtunekit.a objects of build/ (or of B=DIR).
set -eu -o pipefail
cd "$(dirname "$0")/../.."
shared=${SHARED:-0}
B=${B:-build}
if [ "$shared" = 1 ]; then out=${1:-build/pytorch_gap/tk_gap.so}; else out=${1:-build/pytorch_gap/tk_gap}; fi
NVCC=${NVCC:-nvcc}
CC=${CC:-gcc}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v "$NVCC")")")}
mkdir -p "$(dirname "$out")"
lib=${LIB:-}
[ -n "$lib" ] || { [ -f "$B/libtunekit.a" ] && lib=1 || lib=0; }
NVFLAGS=(-O3 -std=c++17 -arch=sm_90 -lineinfo -Ikernels -Ituner)
CFLAGS_PIC=()
LINK=()
if [ "$shared" = 1 ]; then
    NVFLAGS+=(-DTK_GAP_SHARED -Xcompiler -fPIC)
    CFLAGS_PIC=(-fPIC)
    LINK=(-shared)
fi
if [ "$lib" = 1 ]; then
    "$NVCC" "${NVFLAGS[@]}" "${LINK[@]}" -o "$out" bench/pytorch_gap/tk_gap.cu "$B/libtunekit.a"
    echo "build.sh: $out (against $B/libtunekit.a)"
    exit 0
fi
obj=$(mktemp -d "${TMPDIR:-/tmp}/tk_gap_obj.XXXXXX")
trap 'rm -rf "$obj"' EXIT
pids=()
for f in kernels/relu_mask.cu kernels/index_add.cu kernels/elementwise.cu kernels/launch.cu \
         bench/pytorch_gap/tk_gap.cu; do
    "$NVCC" "${NVFLAGS[@]}" -c -o "$obj/$(basename "$f" .cu).o" "$f" & pids+=($!)
done
for f in kernels/common.c kernels/tuned_lookup.c kernels/current_device.c; do
    "$CC" -O2 -std=c17 -D_GNU_SOURCE "${CFLAGS_PIC[@]}" -I"$CUDA_HOME/include" -Ikernels -c -o "$obj/$(basename "$f" .c).o" "$f" & pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
[ "$fail" = 0 ] || { echo "build.sh: a compile failed" >&2; exit 1; }
"$NVCC" -arch=sm_90 "${LINK[@]}" -o "$out" "$obj"/*.o
echo "build.sh: $out (from the sources, sm_90)"

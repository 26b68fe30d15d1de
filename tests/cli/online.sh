#!/usr/bin/env bash
# online.sh: tuning at run time without a GPU (docs/runtime.md "Tuning at run time"). The search
# a run-time tuner gets (search.start in a space over the kernel's own, strategy transfer with no
# other GPU's results: it starts from the configs given), run here on the replay of the H100's
# saxpy results into a tune folder's database; libtunekit then reads that database's winner for
# a GPU its table does not know (tests/fixtures/runtime_online.c, SQLite loaded at run time),
# and `tuner db merge` brings the online results into a project's, whose header then knows the
# GPU.
source "$(dirname "$0")/lib.sh"
if [ -z "${CUDA_HOME:-}" ]; then
    CUDA_HOME=/usr/local/cuda
    nvcc=$(command -v nvcc) && CUDA_HOME=$(dirname "$(dirname "$nvcc")")
fi
ROOT=$(pwd)
DUMP=$ROOT/examples/vector/results/nvidia-h100-80gb-hbm3.sql.xz
TUNER=$(cd "$(dirname "$TUNER")" && pwd)/$(basename "$TUNER")
mkdir -p $T/inc $T/online/vector.saxpy/f32-n=16777216 $T/cwd

# the space a run-time tuner is given: the kernel's own as its base, one problem, a search
S=$T/online/vector.saxpy/f32-n=16777216/space.yaml
write_space() {   # START...: the start configs
    { echo "base: \"$ROOT/examples/vector/saxpy.yaml\""
      echo "problems:"
      echo "  - { n: 16777216 }"
      echo "search:"
      echo "  strategy: transfer"
      echo "  budget: { seconds: 30 }"
      echo "  start:"
      for c in "$@"; do echo "    - \"$c\""; done; } > $S
}
write_space "block_size=1024,items=8" "items=1,block_size=64"
check "tuner space takes search.start" $TUNER space $S
grep -q "^search:.*transfer, 2 start configs" $T/.out
same "and says so" "$?" "0"
write_space "block_size=1024,items=3"
check_fails "a start config the space has not" 2 $TUNER space $S
same "is refused where it is" "$(sed 's|.*/space.yaml|space.yaml|' $T/.out)" \
    "space.yaml:8:7: error: search.start[0]: 'block_size=1024,items=3' is not a config of this space: items has no value 3"
write_space "block_size=1024"
check_fails "a start config short of a parameter" 2 $TUNER space $S
printf 'base: "%s"\nsearch: { start: block_size=64 }\n' "$ROOT/examples/vector/saxpy.yaml" > $T/list.yaml
check_fails "search.start not a list" 2 $TUNER space $T/list.yaml
grep -q "search.start: expected a list" $T/.out
same "says a list is wanted" "$?" "0"

# the run a run-time tuner starts (in the capture's folder: no db/results/ to transfer from)
write_space "block_size=1024,items=8" "items=1,block_size=64"
(cd $T/cwd && check "transfer from the space's own start configs" \
    $TUNER run $S --backend replay:$DUMP --db $T/online/results.db -q)
first=$(sql $T/online/results.db "select c.text from evaluations e join configs c on c.id = e.config_id order by e.seq limit 2" | tr '\n' ' ')
same "the start configs are measured first, in order" "$first" "block_size=1024,items=8 block_size=64,items=1 "
n=$(sql $T/online/results.db "select count(*) from evaluations")
[ "$n" -gt 2 ] && [ "$n" -lt 20 ]
same "then a local search from the better, converging before the 20 configs ($n)" "$?" "0"
cd $T/cwd
check_fails "transfer with neither start configs nor other GPUs' results" 2 \
    $TUNER run $ROOT/examples/vector/saxpy.yaml --strategy transfer --backend replay:$DUMP --db $T/x.db -q
grep -q "no other GPU's results of vector" $T/.out
same "says what is missing" "$?" "0"
cd $ROOT
won=$(sql $T/online/results.db "select config from best where shape = 'n=16777216'")

# libtunekit reads the winner
check "saxpy's header" $TUNER header --space examples/vector/saxpy.yaml -o $T/inc/saxpy_tuned.h
cc_run() {   # OUT SOURCE: build a C program against the headers and libtunekit.a
    cc -std=c11 -Wall -Wextra -Werror -I$T/inc -Ikernels -I"$CUDA_HOME/include" "$2" \
        build/libtunekit.a -L"$CUDA_HOME/lib64" -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt \
        -o "$1"
}
check "the online fixture builds" cc_run $T/online_fixture tests/fixtures/runtime_online.c
if ! $TUNER compile examples/vector/saxpy.yaml --cache $T/probe -q >$T/probe.out 2>&1 &&
   grep -q "NVRTC not found" $T/probe.out; then
    echo "online: NVRTC not found, the library's checks skipped: $(head -n 1 $T/probe.out)"
    finish
    exit
fi
check "the library reads the tune folder (TUNEKIT_TUNE_DIR)" \
    env TUNEKIT_CACHE=$T/cache TUNEKIT_TUNE_DIR=$T/online $T/online_fixture
same "a GPU the table does not know gets the winner tuned for its problem" "$(sed -n 2p $T/.out)" "tuned problem: ok $won"
default=$(sed -n 4p $T/.out | cut -d' ' -f2)
same "and the default config for another problem" "$(sed -n 3p $T/.out)" "other problem: ok $default"
same "an empty folder name is refused" "$(sed -n 5p $T/.out)" \
    "empty folder: invalid argument tk_kernel_tune: an empty folder name"
check "the folder given to tk_kernel_tune" env TUNEKIT_CACHE=$T/cache TUNEKIT_TUNE_DIR=$T/nowhere \
    $T/online_fixture $T/online
same "reads the same winner" "$(sed -n 3p $T/.out)" "tuned problem: ok $won"
check "without a tune folder" env TUNEKIT_CACHE=$T/cache TUNEKIT_TUNE_DIR=$T/nowhere $T/online_fixture
same "the default config" "$(sed -n 2p $T/.out)" "tuned problem: ok $default"
printf 'not a database' > $T/bad.db; mkdir -p $T/badtune; cp $T/bad.db $T/badtune/results.db
check "a tune folder whose database is not one" env TUNEKIT_CACHE=$T/cache TUNEKIT_TUNE_DIR=$T/badtune $T/online_fixture
same "is no winner, not an error" "$(sed -n 2p $T/.out)" "tuned problem: ok $default"

# the online results merged into a project's
check "a project's database of another GPU's results" $TUNER db import $ROOT/db/results/nvidia-h200.sql.xz --db $T/project.db -q
check "tuner db merge brings the tune folder's results in" $TUNER db merge $T/online/results.db --db $T/project.db
check "the project's header from them" $TUNER header --space examples/vector/saxpy.yaml --db $T/project.db -o $T/merged.h
grep -q "\"NVIDIA H100 80GB HBM3\".*\"$won\"" $T/merged.h
same "holds the winner tuned online" "$?" "0"
finish

#!/usr/bin/env bash
# online_test.sh: tuning at run time on a GPU the table does not know (docs/runtime.md), on a
# space with wrong, faulting and hanging variants (tests/gpu/online/faulty.yaml;
# tests/fixtures/runtime_online_gpu.c replaces the table by another GPU's, whose winners for
# other problems are the broken variants, so the tuner's search meets them first). The program
# must see no failed launch and no wrong element while the tuner works in its own process; the
# tuner must record every broken variant as such and end on a right one, which the program then
# runs; a second run of the program must take that winner from the tune folder's database with
# no tuner; and `tuner db merge` must bring it into a project's database. Skips without a GPU.
source "$(dirname "$0")/lib.sh"
need_gpu
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
export TUNEKIT_CACHE=$tmp/cache
export TUNEKIT_TUNER=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
S=tests/gpu/online/faulty.yaml
# a header needs results: the space measured once (the broken variants recorded as such), then
# the program puts another GPU's table in their place
check "the faulty space, measured offline" $T run $S --db $tmp/offline.db -q
st=$(python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(" ".join(f"{s}:{n}" for s,n in c.execute("select status, count(*) from evaluations group by status order by status")))' $tmp/offline.db)
check "offline: 3 right, 3 invalid, 3 faults, 3 timeouts ($st)" test "$st" = "fault:3 invalid:3 ok:3 timeout:3"
check "its header" $T header --space $S --db $tmp/offline.db -o $tmp/faulty_tuned.h
check "the program builds" cc -std=c11 -Wall -Wextra -Werror -I$tmp -Ikernels -I"$CUDA_HOME/include" \
    tests/fixtures/runtime_online_gpu.c build/libtunekit.a -L"$CUDA_HOME/lib64" -lcudart_static \
    -lstdc++ -lm -ldl -lpthread -lrt -o $tmp/online
D=$tmp/tune
start=$(date +%s.%N)
check "the program, tuning: no failure, no wrong element" sh -c "$tmp/online $D 150 > $tmp/run1.txt"
cat $tmp/run1.txt
end=$(date +%s.%N)
echo "online_test: the program ran $(python3 -c "print(f'{$end - $start:.1f}')") s"
tail -n 1 $tmp/run1.txt | grep -q " failed 0 wrong 0 .* tuned 1$"
check "the tuner ended while the program ran" test $? -eq 0
grep -q "first config BLOCK=256,MODE=0" $tmp/run1.txt
check "until then, the other GPU's winner of the nearest problem" test $? -eq 0
C=$D/online.scale/f32-n=16777216
check "the capture and its log are there" test -f $C/space.yaml -a -f $C/tune.log
python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
rows=dict(c.execute("select c.text, e.status from evaluations e join configs c on c.id=e.config_id"))
want={"BLOCK=128,MODE=2":"fault","BLOCK=512,MODE=1":"invalid","BLOCK=128,MODE=3":"timeout","BLOCK=256,MODE=0":"ok"}
bad=[(k,rows.get(k),v) for k,v in want.items() if rows.get(k)!=v]
print("online_test: the tuner measured", len(rows), "configs:", sorted(rows.items()))
sys.exit(1 if bad else 0)' $D/results.db
check "the tuner met the broken variants first and recorded each as such" test $? -eq 0
won=$(python3 -c 'import sqlite3,sys
print(sqlite3.connect(sys.argv[1]).execute("select config from best").fetchone()[0])' $D/results.db)
tail -n 1 $tmp/run1.txt | grep -q "config $won tuned"
check "the program ran the tuner's winner ($won) once it ended" test $? -eq 0
check "a second run" $tmp/online $D 5 > $tmp/run2.txt
grep -q "first config $won$" $tmp/run2.txt
check "takes the winner from the tune folder at once" test $? -eq 0
grep -q "tuner ended" $tmp/run2.txt
check "and starts no tuner" test $? -ne 0
check "tuner db merge takes the online results" $T db merge $D/results.db --db $tmp/project.db
check "into a header that knows this GPU" $T header --space $S --db $tmp/project.db -o $tmp/merged.h
finish

#!/usr/bin/env bash
# header.sh: the generated header is deterministic, `--check` passes on the committed header and
# fails when the header or a dump changes, and a failed generation leaves no file behind.
source "$(dirname "$0")/lib.sh"
FX=tests/fixtures/synthetic_elementwise.sql.xz

check "committed header is current" $TUNER header --check
check "generate" $TUNER header -o $T/h1.h $FX -q
check "generate again" $TUNER header -o $T/h2.h $FX -q
check "byte for byte deterministic" cmp $T/h1.h $T/h2.h
check "check passes on what it wrote" $TUNER header --check -o $T/h1.h $FX
sed -i '0,/us, /s/us, /us,  /' $T/h2.h
check_fails "check fails on an edited header" 1 $TUNER header --check -o $T/h2.h $FX
check "import fixture" $TUNER db import $FX --db $T/x.db -q
sql $T/x.db "update evaluations set median_us = median_us / 10 where id = (select evaluation_id from best where size_key is not null order by median_us desc limit 1)" >/dev/null
python3 - "$T/x.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("update evaluations set median_us = 0.001 where id = (select e.id from evaluations e join problems p on p.id = e.problem_id where e.status = 'ok' and p.size_key is not null and e.id not in (select evaluation_id from best) limit 1)")
c.commit()
PY
check "export the changed measurements" $TUNER db export --db $T/x.db -o $T/x.sql
check_fails "check fails when a dump changes the winner" 1 $TUNER header --check -o $T/h1.h $T/x.sql
check "--db names a database, not a dump: it is read as one" $TUNER header -o $T/hdb.h --db $T/x.db
$TUNER header -q -o $T/hsql.h $T/x.sql
same "the same header as from its dump (but the inputs it names)" "$(sed 1d $T/hdb.h | md5sum)" "$(sed 1d $T/hsql.h | md5sum)"
check_fails "missing input" 1 $TUNER header -o $T/none.h $T/does-not-exist.sql
[ ! -e $T/none.h ]; same "no header written on failure" "$?" "0"
finish

#!/usr/bin/env bash
# replace_family.sh: replaces one kernel family's measurements in a committed dump with a newer
# dump's (the family re-measured after its kernel changed, so its old rows no longer describe the
# code): the family's evaluations, samples and PyTorch times go, with the runs, problems and
# configs left without rows; the new dump's rows come in (less its runs that measured nothing);
# the database is checked and exported over the old dump, in its form (.sql.xz compressed, .sql
# text). Then `tuner header` and `tuner report -o reports/`. Needs the sqlite3 CLI.
# usage: scripts/replace_family.sh DUMP.sql.xz FAMILY NEW.sql.xz [TUNER]
set -eu
[ $# -ge 3 ] || { echo "usage: $0 DUMP.sql.xz FAMILY NEW.sql.xz [TUNER]" >&2; exit 2; }
dump=$1 fam=$2 new=$3 T=${4:-build/tuner}
case "$fam" in *[!a-z0-9_]*|"") echo "$0: bad family name '$fam'" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$T db import "$dump" --db "$tmp/m.db" -q
sqlite3 "$tmp/m.db" <<SQL
PRAGMA foreign_keys=ON;
DELETE FROM evaluations WHERE problem_id IN (SELECT id FROM problems WHERE op LIKE '$fam.%');
DELETE FROM peers WHERE problem_id IN (SELECT id FROM problems WHERE op LIKE '$fam.%');
SQL
$T db import "$new" --db "$tmp/m.db" -q
# what no row refers to any more goes, with runs that measured nothing (the old family's, and a
# resumed run of the new dump that found everything done)
sqlite3 "$tmp/m.db" <<SQL
PRAGMA foreign_keys=ON;
BEGIN;
DELETE FROM runs WHERE id NOT IN (SELECT run_id FROM evaluations);
DELETE FROM problems WHERE id NOT IN (SELECT problem_id FROM evaluations)
                       AND id NOT IN (SELECT problem_id FROM peers);
DELETE FROM configs WHERE id NOT IN (SELECT config_id FROM evaluations);
DELETE FROM devices WHERE id NOT IN (SELECT device_id FROM runs)
                      AND id NOT IN (SELECT device_id FROM peers);
COMMIT;
SQL
$T db check --db "$tmp/m.db"
out="$tmp/$(basename "$dump")"   # the same name: export compresses a .xz one
$T db export --db "$tmp/m.db" -o "$out"
mv "$out" "$dump"
echo "$0: $dump: family $fam replaced from $new"

#!/usr/bin/env bash
# readme_table.sh: the README's headline table is what scripts/readme_table.py computes from the
# committed dumps (so it is never typed and never stale), and the script rewrites only the block
# between its markers, reports a stale block with exit 1, and refuses a file without markers.
# The checks on a scratch README use the synthetic fixture, which loads in a moment.
source "$(dirname "$0")/lib.sh"
RT="python3 scripts/readme_table.py"
FX=tests/fixtures/synthetic_elementwise.sql.xz

check "README.md's headline table is current (db/results/*.sql.xz)" $RT --check

printf 'before\n<!-- headline:begin -->\nstale\n<!-- headline:end -->\nafter\n' > $T/R.md
check_fails "a stale block fails --check" 1 $RT --readme $T/R.md --check $FX
same "--check changes nothing" "$(sed -n 3p $T/R.md)" "stale"
check "the block is rewritten" $RT --readme $T/R.md $FX
check "and then passes --check" $RT --readme $T/R.md --check $FX
same "the text around the block is kept" "$(head -n 1 $T/R.md) $(tail -n 1 $T/R.md)" "before after"
same "one row per family in the fixture" "$(grep -c '^| `' $T/R.md)" 1
same "the fixture's gain over the default is computed" \
    "$(grep '^| `elementwise`' $T/R.md | cut -d'|' -f3- | grep -cE '^ [0-9]+ \| [0-9.]+x \([0-9.]+-[0-9.]+x\) \| - \|$')" 1
cp $T/R.md $T/R2.md
sed -i 's/^| `elementwise` | \([0-9]*\) | [0-9.]*x/| `elementwise` | \1 | 9.99x/' $T/R2.md
same "the scratch copy was edited" "$(cmp -s $T/R.md $T/R2.md; echo $?)" 1
check_fails "an edited number fails --check" 1 $RT --readme $T/R2.md --check $FX
printf 'no markers\n' > $T/R3.md
check_fails "a file without markers is refused" 1 $RT --readme $T/R3.md $FX
same "and left as it was" "$(cat $T/R3.md)" "no markers"
check_fails "a dump that does not load" 1 $RT --readme $T/R.md $T/none.sql
finish

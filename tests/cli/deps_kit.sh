#!/usr/bin/env bash
# deps_kit.sh: scripts/deps_kit.sh packs SQLite, libyaml, GSL and liblzma (headers and static
# libraries) into a folder or a .tar.xz that `make STATIC=1 DEPS=DIR` builds with on a machine
# without their -dev packages. Checked here: every file the build needs is in the kit, a program
# using all four compiles against the kit's headers alone and links its static libraries (no
# shared library of the four in the binary), and scripts/deps.sh refuses an incomplete kit in
# one line naming what is missing.
source "$(dirname "$0")/lib.sh"

check "deps_kit.sh into a folder" scripts/deps_kit.sh $T/kit
missing=""
for f in include/sqlite3.h include/yaml.h include/gsl/gsl_rng.h include/lzma.h lib/libsqlite3.a \
         lib/libyaml.a lib/libgsl.a lib/libgslcblas.a lib/liblzma.a; do
    [ -f $T/kit/$f ] || missing="$missing $f"
done
same "the kit holds every header and library the build checks for" "$missing" ""
check "deps_kit.sh into a .tar.xz" scripts/deps_kit.sh $T/kit.tar.xz
check "the archive unpacks as deps/" tar -C $T -xJf $T/kit.tar.xz deps/lib/libsqlite3.a deps/include/yaml.h

# a program of all four, against the kit only (-nostdinc would drop libc's headers too: the
# kit's folder comes first, and the check below is on what was linked)
cat > $T/p.c <<'C'
#include <sqlite3.h>
#include <yaml.h>
#include <gsl/gsl_rng.h>
#include <lzma.h>
#include <stdio.h>
int main(void)
{
    yaml_parser_t p;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int ok = yaml_parser_initialize(&p) && r && sqlite3_libversion_number() > 3000000 &&
             lzma_version_number() > 0;
    printf("%s %s\n", sqlite3_libversion(), ok ? "ok" : "broken");
    yaml_parser_delete(&p);
    gsl_rng_free(r);
    return !ok;
}
C
check "a program compiles and links against the kit's static libraries" \
    ${CC:-cc} -I$T/kit/include -o $T/p $T/p.c -L$T/kit/lib \
    -Wl,-Bstatic -lsqlite3 -lyaml -lgsl -lgslcblas -llzma -Wl,-Bdynamic -lm -lpthread -ldl
check "and runs" $T/p
same "no shared library of the four in it" \
    "$(readelf -d $T/p | grep -E 'NEEDED.*(sqlite|yaml|gsl|lzma)')" ""

mkdir -p $T/half/include && cp $T/kit/include/sqlite3.h $T/half/include/
check_fails "deps.sh refuses an incomplete kit" 1 env DEPS=$T/half sh scripts/deps.sh
same "in one line naming what is missing" "$(DEPS=$T/half sh scripts/deps.sh 2>&1)" \
    "make: error: DEPS=$T/half lacks include/yaml.h include/gsl/gsl_rng.h include/lzma.h lib/libsqlite3.a lib/libyaml.a lib/libgsl.a lib/libgslcblas.a lib/liblzma.a (make it with scripts/deps_kit.sh)"
check "deps.sh accepts the whole kit" env DEPS=$T/kit sh scripts/deps.sh
finish

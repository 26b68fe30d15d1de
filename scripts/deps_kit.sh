#!/bin/sh
# deps_kit.sh: packs the build's four libraries (SQLite, libyaml, GSL, liblzma: their headers and
# static libraries, from this machine's -dev packages) into one folder, or a .tar.xz of it, that
# `make STATIC=1 DEPS=DIR` builds with on a machine that has the CUDA toolkit but none of those
# packages and cannot install them (a lent GPU machine). A few MB.
#
# usage: scripts/deps_kit.sh OUT      OUT a folder, or OUT.tar.xz (the folder packed, as deps/)
set -eu
out=${1:?usage: scripts/deps_kit.sh OUTDIR|OUT.tar.xz}
libdir=$(gcc -print-multiarch 2>/dev/null || true)
libdir=/usr/lib${libdir:+/$libdir}
case $out in *.tar.xz) dir=$(mktemp -d)/deps ;; *) dir=$out ;; esac
mkdir -p "$dir/include" "$dir/lib"
for h in sqlite3.h sqlite3ext.h yaml.h lzma.h lzma gsl; do
    [ -e "/usr/include/$h" ] || { echo "deps_kit.sh: /usr/include/$h is missing (install the -dev packages: make deps)" >&2; exit 1; }
    cp -R "/usr/include/$h" "$dir/include/"
done
for l in libsqlite3.a libyaml.a libgsl.a libgslcblas.a liblzma.a; do
    [ -f "$libdir/$l" ] || { echo "deps_kit.sh: $libdir/$l is missing (install the -dev packages: make deps)" >&2; exit 1; }
    cp "$libdir/$l" "$dir/lib/"
done
case $out in
    *.tar.xz) tar -C "$(dirname "$dir")" -cJf "$out" deps && rm -rf "$(dirname "$dir")" ;;
esac
echo "deps_kit.sh: wrote $out"

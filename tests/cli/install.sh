#!/usr/bin/env bash
# install.sh: `make install PREFIX=...` into a temporary prefix (the tuner, libtunekit.a and the
# versioned libtunekit.so, the public headers and everything they include, tunekit.pc,
# tunekit-static.pc, the CMake package), then a small C program built against the installed copy
# in a folder outside the source tree, with pkg-config and with CMake (find_package(tunekit)), each
# against the shared and the static library, and run on this machine without a GPU. Without
# pkg-config or cmake that half is skipped, and the summary line says so.
source "$(dirname "$0")/lib.sh"
P=$T/prefix
APP=$T/app
skipped=()

check "make install" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install PREFIX=$P
for f in bin/tuner lib/libtunekit.a lib/libtunekit.so.0.1.0 include/tunekit/tunekit.h \
         include/tunekit/tuned_lookup.h lib/pkgconfig/tunekit.pc lib/pkgconfig/tunekit-static.pc \
         lib/cmake/tunekit/tunekitConfig.cmake lib/cmake/tunekit/tunekitConfigVersion.cmake; do
    check "installs $f" test -f $P/$f
done
same "the shared library's links" "$(readlink $P/lib/libtunekit.so) $(readlink $P/lib/libtunekit.so.0)" \
     "libtunekit.so.0 libtunekit.so.0.1.0"
same "its soname" "$(readelf -d $P/lib/libtunekit.so.0.1.0 | grep -o 'Library soname: \[[^]]*\]')" \
     "Library soname: [libtunekit.so.0]"
missing=""
for h in $(grep -ho '#include "[^"]*"' $P/include/tunekit/*.h | cut -d'"' -f2 | sort -u); do
    [ -f $P/include/tunekit/$h ] || missing="$missing $h"
done
same "every header the installed headers include is installed" "$missing" ""
check "the installed tuner runs" $P/bin/tuner db --help

# the program: no GPU needed (dtype names, config text, status strings)
mkdir -p $APP
cat > $APP/main.c <<'C'
/* main.c: a program using the installed libtunekit, with no GPU needed. */
#include <stdio.h>
#include <tunekit.h>

int main(void)
{
    tk_elementwise_config c;
    tk_status ok = tk_elementwise_config_from_text(
        "block_size=512,cache_hint=evict_first,loop=one_shot,pack_size=2,unroll=4,waves=1", &c);
    int64_t v[8];
    tk_status bad = tk_config_parse(tk_elementwise_config_space(), "block_size=7", v);
    printf("bf16 is dtype %d, f16 has %zu bytes; config %s: block_size %d, pack_size %d, "
           "unroll %d; block_size=7: %s\n", tk_dtype_parse("bf16"), tk_dtype_size(TK_F16),
           tk_status_string(ok), c.block_size, c.pack_size, c.unroll, tk_status_string(bad));
    return ok == TK_OK && bad == TK_ERR_UNSUPPORTED_CONFIG ? 0 : 1;
}
C
want="bf16 is dtype 2, f16 has 2 bytes; config ok: block_size 512, pack_size 2, unroll 4; block_size=7: unsupported config"

if command -v pkg-config >/dev/null 2>&1; then
    export PKG_CONFIG_PATH=$P/lib/pkgconfig
    check "pkg-config finds tunekit and tunekit-static" pkg-config --exists tunekit tunekit-static
    same "its version" "$(pkg-config --modversion tunekit)" "0.1.0"
    cuda=$(pkg-config --variable=cudaroot tunekit)
    check "pkg-config: build against libtunekit.so" bash -c "cd $APP && cc -std=c11 -Wall -Wextra \
        -Werror main.c -o pc_shared \$(pkg-config --cflags --libs tunekit) -Wl,-rpath,$P/lib:$cuda/lib64"
    same "pkg-config, shared: runs without a GPU" "$($APP/pc_shared 2>&1)" "$want"
    check "pkg-config, shared: loads the installed libtunekit.so" \
        bash -c "ldd $APP/pc_shared | grep -qF '$P/lib/libtunekit.so.0'"
    check "pkg-config: build against libtunekit.a" bash -c "cd $APP && cc -std=c11 -Wall -Wextra \
        -Werror main.c -o pc_static \$(pkg-config --cflags --libs tunekit-static) -Wl,-rpath,$cuda/lib64"
    same "pkg-config, static: runs without a GPU" "$($APP/pc_static 2>&1)" "$want"
    check_fails "pkg-config, static: needs no libtunekit.so" 1 bash -c "ldd $APP/pc_static | grep -q libtunekit"
else
    skipped+=("pkg-config")
fi

if command -v cmake >/dev/null 2>&1; then
    cat > $APP/CMakeLists.txt <<'CMAKE'
# CMakeLists.txt: the program built against the installed libtunekit through its CMake package.
cmake_minimum_required(VERSION 3.18)
project(use_tunekit C)
find_package(tunekit 0.1 REQUIRED)
add_executable(cm_shared main.c)
target_link_libraries(cm_shared PRIVATE tunekit::tunekit)
add_executable(cm_static main.c)
target_link_libraries(cm_static PRIVATE tunekit::tunekit_static)
CMAKE
    check "cmake: configure with find_package(tunekit)" cmake -S $APP -B $APP/build -DCMAKE_PREFIX_PATH=$P
    check "cmake: build" cmake --build $APP/build
    same "cmake, shared: runs without a GPU" "$($APP/build/cm_shared 2>&1)" "$want"
    check "cmake, shared: loads the installed libtunekit.so" \
        bash -c "ldd $APP/build/cm_shared | grep -qF '$P/lib/libtunekit.so.0'"
    same "cmake, static: runs without a GPU" "$($APP/build/cm_static 2>&1)" "$want"
    check_fails "cmake, static: needs no libtunekit.so" 1 bash -c "ldd $APP/build/cm_static | grep -q libtunekit"
    # the version file: 0.1 and 0.1.0 are served, 0.2, 1.0 and 0.1.1 are not
    printf 'include(${F})\nmessage("${PACKAGE_VERSION_COMPATIBLE}")\n' > $T/version.cmake
    for req in 0.1:TRUE 0.1.0:TRUE 0.2:FALSE 1.0:FALSE 0.1.1:FALSE; do
        v=${req%%:*}
        IFS=. read -r ma mi _ <<<"$v"
        got=$(cmake -DPACKAGE_FIND_VERSION=$v -DPACKAGE_FIND_VERSION_MAJOR=$ma \
              -DPACKAGE_FIND_VERSION_MINOR=$mi -DCMAKE_SIZEOF_VOID_P=8 \
              -DF=$P/lib/cmake/tunekit/tunekitConfigVersion.cmake -P $T/version.cmake 2>&1)
        same "cmake: a request for version $v is compatible: ${req#*:}" "$got" "${req#*:}"
    done
else
    skipped+=("cmake")
fi

if [ ${#skipped[@]} -gt 0 ]; then
    echo "$passed passed, $failed failed, ${#skipped[@]} skipped (not installed: ${skipped[*]})"
    [ "$failed" -eq 0 ]
    exit
fi
finish

#!/bin/sh
# install.sh: what `make install PREFIX=...` does (the Makefile passes its variables). Under
# DESTDIR+PREFIX it installs
#   bin/tuner
#   lib/libtunekit.a, lib/libtunekit.so.VERSION with the links libtunekit.so.MAJOR (its soname)
#     and libtunekit.so
#   include/tunekit/: the public headers (tunekit.h, the family headers tunekit_*.h it includes,
#     tuned_lookup.h); a program includes <tunekit.h>
#   lib/pkgconfig/tunekit.pc (links libtunekit.so) and tunekit-static.pc (links libtunekit.a)
#   lib/cmake/tunekit/tunekitConfig.cmake and tunekitConfigVersion.cmake: find_package(tunekit)
#     gives the imported targets tunekit::tunekit (shared) and tunekit::tunekit_static
# The headers include <cuda_runtime_api.h> and the library calls the CUDA runtime, so both package
# files bring the CUDA toolkit the library was built with (CUDA_HOME): pkg-config as its variable
# cudaroot (Cflags -I<cudaroot>/include, Libs -L<cudaroot>/lib64 -lcudart; `pkg-config
# --define-variable=cudaroot=DIR` names another), CMake through find_package(CUDAToolkit) and its
# CUDA::cudart target, with CUDAToolkit_ROOT pointed at that toolkit unless the caller set it.
# usage: scripts/install.sh DESTDIR PREFIX BUILD_DIR VERSION CUDA_HOME HEADER...
set -eu
[ $# -ge 6 ] || { echo "usage: $0 DESTDIR PREFIX BUILD_DIR VERSION CUDA_HOME HEADER..." >&2; exit 2; }
destdir=$1 prefix=$2 build=$3 version=$4 cuda=$5
shift 5
case "$prefix" in
    /*) ;;
    *) echo "make install: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
major=${version%%.*}
root=$destdir$prefix
lib=$root/lib

install -d "$root/bin" "$lib/pkgconfig" "$lib/cmake/tunekit" "$root/include/tunekit"
install -m 755 "$build/tuner" "$root/bin/tuner"
install -m 644 "$build/libtunekit.a" "$lib/libtunekit.a"
install -m 755 "$build/libtunekit.so.$version" "$lib/libtunekit.so.$version"
ln -sf "libtunekit.so.$version" "$lib/libtunekit.so.$major"
ln -sf "libtunekit.so.$major" "$lib/libtunekit.so"
install -m 644 "$@" "$root/include/tunekit/"

# fill FILE from the template on stdin: @prefix@ @version@ @major@ @cuda@
fill() {
    sed -e "s|@prefix@|$prefix|g" -e "s|@version@|$version|g" -e "s|@major@|$major|g" \
        -e "s|@cuda@|$cuda|g" > "$1"
    chmod 644 "$1"
}

fill "$lib/pkgconfig/tunekit.pc" <<'EOF'
# tunekit.pc: libtunekit, the tuned CUDA kernel library, linked as a shared library
# (tunekit-static.pc: the static one). cudaroot is the CUDA toolkit it was built with; name
# another with pkg-config --define-variable=cudaroot=DIR.
prefix=@prefix@
libdir=${prefix}/lib
includedir=${prefix}/include
cudaroot=@cuda@

Name: tunekit
Description: Tuned CUDA kernels with a C API (shared library)
Version: @version@
Cflags: -I${includedir}/tunekit -I${cudaroot}/include
Libs: -L${libdir} -ltunekit -L${cudaroot}/lib64 -lcudart
EOF

fill "$lib/pkgconfig/tunekit-static.pc" <<'EOF'
# tunekit-static.pc: libtunekit, the tuned CUDA kernel library, linked statically (libtunekit.a,
# whose objects need the C++ runtime; tunekit.pc: the shared library). cudaroot is the CUDA
# toolkit it was built with; name another with pkg-config --define-variable=cudaroot=DIR.
prefix=@prefix@
libdir=${prefix}/lib
includedir=${prefix}/include
cudaroot=@cuda@

Name: tunekit-static
Description: Tuned CUDA kernels with a C API (static library)
Version: @version@
Cflags: -I${includedir}/tunekit -I${cudaroot}/include
Libs: ${libdir}/libtunekit.a -L${cudaroot}/lib64 -lcudart -lstdc++ -lm -ldl -lpthread
EOF

fill "$lib/cmake/tunekit/tunekitConfig.cmake" <<'EOF'
# tunekitConfig.cmake: the CMake package of libtunekit, the tuned CUDA kernel library (installed
# by make install). find_package(tunekit) gives the imported targets tunekit::tunekit
# (libtunekit.so) and tunekit::tunekit_static (libtunekit.a), each with the include directory of
# <tunekit.h> and the CUDA runtime, CUDA::cudart from find_package(CUDAToolkit); that search
# starts at the toolkit the library was built with unless CUDAToolkit_ROOT is set.
set(_tunekit_cuda_hint FALSE)
if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS "@cuda@")
  set(CUDAToolkit_ROOT "@cuda@")
  set(_tunekit_cuda_hint TRUE)
endif()
include(CMakeFindDependencyMacro)
find_dependency(CUDAToolkit)
if(_tunekit_cuda_hint)
  unset(CUDAToolkit_ROOT)
endif()
unset(_tunekit_cuda_hint)

get_filename_component(_tunekit_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET tunekit::tunekit)
  add_library(tunekit::tunekit SHARED IMPORTED)
  set_target_properties(tunekit::tunekit PROPERTIES
    IMPORTED_LOCATION "${_tunekit_prefix}/lib/libtunekit.so.@version@"
    IMPORTED_SONAME "libtunekit.so.@major@"
    INTERFACE_INCLUDE_DIRECTORIES "${_tunekit_prefix}/include/tunekit"
    INTERFACE_LINK_LIBRARIES "CUDA::cudart")
endif()
if(NOT TARGET tunekit::tunekit_static)
  add_library(tunekit::tunekit_static STATIC IMPORTED)
  set_target_properties(tunekit::tunekit_static PROPERTIES
    IMPORTED_LOCATION "${_tunekit_prefix}/lib/libtunekit.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_tunekit_prefix}/include/tunekit"
    INTERFACE_LINK_LIBRARIES "CUDA::cudart;stdc++;m;pthread")
endif()
unset(_tunekit_prefix)
EOF

fill "$lib/cmake/tunekit/tunekitConfigVersion.cmake" <<'EOF'
# tunekitConfigVersion.cmake: which find_package(tunekit VERSION) requests this installed
# version (@version@) answers: the same major version and no older (below 1.0, the same minor
# too), built for 64-bit.
set(PACKAGE_VERSION "@version@")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(PACKAGE_FIND_VERSION_MAJOR STREQUAL "@major@" AND
   NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  string(REGEX MATCH "^[0-9]+\\.([0-9]+)" _tunekit_have "${PACKAGE_VERSION}")
  set(_tunekit_minor "${CMAKE_MATCH_1}")
  if(NOT "@major@" STREQUAL "0" OR "${PACKAGE_FIND_VERSION_MINOR}" STREQUAL "${_tunekit_minor}")
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
  unset(_tunekit_have)
  unset(_tunekit_minor)
endif()
if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
if(NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  set(PACKAGE_VERSION "@version@ (64-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
EOF

echo "make install: tuner, libtunekit (.a, .so.$version), headers, tunekit.pc and the CMake package under $root"

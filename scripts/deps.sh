#!/bin/sh
# deps.sh: makes sure the build's -dev packages (SQLite, libyaml, GSL, liblzma) and the CUDA
# compiler are present. Installs the packages with apt-get when running as root; otherwise prints
# the exact command and fails. Called by make before the first compile. With DEPS=DIR (make
# DEPS=DIR, a folder made by scripts/deps_kit.sh) the headers and static libraries must be there
# instead, and nothing is installed.
missing=""
if [ -n "${DEPS:-}" ]; then
  for f in include/sqlite3.h include/yaml.h include/gsl/gsl_rng.h include/lzma.h \
           lib/libsqlite3.a lib/libyaml.a lib/libgsl.a lib/libgslcblas.a lib/liblzma.a; do
    [ -f "$DEPS/$f" ] || missing="$missing $f"
  done
  if [ -n "$missing" ]; then
    echo "make: error: DEPS=$DEPS lacks$missing (make it with scripts/deps_kit.sh)" >&2
    exit 1
  fi
else
  [ -f /usr/include/sqlite3.h ] || missing="$missing libsqlite3-dev"
  [ -f /usr/include/yaml.h ] || missing="$missing libyaml-dev"
  [ -f /usr/include/gsl/gsl_rng.h ] || missing="$missing libgsl-dev"
  [ -f /usr/include/lzma.h ] || missing="$missing liblzma-dev"
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "make: installing$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || {
      echo "make: error: apt-get install$missing failed" >&2; exit 1; }
  else
    echo "make: error: missing$missing; run: sudo apt-get install -y$missing" >&2
    exit 1
  fi
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$nvcc" ]; then
  echo "make: error: nvcc not found (PATH or /usr/local/cuda/bin); install the CUDA toolkit (12.x or 13.x)" >&2
  exit 1
fi
exit 0

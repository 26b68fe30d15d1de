#!/bin/sh
# deps.sh: makes sure the build's -dev packages (SQLite, libyaml, GSL, liblzma) and the CUDA
# compiler are present. Installs the packages with apt-get when running as root; otherwise prints
# the exact command and fails. Called by make before the first compile.
missing=""
[ -f /usr/include/sqlite3.h ] || missing="$missing libsqlite3-dev"
[ -f /usr/include/yaml.h ] || missing="$missing libyaml-dev"
[ -f /usr/include/gsl/gsl_rng.h ] || missing="$missing libgsl-dev"
[ -f /usr/include/lzma.h ] || missing="$missing liblzma-dev"
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

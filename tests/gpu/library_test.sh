#!/usr/bin/env bash
# library_test.sh: on a GPU, the C API example (examples/library/tunekit_example.c) runs its
# kernels and every result matches the CPU's: tests/cli/library.sh with the GPU required.
REQUIRE_GPU=1 exec bash "$(dirname "$0")/../cli/library.sh"

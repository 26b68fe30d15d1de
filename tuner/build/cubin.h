/* cubin.h: what the tuner reads from a compiled variant's cubin, an ELF64 file: the size of each
 * module variable a buffer fills (`symbol:`), from the symbol table's st_size (what
 * cudaLibraryGetGlobal reports on the GPU), so that a buffer larger than its variable stops the
 * run before anything runs. Pure reading, no CUDA. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* The sizes in bytes of the variables (defined STT_OBJECT symbols) names[0..count) in the ELF64
 * image elf[n]: sizes[i], or -1 where the symbol table has no such variable. 0, or -1 when elf is
 * not a little-endian ELF64 file with a symbol table that lies within it. */
int cubin_symbol_sizes(const void *elf, size_t n, int count, const char *const *names,
                       int64_t *sizes);

/* The same, of the cubin at path. 0, or -1 with err (the file cannot be read, or is no such
 * ELF file). */
int cubin_file_symbol_sizes(const char *path, int count, const char *const *names,
                            int64_t *sizes, char *err, size_t len);

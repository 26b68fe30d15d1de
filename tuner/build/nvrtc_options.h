/* nvrtc_options.h: a kernel's options as its team passes them to nvcc (`-O3
 * --expt-relaxed-constexpr -Xcompiler -fPIC -Xptxas -v ...`), turned into what NVRTC takes, so
 * one `kernel.options` list serves both compilers. */
#pragma once
#include <stddef.h>

/* The NVRTC form of the options in[0..n): each kept, rewritten or left out by the table in
 * nvrtc_options.c. *out gets a malloc'd array of malloc'd strings (*n_out of them; free with
 * nvrtc_options_free). 0, or -1 out of memory. */
int nvrtc_options_from_nvcc(const char *const *in, int n, char ***out, int *n_out);
void nvrtc_options_free(char **v, int n);

/* 1 when option o, as one word, takes the next word as its value ("-Xptxas" "-v", "-std"
 * "c++17", "-Xcompiler" "-fPIC"), by the same table. */
int nvrtc_option_takes_value(const char *o);

/* SHA-256 (hex) over the table: part of the compile cache key beside the headers' digest, so a
 * changed rule compiles again. */
const char *nvrtc_options_digest(void);

/* When an NVRTC log says an option is unknown, one line naming it as nvcc's and what to do;
 * NULL otherwise. Static storage. */
const char *nvrtc_options_hint(const char *log);

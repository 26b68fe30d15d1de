/* nvrtc_headers.h: the headers a kernel written for nvcc includes that NVRTC does not have
 * (<stdio.h>, <stdint.h>, <assert.h>, <math.h>, <float.h>, <limits.h>, their <c...> forms,
 * <cub/cub.cuh>, ...), given to NVRTC from memory with what device code may use of them; and
 * the hint that turns NVRTC's refusal of host code into "use compiler: nvcc". */
#pragma once

/* The in-memory headers, as nvrtcCreateProgram takes them: count, contents, include names. */
int nvrtc_headers_count(void);
const char *const *nvrtc_headers_sources(void);
const char *const *nvrtc_headers_names(void);
/* The header every NVRTC compile pre-includes (--pre-include): what nvcc's device code has
 * without including anything (uint, ushort, ulong from glibc through cuda_runtime.h). */
#define NVRTC_IMPLICIT_HEADER "tunekit/nvcc_implicit.h"
/* SHA-256 (hex) over every name and content: part of the compile cache key. */
const char *nvrtc_headers_digest(void);

/* When an NVRTC log shows the kernel needs host code (a header NVRTC cannot open, a __host__
 * function or one without an execution space "not allowed in JIT mode") or a __device__ lambda,
 * one line saying so and to set `kernel.compiler: nvcc`; NULL otherwise. Static storage. */
const char *nvrtc_headers_host_hint(const char *log);
/* "file(line)" of the compile-log line that holds `at`, its folders left out ("the source" when
 * the line has no place); static storage. nvcc's front end writes the same form. */
const char *nvrtc_log_where(const char *log, const char *at);

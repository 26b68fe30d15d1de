/* kernel_signature.h: what a compiled kernel's lowered (mangled) name says of its parameters.
 * A kernel with C++ linkage carries its parameter types in its name (_Z5twiceP13__nv_bfloat16PKS_i
 * is twice(__nv_bfloat16*, __nv_bfloat16 const*, int)), template arguments resolved; an extern "C"
 * kernel carries none. The tuner holds a buffer's element type against the pointer the kernel
 * takes, so that a space that gives f32 data to a kernel compiled for __nv_bfloat16 (a macro
 * that picks the type, forgotten for one dtype) stops before anything runs instead of reading
 * past its buffers. */
#pragma once
#include <stddef.h>

/* name as C++ writes it: demangled when it is a mangled name (_Z...), itself otherwise.
 * malloc'd; NULL when memory ran out. */
char *kernel_demangle(const char *name);

/* The parameter types of a lowered kernel name ("float const*", "int", "Params<float>"), as
 * *n malloc'd strings in *types (kernel_signature_free frees them). 0; 1 when the name carries
 * no types (extern "C", or not a function name the demangler reads): *types NULL, *n 0; -1
 * when memory ran out. */
int kernel_signature_params(const char *lowered, char ***types, int *n);
void kernel_signature_free(char **types, int n);

/* Whether a pointer parameter of C type param (as kernel_signature_params gives it) takes a
 * buffer of element type elem ("f32", "bf16", ..., "u64"): 0 only when it points to a scalar of
 * a floating format (float, double, __half, __nv_bfloat16) other than elem's, with that type in
 * pointee[len]; 1 otherwise. Integers and vectors (uint16_t * over f16, uint4 * or float4 * for
 * 16-byte loads) are reinterpretations kernels make on purpose, and void *, char * and the
 * program's own types say nothing. */
int kernel_pointer_takes(const char *param, const char *elem, char *pointee, size_t len);

/* user_gpu.h: the GPU side of a user kernel's buffers (user_gpu.cu): filling them from a
 * counter-based generator (repeatable from the seed, the same prefix whatever the count),
 * poisoning outputs, comparing an output with the reference's copy element by element, and
 * reducing one to a sum, minimum or maximum. The
 * element types are space_user.h's su_type. Worker side only. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a buffer is filled: UG_RANDOM uniform in [a, b] (floats [a, b), integers a..b), UG_CONSTANT
 * a, UG_ARANGE a + i * b. */
enum { UG_RANDOM = 0, UG_CONSTANT = 1, UG_ARANGE = 2 };

/* Fills n elements of type at ptr on stream. Element i depends only on (seed, i), so a larger
 * buffer filled with the same seed starts with the same values. cudaSuccess or the launch's
 * error. */
cudaError_t ug_fill(int type, void *ptr, int64_t n, int how, double a, double b, uint64_t seed,
                    cudaStream_t stream);

/* Poisons n elements: NaN for floating types, 0xA5 bytes for integers. */
cudaError_t ug_poison(int type, void *ptr, int64_t n, cudaStream_t stream);
/* The same for an output compared by its maximum (high = 1) or minimum (high = 0): NaN for
 * floating types (a NaN fails every reduction), for integers the type's largest (smallest)
 * value, so that an element nothing wrote changes the maximum (minimum). */
cudaError_t ug_poison_extreme(int type, void *ptr, int64_t n, int high, cudaStream_t stream);

/* Compares got with expected (both n elements of type): an element passes when
 * |got - expected| <= atol + rtol * |expected| (NaN passes only against NaN, an infinity only
 * against the same infinity). *n_bad gets the number failing; bad[] up to max_bad of their
 * indices, ascending, the lowest failing ones (of at most the first 4096 found). Synchronises
 * the stream. */
cudaError_t ug_compare(int type, const void *got, const void *expected, int64_t n, double atol,
                       double rtol, int64_t *n_bad, int64_t *bad, int max_bad,
                       cudaStream_t stream);

/* What ug_reduce computes. */
enum { UG_SUM = 0, UG_MIN = 1, UG_MAX = 2 };
/* The sum (in double precision), min or max of n elements of type at ptr, into *out: NaN when
 * any element is NaN (a poisoned element nothing wrote). Synchronises the stream. */
cudaError_t ug_reduce(int type, const void *ptr, int64_t n, int op, double *out,
                      cudaStream_t stream);

/* Element i of a device buffer, as a double (copies one element to the host). */
cudaError_t ug_element(int type, const void *ptr, int64_t i, double *out);

#ifdef __cplusplus
}
#endif

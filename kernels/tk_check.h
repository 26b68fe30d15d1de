/* tk_check.h: GPU-side validation and measuring helpers the tuner uses (part of libtunekit so
 * every family shares them): poison an output with a NaN pattern, compare an output with a
 * double-precision reference kept on the GPU, flush L2 by reading, fill with random bits, hold a
 * stream until the host says go. Not part of the public kernel API (tunekit.h). */
#ifndef TUNEKIT_CHECK_H
#define TUNEKIT_CHECK_H

#include <stdint.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills out[0..n) with a NaN bit pattern of dtype (f32 0x7fc0dead-style quiet NaN; f16 0x7e5a;
 * bf16 0x7fda), so that an element a variant never writes fails validation. An output stored as
 * float whatever the op's input dtype is poisoned as TK_F32. */
tk_status tk_check_poison(tk_dtype dtype, int64_t n, void *out, cudaStream_t stream);

/* Evicts the L2 cache before a cold timed run by READING buf (bytes should be at least twice
 * the L2 size) with 16-byte loads: afterwards L2 holds only clean lines of buf, so the timed
 * kernel pays no write-back of a flush's dirty lines (which a memset flush would leave, taxing
 * small kernels with up to L2-size extra DRAM writes). Writes nothing the caller can see. */
tk_status tk_check_flush_l2(const void *buf, size_t bytes, cudaStream_t stream);

/* Holds the stream: one thread spins until *flag (host memory mapped for the device, written by
 * the host) reaches until (compared as a wrapping counter), or max_ns nanoseconds have passed,
 * whichever comes first. The tuner queues it before a batch of timed runs and writes the flag
 * once the batch's first run is queued whole, so that the GPU cannot reach that run's start
 * event before its launch is in the queue. */
tk_status tk_check_hold(const volatile unsigned *flag, unsigned until, uint64_t max_ns,
                        cudaStream_t stream);

/* Fills buf[0..bytes) (4-byte aligned, bytes a multiple of 4) with pseudo-random 32-bit words, a
 * hash of their index and seed: data for bandwidth references that must not run on a constant
 * (the copy ceiling is measured on what the kernels it judges read: random data). */
tk_status tk_check_fill_random(void *buf, size_t bytes, uint32_t seed, cudaStream_t stream);

/* Compares out[i] (dtype) with ref[i] (double) for i in [0, n):
 *   ok  <=>  |out - ref| <= atol + rtol * |ref|, where NaN in out fails unless ref is NaN too,
 *            and +-Inf must match exactly.
 * Sets *n_bad to the number of failing elements and writes the lowest min(*n_bad, max_report)
 * failing indices, ascending, to first_bad (host memory, max_report entries), with the values
 * got[k] (converted to double) and expected[k] (got and expected may be NULL). Synchronises the
 * stream. A 256 Mi element comparison costs milliseconds. TK_ERR_INVALID_ARGUMENT for a bad
 * dtype, n < 0, NULL n_bad, max_report < 0, NULL first_bad with max_report > 0, or NULL out /
 * ref with n > 0; TK_ERR_CUDA / TK_ERR_LAUNCH when the runtime fails. */
tk_status tk_check_close(tk_dtype dtype, int64_t n, const void *out, const double *ref,
                         double rtol, double atol, int64_t *n_bad, int64_t *first_bad,
                         double *got, double *expected, int max_report, cudaStream_t stream);

/* Converts n host doubles to dtype host storage (round to nearest even), for building inputs. */
void tk_host_from_double(tk_dtype dtype, const double *src, void *dst, int64_t n);
/* Converts dtype host storage to doubles (exact). */
void tk_host_to_double(tk_dtype dtype, const void *src, double *dst, int64_t n);
/* v rounded to dtype (nearest even) and back: what a kernel's store of v in dtype keeps. */
double tk_host_round(tk_dtype dtype, double v);

#ifdef __cplusplus
}
#endif
#endif

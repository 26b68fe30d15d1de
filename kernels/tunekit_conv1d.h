/* tunekit_conv1d.h: the public API of the conv1d family (kernels/conv1d.cu): the full linear
 * convolution of two f32 sequences, out[n] = sum_m a[n - m] * b[m] for 0 <= n < len_a + len_b - 1
 * (the terms with a or b index out of range are absent), as numpy.convolve(a, b, "full").
 * Included by tunekit.h; callable from C and C++; nothing here exits or prints.
 *
 * Implementations (the `impl` parameter):
 *   direct      one output per thread, both inputs read from global memory (the baseline)
 *   const_smem  the filter in __constant__ memory (when it fits: at most
 *               TK_CONV1D_CONST_FILTER_MAX elements), the signal tile with its halo in shared
 *               memory, outputs_per_thread outputs per thread from a register window
 *   smem        as const_smem, with the filter staged in shared memory chunk by chunk (any length)
 * Convolution is commutative: the library treats the longer input as the signal and the shorter
 * as the filter, whichever argument it is.
 *
 * Concurrency rule of const_smem: the __constant__ filter is one buffer per device and process.
 * A const_smem call copies its filter there with cudaMemcpyToSymbolAsync on the caller's stream,
 * after making that stream wait (cudaStreamWaitEvent) for the kernel of the previous const_smem
 * call on the same device, whatever stream it ran on; so const_smem calls on one device run one
 * after another on the GPU, in the order the host made them, and calls from any host threads and
 * streams are safe. A const_smem call falls back to the smem kernel (same results, bit for bit)
 * when the filter is longer than TK_CONV1D_CONST_FILTER_MAX, when the stream is being captured
 * into a CUDA graph (a captured copy into the shared buffer could not be ordered against other
 * calls), or on a device ordinal >= 64. The per-device events live until the process exits; do
 * not call cudaDeviceReset between const_smem calls. */
#ifndef TUNEKIT_CONV1D_H
#define TUNEKIT_CONV1D_H

#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest filter const_smem keeps in __constant__ memory (64 KB of f32: the whole bank). */
#define TK_CONV1D_CONST_FILTER_MAX 16384
/* The most outputs one block computes (block_size * outputs_per_thread). */
#define TK_CONV1D_MAX_TILE 4096

typedef enum tk_conv1d_impl {
    TK_CONV1D_DIRECT = 0,
    TK_CONV1D_CONST_SMEM = 1,
    TK_CONV1D_SMEM = 2
} tk_conv1d_impl;

typedef struct tk_conv1d_config {
    tk_conv1d_impl impl;
    int block_size;          /* threads per block, 32..1024, multiple of 32 */
    int outputs_per_thread;  /* 1, 2, 4, 8, 16 (direct: 1); block_size * it <= 4096 */
} tk_conv1d_config;

/* Parameters: block_size (launch time), impl and outputs_per_thread (compile time). */
const tk_config_space *tk_conv1d_config_space(void);
/* The classic default (the constant-memory filter with a shared-memory signal tile and one
 * output per thread, 256 threads): what a NULL config runs on a device the header does not know. */
tk_conv1d_config tk_conv1d_default_config(void);
tk_status tk_conv1d_config_from_text(const char *text, tk_conv1d_config *out);
/* 1 when the library has a variant for c (the values above), else 0. */
int tk_conv1d_config_supported(const tk_conv1d_config *c);

/* The problem size the tuned header keys conv1d entries by, from the filter length (the shorter
 * input, F) and the signal length (the longer, S):
 *     key = ceil(log2(F)) * 2^36 + S            (F and S clamped to 2^36 - 1)
 * so a header lookup (nearest key on a log scale) stays within the caller's filter-length
 * bucket (1, 2, 3-4, 5-8, ..., 8193-16384) whenever the header has an entry there, and takes
 * the nearest signal length inside it (on a nearly linear scale); without one, the nearest
 * bucket. Symmetric in its arguments; -1 when a length is < 1. */
int64_t tk_conv1d_size_key(int64_t len_a, int64_t len_b);

/* out[0 .. len_a + len_b - 1) = the full convolution of a[0 .. len_a) and b[0 .. len_b).
 * Accumulates in f32 with fmaf over the filter in ascending order (every implementation and
 * config gives the same bits). out must not overlap a or b. len_a == 0 or len_b == 0: nothing
 * to compute, TK_OK (NULL pointers allowed). TK_ERR_INVALID_ARGUMENT for a negative length or
 * a NULL pointer with work to do; TK_ERR_UNSUPPORTED_CONFIG for a config the library has no
 * variant for, or an output too long for one launch's grid; TK_ERR_CUDA / TK_ERR_LAUNCH when
 * the runtime fails. */
tk_status tk_conv1d_full(const float *a, int64_t len_a, const float *b, int64_t len_b, float *out,
                         const tk_conv1d_config *config, cudaStream_t stream);

/* The config a NULL-config call with these lengths would use on the current device (the tuned
 * header's entry, else the default). TK_ERR_INVALID_ARGUMENT for NULL out or a negative length. */
tk_status tk_conv1d_tuned_config(int64_t len_a, int64_t len_b, tk_conv1d_config *out);

#ifdef __cplusplus
}
#endif
#endif

/* tunekit.h: the public C API of libtunekit, the tuned CUDA kernel library.
 *
 * Every entry point takes its config as a pointer (NULL: the tuned config for the current device
 * and this problem size, from tuned_configs.h; built-in defaults when the header has nothing for
 * this device) and a stream, and returns a tk_status. Nothing here exits or prints.
 * Callable from C and C++. Sizes are 64-bit element counts. */
#ifndef TUNEKIT_H
#define TUNEKIT_H

#include <stdint.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_status {
    TK_OK = 0,
    TK_ERR_INVALID_ARGUMENT,   /* NULL pointer, negative size, unknown op or dtype */
    TK_ERR_UNSUPPORTED_CONFIG, /* a parameter value the library has no variant for */
    TK_ERR_LAUNCH,             /* the launch failed (cudaGetLastError after it) */
    TK_ERR_CUDA,               /* another CUDA runtime call failed */
    TK_ERR_OUT_OF_RANGE        /* an index argument out of its range (index_add) */
} tk_status;

const char *tk_status_string(tk_status s);

typedef enum tk_dtype { TK_F32 = 0, TK_F16 = 1, TK_BF16 = 2 } tk_dtype;
/* "f32", "f16", "bf16" <-> tk_dtype; parse returns -1 for an unknown name, name returns NULL for
 * an unknown dtype, size returns 0. */
int tk_dtype_parse(const char *name);
const char *tk_dtype_name(tk_dtype d);
size_t tk_dtype_size(tk_dtype d);

/* ---- Parameter spaces: which values each tunable parameter supports -------------------------
 * A parameter either lists its values (ints or strings) or allows a range lo..hi in steps of
 * `multiple`. The tuner rejects a space file that asks for anything else before running it. */
typedef struct tk_param_desc {
    const char *name;
    int compile_time;                 /* 1: selects a pre-instantiated template */
    int n_values;                     /* > 0: the listed values; 0: the range below */
    const int64_t *int_values;        /* listed integers, or NULL */
    const char *const *str_values;    /* listed strings, or NULL (string params map to index) */
    int64_t lo, hi, multiple;         /* range rule when n_values == 0 */
    int64_t default_value;            /* the classic default (an index for string params) */
} tk_param_desc;

typedef struct tk_config_space {
    const char *family;
    int n_params;
    const tk_param_desc *params;
} tk_config_space;

/* 1 when the integer (or string index) v is a supported value of param d. */
int tk_param_supports(const tk_param_desc *d, int64_t v);

/* Parses canonical config text "k=v,k=v" against a space into values[n_params], in the space's
 * parameter order (strings as their index in str_values). Every parameter must appear exactly
 * once with a supported value; keys may come in any order; no whitespace. Returns TK_OK;
 * TK_ERR_INVALID_ARGUMENT for NULL arguments or bad syntax (an item without '=', an empty key or
 * value, a number that does not parse or overflows, a trailing comma); TK_ERR_UNSUPPORTED_CONFIG
 * for an unknown, repeated or missing parameter or an unsupported value. values[] is written
 * only on TK_OK. */
tk_status tk_config_parse(const tk_config_space *space, const char *text, int64_t *values);

/* ---- Elementwise (OneFlow's template) --------------------------------------------------------
 * Variants: pack_size elements per vector access (1, 2, 4, 8; at most 16 bytes), a grid from
 * `waves` full waves of the device (grid_stride) or one thread per pack (one_shot), any block
 * size from 32 to 1024 in multiples of 32. Pointers not aligned to the pack fall back to scalar
 * access; the tail is handled; n may exceed 2^31. */
/* relu: x > 0 || x is NaN ? x : 0 (NaN propagates, as torch.relu); gelu: the exact (erf) form,
 * x * Phi(x), computed through erfc (elementwise.cu) */
typedef enum tk_unary_op { TK_RELU = 0, TK_GELU = 1 } tk_unary_op;
typedef enum tk_binary_op { TK_MUL = 0, TK_ADD = 1 } tk_binary_op;
typedef enum tk_loop { TK_LOOP_GRID_STRIDE = 0, TK_LOOP_ONE_SHOT = 1 } tk_loop;
/* evict_first: packs loaded and stored with the evict-first hint (data used once leaves L2). */
typedef enum tk_cache_hint { TK_CACHE_NORMAL = 0, TK_CACHE_EVICT_FIRST = 1 } tk_cache_hint;

typedef struct tk_elementwise_config {
    int block_size;          /* threads per block, 32..1024, multiple of 32 */
    int waves;               /* grid_stride: grid = min(packs/block, waves * resident blocks) */
    int pack_size;           /* elements per vector access */
    tk_loop loop;
    int unroll;              /* packs in flight per thread: 1, 2 or 4 */
    tk_cache_hint cache_hint;
} tk_elementwise_config;

const tk_config_space *tk_elementwise_config_space(void);
/* The classic default: 256 threads, 32 waves, 16-byte packs, grid-stride, unroll 1, no hint. */
tk_elementwise_config tk_elementwise_default_config(tk_dtype dtype);
tk_status tk_elementwise_config_from_text(const char *text, tk_elementwise_config *out);

/* y[i] = op(x[i]) */
tk_status tk_elementwise_unary(tk_unary_op op, tk_dtype dtype, int64_t n, const void *x, void *y,
                               const tk_elementwise_config *config, cudaStream_t stream);
/* y[i] = a[i] op b[i] */
tk_status tk_elementwise_binary(tk_binary_op op, tk_dtype dtype, int64_t n, const void *a,
                                const void *b, void *y, const tk_elementwise_config *config,
                                cudaStream_t stream);
/* out[i] = x[i] * y[i] + z[i] */
tk_status tk_elementwise_fma(tk_dtype dtype, int64_t n, const void *x, const void *y,
                             const void *z, void *out, const tk_elementwise_config *config,
                             cudaStream_t stream);

/* The config a NULL-config call with these arguments would use on the current device (what the
 * tuned header gives, else the default). For tests and for users who want to log it. */
tk_status tk_elementwise_tuned_config(const char *op, tk_dtype dtype, int64_t n,
                                      tk_elementwise_config *out);

#ifdef __cplusplus
}
#endif

/* family headers: each further family declares its API in kernels/tunekit_<family>.h (with its
 * own extern "C" guard), included here so that tunekit.h stays the one public header. */
#include "tunekit_upsample.h"
#include "tunekit_conv1d.h"
#include "tunekit_reduce.h"
#include "tunekit_relu_mask.h"
#include "tunekit_atomic.h"
#include "tunekit_index_add.h"

#endif

/* measure.h: measuring one variant on the GPU in the worker (docs/architecture.md, "The worker
 * model"): poison, one launch, synchronise, validate, then warm-up and timed runs between CUDA
 * events with L2 flushed before each (cache cold), until the median's confidence interval
 * converges; and the device-to-device copy bandwidth that every evaluation is compared with. Also
 * the pure rules that map CUDA and library errors to evaluation statuses (CPU-testable). */
#pragma once
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "core/eval.h"
#include "core/device.h"
#include "ops/ops.h"

typedef struct measure_ctx measure_ctx;

/* Creates the worker's measuring state on the current device: a stream, two timing events and
 * the 2 x L2 flush buffer (allocated once per worker). Returns 0, or -1 with err. The caller
 * frees it with measure_ctx_free. */
int measure_ctx_create(const device_info *dev, measure_ctx **out, char *err, size_t len);
void measure_ctx_free(measure_ctx *c);

/* Evaluates config on the prepared instance; fills *out (overwritten; out->samples malloc'd,
 * eval_result_clear frees). Statuses: unsupported (the library has no such variant, or the
 * launch needs more resources than the device has), launch_error (another refused launch),
 * fault (a CUDA error while running; *context_lost = 1 when the context is gone and the worker
 * must exit after answering), invalid (validation failed: never timed), ok (every timed run in
 * out->samples, in µs, with out->stats). validate = 0 skips validation. */
void measure_variant(measure_ctx *c, const op_family *f, op_instance *inst, const char *config,
                     const measure_settings *ms, int validate, eval_result *out,
                     int *context_lost);

/* Device-to-device copy bandwidth in GB/s counting bytes read + written: cudaMemcpyAsync of
 * min(1 GiB, memory / 8) of random bytes (as the kernels it judges read; PyTorch's copy_ on
 * random data measured this way) between two buffers, 3 warm-ups, the median of 25 timed copies.
 * Returns 0, or -1 with err (a CUDA error). */
int measure_copy_gbps(measure_ctx *c, double *gbps, char *err, size_t len);

/* ---- status rules (pure) ---- */
/* 1 for the errors that leave the CUDA context unusable (illegal address, launch failure,
 * misaligned address, illegal instruction, hardware stack error, ...). */
int measure_error_is_sticky(cudaError_t e);
/* 1 for launch errors that mean the variant needs more than the device gives (invalid
 * configuration, out of resources, cooperative launch too large). */
int measure_error_is_resource(cudaError_t e);
/* The status of a launch that returned st (not TK_OK): e is the CUDA error still pending after it
 * (cudaSuccess when the library consumed it) and text the harness's error text, searched for the
 * resource errors' names and messages when e says nothing. */
eval_status measure_launch_status(tk_status st, cudaError_t e, const char *text);

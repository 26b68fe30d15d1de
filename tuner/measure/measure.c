/* measure.c: the worker's timing loop, validation flow, copy bandwidth, and the rules that turn
 * CUDA and library errors into evaluation statuses (see measure.h). A bad variant ends as one
 * status here; only a lost CUDA context makes the worker exit (the parent restarts it). */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/stats.h"
#include "tk_check.h"

struct measure_ctx {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush;             /* 2 x L2 bytes: overwritten (cold) or read (clean) before a timed run */
    size_t flush_bytes;
    int64_t mem_bytes;
    unsigned flush_count;    /* cold: the byte value changes every time */
};

/* ---- status rules ---- */

int measure_error_is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorTensorMemoryLeak:
        return 1;
    default:
        return 0;
    }
}

int measure_error_is_resource(cudaError_t e)
{
    return e == cudaErrorInvalidConfiguration || e == cudaErrorLaunchOutOfResources ||
           e == cudaErrorCooperativeLaunchTooLarge;
}

eval_status measure_launch_status(tk_status st, cudaError_t e, const char *text)
{
    static const char *const resource_words[] = {
        "cudaErrorInvalidConfiguration", "cudaErrorLaunchOutOfResources",
        "cudaErrorCooperativeLaunchTooLarge", "too many resources requested",
        "invalid configuration argument",
    };
    if (st == TK_ERR_UNSUPPORTED_CONFIG) return EVAL_UNSUPPORTED;
    if (measure_error_is_resource(e)) return EVAL_UNSUPPORTED;
    for (size_t i = 0; text && i < sizeof resource_words / sizeof *resource_words; i++)
        if (strstr(text, resource_words[i])) return EVAL_UNSUPPORTED;
    return EVAL_LAUNCH_ERROR;
}

/* ---- context ---- */

int measure_ctx_create(const device_info *dev, measure_ctx **out, char *err, size_t len)
{
    *out = NULL;
    int rc = -1;
    cudaError_t e;
    const char *what = "";
    measure_ctx *c = calloc(1, sizeof *c);
    if (!c) { snprintf(err, len, "out of host memory"); goto done; }
    c->mem_bytes = dev->mem_bytes;
    c->flush_bytes = (size_t)(dev->l2_bytes > 0 ? 2 * dev->l2_bytes : 64 << 20);
    what = "cudaStreamCreate";
    if ((e = cudaStreamCreate(&c->stream)) != cudaSuccess) goto cuda_fail;
    what = "cudaEventCreate";
    if ((e = cudaEventCreate(&c->start)) != cudaSuccess) goto cuda_fail;
    if ((e = cudaEventCreate(&c->stop)) != cudaSuccess) goto cuda_fail;
    what = "cudaMalloc (L2 flush buffer)";
    if ((e = cudaMalloc(&c->flush, c->flush_bytes)) != cudaSuccess) goto cuda_fail;
    what = "cudaMemset (L2 flush buffer)";
    if ((e = cudaMemset(c->flush, 0x5a, c->flush_bytes)) != cudaSuccess) goto cuda_fail;
    *out = c;
    c = NULL;
    rc = 0;
    goto done;
cuda_fail:
    snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
done:
    measure_ctx_free(c);
    return rc;
}

void measure_ctx_free(measure_ctx *c)
{
    if (!c) return;
    if (c->flush) cudaFree(c->flush);
    if (c->start) cudaEventDestroy(c->start);
    if (c->stop) cudaEventDestroy(c->stop);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

/* ---- one variant ---- */

/* 1 when the context is lost: a sticky error is returned by every later call. Clears a
 * non-sticky pending error. */
static int context_lost_now(void)
{
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess;
}

static void set_fault(eval_result *out, int *lost, const char *what, cudaError_t e)
{
    out->status = EVAL_FAULT;
    snprintf(out->error, sizeof out->error, "%s: %s (%s)", what, cudaGetErrorName(e),
             cudaGetErrorString(e));
    *lost = measure_error_is_sticky(e) || context_lost_now();
}

/* A launch returned st != TK_OK with text. */
static void set_launch_failure(eval_result *out, int *lost, tk_status st, const char *text)
{
    cudaError_t e = cudaGetLastError();
    if (measure_error_is_sticky(e) || context_lost_now()) {
        out->status = EVAL_FAULT;
        *lost = 1;
    } else {
        out->status = measure_launch_status(st, e, text);
    }
    if (e != cudaSuccess)
        snprintf(out->error, sizeof out->error, "%s (%s: %s)", text, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    else
        snprintf(out->error, sizeof out->error, "%s", text);
}

/* Validation pass: poison, one launch, synchronise, compare. 0 when the variant may be timed;
 * otherwise out holds its status. */
static int run_checked(measure_ctx *c, const op_family *f, op_instance *inst, const char *config,
                       int validate, eval_result *out, int *lost)
{
    char text[sizeof out->error];
    text[0] = 0;
    if (f->poison(inst, text, sizeof text)) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "poison: %s", text);
        *lost = context_lost_now();
        return -1;
    }
    tk_status st = f->launch(inst, config, c->stream, text, sizeof text);
    if (st != TK_OK) {
        set_launch_failure(out, lost, st, text);
        return -1;
    }
    cudaError_t e = cudaStreamSynchronize(c->stream);
    if (e != cudaSuccess) {
        set_fault(out, lost, "kernel", e);
        return -1;
    }
    if (!validate) return 0;
    text[0] = 0;
    int rc = f->validate(inst, text, sizeof text);
    if (rc == 1) {
        out->status = EVAL_INVALID;
        snprintf(out->error, sizeof out->error, "%s", text);
        return -1;
    }
    if (rc != 0) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "validate: %s", text);
        *lost = context_lost_now();
        return -1;
    }
    return 0;
}

void measure_variant(measure_ctx *c, const op_family *f, op_instance *inst, const char *config,
                     const measure_settings *ms, int validate, eval_result *out,
                     int *context_lost)
{
    memset(out, 0, sizeof *out);
    *context_lost = 0;
    char text[sizeof out->error];
    double *samples = NULL;
    cudaError_t e;

    if (run_checked(c, f, inst, config, validate, out, context_lost)) goto done;

    for (int w = 0; w < ms->warmup; w++) {
        text[0] = 0;
        tk_status st = f->launch(inst, config, c->stream, text, sizeof text);
        if (st != TK_OK) { set_launch_failure(out, context_lost, st, text); goto done; }
    }
    if ((e = cudaStreamSynchronize(c->stream)) != cudaSuccess) {
        set_fault(out, context_lost, "warm-up", e);
        goto done;
    }

    int max_runs = ms->max_runs > 0 ? ms->max_runs : 1;
    int min_runs = ms->min_runs < 1 ? 1 : ms->min_runs > max_runs ? max_runs : ms->min_runs;
    samples = malloc((size_t)max_runs * sizeof *samples);
    if (!samples) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "out of host memory for %d samples", max_runs);
        goto done;
    }
    int n = 0;
    double total_us = 0;
    while (n < max_runs) {
        if (ms->cold == MEASURE_COLD) {
            int byte = (int)(++c->flush_count & 0xff);
            if ((e = cudaMemsetAsync(c->flush, byte, c->flush_bytes, c->stream)) != cudaSuccess) {
                set_fault(out, context_lost, "L2 flush", e);
                goto done;
            }
        } else if (ms->cold == MEASURE_CLEAN) {
            if (tk_check_flush_l2(c->flush, c->flush_bytes, c->stream) != TK_OK) {
                set_fault(out, context_lost, "L2 flush", cudaGetLastError());
                goto done;
            }
        }
        if ((e = cudaEventRecord(c->start, c->stream)) != cudaSuccess) {
            set_fault(out, context_lost, "cudaEventRecord", e);
            goto done;
        }
        text[0] = 0;
        tk_status st = f->launch(inst, config, c->stream, text, sizeof text);
        if (st != TK_OK) { set_launch_failure(out, context_lost, st, text); goto done; }
        if ((e = cudaEventRecord(c->stop, c->stream)) != cudaSuccess ||
            (e = cudaEventSynchronize(c->stop)) != cudaSuccess) {
            set_fault(out, context_lost, "timed run", e);
            goto done;
        }
        float ms_elapsed = 0;
        if ((e = cudaEventElapsedTime(&ms_elapsed, c->start, c->stop)) != cudaSuccess) {
            set_fault(out, context_lost, "cudaEventElapsedTime", e);
            goto done;
        }
        samples[n++] = ms_elapsed * 1000.0;
        total_us += ms_elapsed * 1000.0;
        if (n < min_runs) continue;
        if (ms->max_seconds > 0 && total_us >= ms->max_seconds * 1e6) break;
        sample_stats s;
        stats_summarize(samples, n, &s);
        if (stats_converged(&s, ms->rel_ci)) break;
    }
    out->status = EVAL_OK;
    out->samples = samples;
    out->n_samples = n;
    stats_summarize(samples, n, &out->stats);
    samples = NULL;
done:
    free(samples);
}

/* ---- copy bandwidth ---- */

int measure_copy_gbps(measure_ctx *c, double *gbps, char *err, size_t len)
{
    enum { WARMUP = 3, RUNS = 25 };
    int rc = -1;
    void *src = NULL, *dst = NULL;
    double us[RUNS];
    cudaError_t e;
    const char *what = "cudaMalloc";
    *gbps = 0;
    size_t size = (size_t)1 << 30;
    if (c->mem_bytes > 0 && (size_t)(c->mem_bytes / 8) < size) size = (size_t)(c->mem_bytes / 8);
    size &= ~(size_t)255;
    if (size == 0) { snprintf(err, len, "copy bandwidth: device memory size unknown"); goto done; }
    if ((e = cudaMalloc(&src, size)) != cudaSuccess) goto cuda_fail;
    if ((e = cudaMalloc(&dst, size)) != cudaSuccess) goto cuda_fail;
    what = "random fill";
    if (tk_check_fill_random(src, size, 0x5eed, c->stream) != TK_OK) {
        e = cudaGetLastError();
        goto cuda_fail;
    }
    what = "cudaMemcpyAsync";
    for (int i = 0; i < WARMUP; i++)
        if ((e = cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, c->stream)) !=
            cudaSuccess)
            goto cuda_fail;
    for (int i = 0; i < RUNS; i++) {
        what = "timed copy";
        float ms = 0;
        if ((e = cudaEventRecord(c->start, c->stream)) != cudaSuccess ||
            (e = cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, c->stream)) !=
                cudaSuccess ||
            (e = cudaEventRecord(c->stop, c->stream)) != cudaSuccess ||
            (e = cudaEventSynchronize(c->stop)) != cudaSuccess ||
            (e = cudaEventElapsedTime(&ms, c->start, c->stop)) != cudaSuccess)
            goto cuda_fail;
        us[i] = ms * 1000.0;
    }
    double median_us = stats_quantile(us, RUNS, 0.5);
    if (median_us <= 0) { snprintf(err, len, "copy bandwidth: zero copy time"); goto done; }
    *gbps = 2.0 * (double)size / (median_us * 1e3);
    rc = 0;
    goto done;
cuda_fail:
    snprintf(err, len, "copy bandwidth (%zu bytes): %s: %s", size, what, cudaGetErrorString(e));
done:
    if (src) cudaFree(src);
    if (dst) cudaFree(dst);
    return rc;
}

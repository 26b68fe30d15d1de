/* harness.c: shared worker-side mechanics of the op harnesses (see harness.h). */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "tk_check.h"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; s && *s; s++) { h ^= (unsigned char)*s; h *= 1099511628211ull; }
    return h;
}

uint64_t harness_seed(uint64_t seed, const char *op, const char *dtype, const problem *p)
{
    uint64_t h = 14695981039346656037ull ^ seed;
    h = fnv1a(h, op); h = fnv1a(h, "/"); h = fnv1a(h, dtype); h = fnv1a(h, "/");
    return fnv1a(h, p ? p->text : "");
}

/* splitmix64: turns (seed, stream, chunk) into well-spread generator seeds. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

enum { PAR_CHUNK = 1 << 20, PAR_MAX_THREADS = 64 };

typedef struct par_job {
    int64_t n;
    void (*fn)(void *ctx, int64_t begin, int64_t end);
    void *ctx;
    int64_t next_chunk;      /* taken with __atomic_fetch_add */
} par_job;

static void *par_worker(void *arg)
{
    par_job *j = arg;
    int64_t n_chunks = (j->n + PAR_CHUNK - 1) / PAR_CHUNK;
    for (;;) {
        int64_t c = __atomic_fetch_add(&j->next_chunk, 1, __ATOMIC_RELAXED);
        if (c >= n_chunks) break;
        int64_t b = c * PAR_CHUNK, e = b + PAR_CHUNK < j->n ? b + PAR_CHUNK : j->n;
        j->fn(j->ctx, b, e);
    }
    return NULL;
}

void harness_parallel_for(int64_t n, void (*fn)(void *ctx, int64_t begin, int64_t end),
                          void *ctx)
{
    par_job job = { n, fn, ctx, 0 };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t n_chunks = (n + PAR_CHUNK - 1) / PAR_CHUNK;
    int threads = (int)(cpus < 1 ? 1 : cpus > PAR_MAX_THREADS ? PAR_MAX_THREADS : cpus);
    if (threads > n_chunks) threads = (int)n_chunks;
    pthread_t tid[PAR_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, par_worker, &job) == 0) started++;
    par_worker(&job);   /* the calling thread works too; with no helper it does everything */
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

typedef struct fill_job {
    uint64_t seed;
    int stream;
    tk_dtype dtype;
    double lo, hi;
    void *out;
    double *exact;
} fill_job;

static void fill_chunk(void *ctx, int64_t begin, int64_t end)
{
    const fill_job *j = ctx;
    enum { BUF = 4096 };
    double buf[BUF];
    size_t es = tk_dtype_size(j->dtype);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    if (!r) return;   /* out of memory: the chunk keeps its zeros and validation reports it */
    gsl_rng_set(r, (unsigned long)mix64(j->seed ^ mix64((uint64_t)j->stream << 40 ^ (uint64_t)(begin / PAR_CHUNK))));
    for (int64_t base = begin; base < end; base += BUF) {
        int64_t m = end - base < BUF ? end - base : BUF;
        for (int64_t i = 0; i < m; i++) {
            double v;
            do v = j->lo + (j->hi - j->lo) * gsl_rng_uniform(r); while (v == 0.0);
            buf[i] = v;
        }
        char *dst = (char *)j->out + (size_t)base * es;
        tk_host_from_double(j->dtype, buf, dst, m);
        if (j->exact) tk_host_to_double(j->dtype, dst, j->exact + base, m);
    }
    gsl_rng_free(r);
}

void harness_fill_uniform(uint64_t seed, int stream, tk_dtype dtype, int64_t n, double lo,
                          double hi, void *host_out, double *exact)
{
    fill_job j = { seed, stream, dtype, lo, hi, host_out, exact };
    harness_parallel_for(n, fill_chunk, &j);
}

int harness_upload(void **dev, const void *host, size_t bytes, char *err, size_t len)
{
    *dev = NULL;
    cudaError_t e = cudaMalloc(dev, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaMalloc(%zu bytes): %s", bytes, cudaGetErrorString(e));
        *dev = NULL;
        return -1;
    }
    if (host && bytes) {
        e = cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            snprintf(err, len, "cudaMemcpy(%zu bytes to device): %s", bytes, cudaGetErrorString(e));
            cudaFree(*dev);
            *dev = NULL;
            return -1;
        }
    }
    return 0;
}

double harness_unit_roundoff(tk_dtype d)
{
    return d == TK_F16 ? 0x1p-11 : d == TK_BF16 ? 0x1p-8 : 0x1p-24;
}

int harness_compare(tk_dtype dtype, int64_t n, const void *out, const double *ref, double rtol,
                    double atol, char *err, size_t len)
{
    enum { REPORT = 4 };
    int64_t n_bad = 0, idx[REPORT];
    double got[REPORT], want[REPORT];
    tk_status st = tk_check_close(dtype, n, out, ref, rtol, atol, &n_bad, idx, got, want, REPORT,
                                  0);
    if (st != TK_OK) {
        snprintf(err, len, "validation: %s (%s)", tk_status_string(st),
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    if (n_bad == 0) return 0;
    int w = snprintf(err, len, "%lld of %lld elements differ (rtol %g, atol %g); first:",
                     (long long)n_bad, (long long)n, rtol, atol);
    for (int k = 0; k < REPORT && k < n_bad && w > 0 && (size_t)w < len; k++)
        w += snprintf(err + w, len - (size_t)w, " [%lld] got %.9g expected %.9g",
                      (long long)idx[k], got[k], want[k]);
    return 1;
}

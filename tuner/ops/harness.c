/* harness.c: shared worker-side mechanics of the op harnesses (see harness.h). */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "../../kernels/tk_check.h"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; s && *s; s++) { h ^= (unsigned char)*s; h *= 1099511628211ull; }
    return h;
}

gsl_rng *harness_rng(uint64_t seed, const char *op, const char *dtype, const problem *p)
{
    uint64_t h = 14695981039346656037ull ^ seed;
    h = fnv1a(h, op); h = fnv1a(h, "/"); h = fnv1a(h, dtype); h = fnv1a(h, "/");
    h = fnv1a(h, p ? p->text : "");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    if (r) gsl_rng_set(r, (unsigned long)(h ^ (h >> 32)));
    return r;
}

void harness_fill_uniform(gsl_rng *r, tk_dtype dtype, int64_t n, double lo, double hi,
                          void *host_out, double *exact)
{
    enum { CHUNK = 4096 };
    double buf[CHUNK];
    size_t es = tk_dtype_size(dtype);
    for (int64_t base = 0; base < n; base += CHUNK) {
        int64_t m = n - base < CHUNK ? n - base : CHUNK;
        for (int64_t i = 0; i < m; i++) {
            double v;
            do v = lo + (hi - lo) * gsl_rng_uniform(r); while (v == 0.0);
            buf[i] = v;
        }
        char *dst = (char *)host_out + (size_t)base * es;
        tk_host_from_double(dtype, buf, dst, m);
        if (exact) tk_host_to_double(dtype, dst, exact + base, m);
    }
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

/* test_gelu.c: the 16-bit gelu's polynomial (kernels/elementwise_gelu16.h), checked on the CPU over every
 * finite half and bfloat16. A float twin of GeluOp's f16/bf16 path in kernels/elementwise.cu (the
 * same operations in the same order; IEEE 1/d and exp2f stand in for the GPU's approximate
 * reciprocal and ex2.approx, each within 2 ulps of them, and results below FLT_MIN flush to zero
 * as ex2.approx.ftz does) is rounded to the dtype and compared with x Phi(x) computed in double:
 * every result within the elementwise validation's tolerance (tuner/ops/elementwise.c: f16 rtol
 * 2^-10, atol 1e-4; bf16 rtol 2^-7, atol 1e-6), none more than 1 ulp from the correctly rounded
 * result where the tolerance is relative (|result| > atol), and few even that; infinities and NaN as documented. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "elementwise_gelu16.h"
#include "tk_check.h"

static const float q16[] = TK_GELU_Q16;

static float gelu16_twin(float f)
{
    const float u = fabsf(f);
    const float t = 1.0f / fmaf(u, TK_GELU_INV_2SQRT2, 1.0f);
    float q = q16[0];
    for (int i = 1; i < TK_GELU_Q16_TERMS; i++) q = fmaf(q, t, q16[i]);
    float e = exp2f(fmaf(-TK_GELU_HALF_LOG2E * u, u, q));
    if (e < FLT_MIN) e = 0.0f;
    const float h = t * e;
    return f * (f > 0.0f ? 1.0f - h : h);
}

/* bits of the dtype's value v (v representable) */
static uint16_t bits_of(tk_dtype dt, double v)
{
    uint16_t b;
    tk_host_from_double(dt, &v, &b, 1);
    return b;
}

/* distance in ulps between two values of the dtype given by their bits (same sign assumed
 * unless one is zero) */
static int ulps(uint16_t a, uint16_t b)
{
    int ia = a & 0x8000 ? -(int)(a & 0x7fff) : (int)a;
    int ib = b & 0x8000 ? -(int)(b & 0x7fff) : (int)b;
    return abs(ia - ib);
}

static void sweep(tk_dtype dt, const char *name, double rtol, double atol, int max_off)
{
    int finite = 0, outside = 0, off1 = 0, off_more = 0;
    for (uint32_t bits = 0; bits < 65536; bits++) {
        uint16_t b = (uint16_t)bits;
        double x;
        tk_host_to_double(dt, &b, &x, 1);
        if (!isfinite(x)) continue;
        finite++;
        double ref = x * 0.5 * erfc(-x / sqrt(2.0));
        double got = tk_host_round(dt, (double)gelu16_twin((float)x));
        if (!(fabs(got - ref) <= atol + rtol * fabs(ref))) {
            if (outside++ < 5)
                fprintf(stderr, "test_gelu: %s x=%.9g: got %.9g, want %.9g\n", name, x, got, ref);
        }
        /* ulps count where the tolerance is relative (below atol the result is noise either way) */
        if (fabs(ref) <= atol) continue;
        int d = ulps(bits_of(dt, got), bits_of(dt, ref));
        off1 += d == 1;
        off_more += d > 1;
        if (d > 1) fprintf(stderr, "test_gelu: %s x=%.9g: %d ulps (got %.9g, want %.9g)\n", name, x, d, got, ref);
    }
    printf("test_gelu: %s: %d finite inputs, %d outside the tolerance, %d 1 ulp from the correctly "
           "rounded result, %d further\n", name, finite, outside, off1, off_more);
    CHECK(finite > 60000);
    CHECK(outside == 0);
    CHECK(off_more == 0);
    CHECK(off1 <= max_off);
}

int main(void)
{
    sweep(TK_F16, "f16", 1.0 / 1024, 1e-4, 64);
    sweep(TK_BF16, "bf16", 1.0 / 128, 1e-6, 160);
    /* special values, as GeluOp documents them */
    CHECK(gelu16_twin(INFINITY) == INFINITY);
    CHECK(isnan(gelu16_twin(-INFINITY)));
    CHECK(isnan(gelu16_twin(NAN)));
    CHECK(gelu16_twin(0.0f) == 0.0f);
    CHECK(gelu16_twin(-65504.0f) == 0.0f);
    CHECK(gelu16_twin(65504.0f) == 65504.0f);
    /* the fitted range's edge and past it: tiny, never growing */
    CHECK(fabsf(gelu16_twin(-8.5f)) < 1e-15f && fabsf(gelu16_twin(-20.0f)) <= fabsf(gelu16_twin(-8.5f)));
    return CHECK_DONE();
}

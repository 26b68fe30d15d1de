/* host_convert.c: host conversions between doubles and the library's element types, declared in
 * tk_check.h: tk_host_from_double rounds a double straight to f32, f16 or bf16 storage (round to
 * nearest, ties to even, in one step: never through float, which would round twice), and
 * tk_host_to_double widens storage back to double exactly, tk_host_round does both. Integer bit
 * arithmetic only, so the result does not depend on the FPU's rounding mode for f16 and bf16.
 * Nothing is allocated. */
#include <stdint.h>
#include <string.h>
#include "tk_check.h"

/* The binary16 / bfloat16 bits nearest to x (ties to even) for a format with ebits exponent and
 * mbits fraction bits; NaN becomes a quiet NaN of the same sign, overflow becomes infinity. */
static uint16_t round_to_small_float(double x, int ebits, int mbits)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const uint16_t sign = (uint16_t)((b >> 63) << 15);
    const int dexp = (int)(b >> 52 & 0x7ff);
    const uint64_t dfrac = b & ((UINT64_C(1) << 52) - 1);
    const uint16_t exp_ones = (uint16_t)(((1u << ebits) - 1) << mbits);
    if (dexp == 0x7ff) /* Inf or NaN */
        return (uint16_t)(sign | exp_ones | (dfrac ? 1u << (mbits - 1) : 0u));
    if (dexp == 0 && dfrac == 0) return sign;

    const int bias = (1 << (ebits - 1)) - 1;
    const int emin = 1 - bias; /* the smallest normal exponent */
    /* x = sig * 2^e2 with sig an integer below 2^53, unbiased exponent E of its leading bit */
    const uint64_t sig = dexp ? dfrac | UINT64_C(1) << 52 : dfrac;
    const int e2 = dexp ? dexp - 1075 : -1074;
    const int E = dexp ? dexp - 1023 : -1023; /* subnormal doubles are far below emin anyway */
    if (E > bias) return (uint16_t)(sign | exp_ones);
    /* the quantum of the result: 2^q, with q = max(E, emin) - mbits */
    int q = (E < emin ? emin : E) - mbits;
    const int shift = q - e2; /* > 0: E <= bias keeps q above e2 for both formats */
    uint64_t r = 0;
    if (shift < 64) {
        r = sig >> shift;
        const uint64_t rem = sig & ((UINT64_C(1) << shift) - 1);
        const uint64_t half = UINT64_C(1) << (shift - 1);
        if (rem > half || (rem == half && (r & 1u))) r++;
    }
    if (r == UINT64_C(1) << (mbits + 1)) { /* rounded up to the next binade */
        r >>= 1;
        q++;
    }
    if (r < UINT64_C(1) << mbits) return (uint16_t)(sign | r); /* subnormal or zero */
    const int biased = q + mbits + bias;
    if (biased >= (1 << ebits) - 1) return (uint16_t)(sign | exp_ones);
    return (uint16_t)(sign | (uint16_t)biased << mbits | (uint16_t)(r - (UINT64_C(1) << mbits)));
}

/* The exact double value of binary16 bits h. */
static double half_to_double(uint16_t h)
{
    const int exp = h >> 10 & 0x1f;
    const unsigned frac = h & 0x3ffu;
    double v;
    if (exp == 0x1f) {
        uint64_t b = (frac ? UINT64_C(0x7ff8000000000000) : UINT64_C(0x7ff0000000000000));
        memcpy(&v, &b, sizeof v);
    } else if (exp == 0) {
        v = (double)frac * 0x1p-24;
    } else {
        uint64_t b = (uint64_t)(exp - 15 + 1023) << 52 | (uint64_t)frac << 42;
        memcpy(&v, &b, sizeof v);
    }
    return (h & 0x8000u) ? -v : v;
}

/* The exact double value of bfloat16 bits h (the high half of a float). */
static double bf16_to_double(uint16_t h)
{
    const uint32_t fb = (uint32_t)h << 16;
    float f;
    memcpy(&f, &fb, sizeof f);
    return (double)f;
}

void tk_host_from_double(tk_dtype dtype, const double *src, void *dst, int64_t n)
{
    if (!src || !dst || n <= 0) return;
    for (int64_t i = 0; i < n; i++) {
        switch (dtype) {
        case TK_F32: ((float *)dst)[i] = (float)src[i]; break;
        case TK_F16: ((uint16_t *)dst)[i] = round_to_small_float(src[i], 5, 10); break;
        case TK_BF16: ((uint16_t *)dst)[i] = round_to_small_float(src[i], 8, 7); break;
        }
    }
}

void tk_host_to_double(tk_dtype dtype, const void *src, double *dst, int64_t n)
{
    if (!src || !dst || n <= 0) return;
    for (int64_t i = 0; i < n; i++) {
        switch (dtype) {
        case TK_F32: dst[i] = (double)((const float *)src)[i]; break;
        case TK_F16: dst[i] = half_to_double(((const uint16_t *)src)[i]); break;
        case TK_BF16: dst[i] = bf16_to_double(((const uint16_t *)src)[i]); break;
        }
    }
}

double tk_host_round(tk_dtype dtype, double v)
{
    unsigned char bits[8];
    double r = 0;
    tk_host_from_double(dtype, &v, bits, 1);
    tk_host_to_double(dtype, bits, &r, 1);
    return r;
}

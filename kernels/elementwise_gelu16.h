/* elementwise_gelu16.h: the polynomial of the 16-bit gelu (elementwise.cu's GeluOp for f16 and bf16), shared
 * by the kernel and its CPU twin in tests/unit/test_gelu.c so that the test checks the very
 * coefficients the GPU uses. Q(t), highest power first, with t = 1 / (1 + |x| / (2 sqrt 2)):
 * erfc(|x| / sqrt 2) / 2 = t 2^(Q(t) - log2(e) x^2 / 2) within a relative 1.1e-5 for |x| <= 8.5.
 * Fitted by weighted least squares on 400 Chebyshev nodes of t in [1/4, 1] to
 * log2(erfc(z) / (2t)) + z^2 log2(e), z = |x| / sqrt 2, then rounded to float. */
#ifndef TUNEKIT_ELEMENTWISE_GELU16_H
#define TUNEKIT_ELEMENTWISE_GELU16_H

#define TK_GELU_Q16_TERMS 7
#define TK_GELU_Q16                                                                           \
    { -1.416280419e-01f, 8.675366044e-01f, -1.843368292e+00f, 1.326017737e+00f,              \
      9.721742570e-02f, 1.526323438e+00f, -2.832098484e+00f }
/* 1 / (2 sqrt 2) and log2(e) / 2, as the kernel writes them */
#define TK_GELU_INV_2SQRT2 0.353553390593273762f
#define TK_GELU_HALF_LOG2E 0.721347520444481703f
#define TK_GELU_LOG2E 1.44269504088896341f

#endif

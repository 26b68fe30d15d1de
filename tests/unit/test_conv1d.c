/* test_conv1d.c: the CPU parts of the conv1d family: the double reference against a plain
 * scatter-add convolution (sizes from 1 to a work-split output, both argument orders), the
 * tolerance maths (values, growth, symmetry) and that it accepts an f32 accumulation done the
 * way the kernels do it while rejecting planted errors (a dropped tap, a window off by one, a
 * missing chunk of taps, one wrong output), the header's size key (buckets, clamping, symmetry,
 * nearest-entry behaviour through tk_tuned_nearest), the harness's parent-side members through
 * the registry, config text and support rules, and the argument checks of tk_conv1d_full that
 * return before any CUDA call. */
#include "check.h"
#include "ops/conv1d.h"
#include "ops/harness.h"
#include "ops/ops.h"
#include "tuned_lookup.h"
#include "tunekit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static double *random_doubles(uint64_t seed, int stream, int64_t n)
{
    float *f = malloc((size_t)n * sizeof *f);
    double *d = malloc((size_t)n * sizeof *d);
    harness_fill_uniform(seed, stream, TK_F32, n, -CONV1D_INPUT_BOUND, CONV1D_INPUT_BOUND, f, d);
    free(f);
    return d;
}

/* out[i + j] += a[i] * b[j]: a different order of the same sums. The caller frees. */
static double *scatter_conv(const double *a, int64_t la, const double *b, int64_t lb)
{
    double *out = calloc((size_t)(la + lb - 1), sizeof *out);
    for (int64_t i = 0; i < la; i++)
        for (int64_t j = 0; j < lb; j++) out[i + j] += a[i] * b[j];
    return out;
}

static void test_reference(void)
{
    const double a[] = { 1, 2, 3 }, b[] = { 1, -1 };
    double out[4];
    conv1d_reference(a, 3, b, 2, out);
    CHECK(out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == -3);
    conv1d_reference(b, 2, a, 3, out);
    CHECK(out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == -3);
    const double one = 0.5;
    conv1d_reference(&one, 1, &one, 1, out);
    CHECK(out[0] == 0.25);

    const int64_t sizes[][2] = { { 1, 1 }, { 1, 7 }, { 7, 1 }, { 5, 5 }, { 1000, 37 },
                                 { 37, 1000 }, { 4099, 3 }, { 3, 70001 }, { 20000, 2500 } };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int64_t la = sizes[s][0], lb = sizes[s][1], lo = la + lb - 1;
        double *x = random_doubles(11 + s, 0, la), *y = random_doubles(11 + s, 1, lb);
        double *ref = malloc((size_t)lo * sizeof *ref), *swapped = malloc((size_t)lo * sizeof *ref);
        for (int64_t i = 0; i < lo; i++) ref[i] = swapped[i] = NAN;
        conv1d_reference(x, la, y, lb, ref);
        conv1d_reference(y, lb, x, la, swapped);
        double *want = scatter_conv(x, la, y, lb);
        int64_t bad = 0, unequal = 0;
        for (int64_t i = 0; i < lo; i++) {
            bad += !(fabs(ref[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])));
            unequal += !(fabs(ref[i] - swapped[i]) <= 1e-12 * (1 + fabs(want[i])));
        }
        CHECK(bad == 0);
        CHECK(unequal == 0);
        if (bad || unequal)
            fprintf(stderr, "  reference %lld x %lld: %lld wrong, %lld differ when swapped\n",
                    (long long)la, (long long)lb, (long long)bad, (long long)unequal);
        free(x); free(y); free(ref); free(swapped); free(want);
    }
}

static void test_tolerance_values(void)
{
    const double u = ldexp(1.0, -24);
    double rtol, atol, rtol2, atol2;
    conv1d_tolerance(1024, 3, &rtol, &atol);
    CHECK(rtol == 2 * u);
    CHECK(atol == 12 * u);                          /* L = 3: u * 3 * (3 + 1) */
    conv1d_tolerance(3, 1024, &rtol2, &atol2);
    CHECK(rtol2 == rtol && atol2 == atol);          /* symmetric */
    conv1d_tolerance(1 << 20, 1024, &rtol, &atol);
    CHECK(atol == u * 128 * 320);                   /* 4 sqrt(L) = 128, L/4 + 2 sqrt(L) = 320 */
    conv1d_tolerance(262144, 16384, &rtol, &atol);
    CHECK(atol == 0.1328125);                       /* u * 512 * 4352 */
    conv1d_tolerance(100, 7, &rtol, &atol);
    CHECK(atol == u * 8 * 7);                       /* exact: sum |a b| <= L */
    conv1d_tolerance(100, 13, &rtol, &atol);
    CHECK(atol == u * 14 * (13 / 4.0 + 2 * sqrt(13.0)));   /* 13 + 1 <= 4 sqrt(13) */
    conv1d_tolerance(100, 14, &rtol, &atol);
    CHECK(atol == u * 4 * sqrt(14.0) * (14 / 4.0 + 2 * sqrt(14.0)));   /* 14 + 1 > 4 sqrt(14) */
    double prev = 0;
    int increasing = 1;
    for (int64_t l = 1; l <= 1 << 16; l++) {
        conv1d_tolerance(1 << 20, l, &rtol, &atol);
        increasing &= atol > prev;
        prev = atol;
    }
    CHECK(increasing);
}

/* out[n] accumulated in f32 with fmaf over the valid taps in ascending order: what every kernel
 * of the family computes. drop_tap >= 0 leaves that tap out; shift adds 1 to the signal index
 * (an off-by-one window; out-of-range reads give 0); skip_from..skip_to leaves out those taps. */
typedef struct plant {
    int64_t drop_tap;
    int shift;
    int64_t skip_from, skip_to;
} plant;

static void conv_f32(const double *a, int64_t la, const double *b, int64_t lb, plant pl,
                     float *out)
{
    for (int64_t n = 0; n < la + lb - 1; n++) {
        float s = 0.0f;
        const int64_t lo = n + pl.shift - la + 1 > 0 ? n + pl.shift - la + 1 : 0;
        const int64_t hi = n + pl.shift < lb - 1 ? n + pl.shift : lb - 1;
        for (int64_t m = lo; m <= hi; m++) {
            if (m == pl.drop_tap || (m >= pl.skip_from && m < pl.skip_to)) continue;
            s = fmaf((float)a[n + pl.shift - m], (float)b[m], s);
        }
        out[n] = s;
    }
}

/* Elements outside the tolerance; *worst = the largest |error| / allowed. */
static int64_t count_outside(const float *got, const double *ref, int64_t n, double rtol,
                             double atol, double *worst)
{
    int64_t bad = 0;
    *worst = 0;
    for (int64_t i = 0; i < n; i++) {
        const double err = fabs((double)got[i] - ref[i]), allowed = atol + rtol * fabs(ref[i]);
        bad += !(err <= allowed);
        if (err / allowed > *worst) *worst = err / allowed;
    }
    return bad;
}

static void test_tolerance_against_f32(void)
{
    const int64_t sizes[][2] = { { 4099, 3 }, { 3000, 31 }, { 8192, 1025 }, { 16384, 16384 } };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int64_t la = sizes[s][0], lb = sizes[s][1], lo = la + lb - 1;
        double *a = random_doubles(100 + s, 0, la), *b = random_doubles(100 + s, 1, lb);
        double *ref = malloc((size_t)lo * sizeof *ref);
        float *got = malloc((size_t)lo * sizeof *got);
        conv1d_reference(a, la, b, lb, ref);
        double rtol, atol, worst;
        conv1d_tolerance(la, lb, &rtol, &atol);

        const plant clean = { -1, 0, 0, 0 };
        conv_f32(a, la, b, lb, clean, got);
        CHECK(count_outside(got, ref, lo, rtol, atol, &worst) == 0);
        printf("  f32 accumulation %lld x %lld: worst error %.3g of the tolerance (atol %.3g)\n",
               (long long)la, (long long)lb, worst, atol);

        /* the largest tap of the last 16 (the last group or chunk, where kernels go wrong)
         * left out: each of the la outputs that use it loses a[i] * b[m], |b[m]| near 1 */
        int64_t tap = lb - 1;
        for (int64_t m = lb - 1; m >= 0 && m >= lb - 16; m--)
            if (fabs(b[m]) > fabs(b[tap])) tap = m;
        const plant dropped = { tap, 0, 0, 0 };
        conv_f32(a, la, b, lb, dropped, got);
        const int64_t bad_drop = count_outside(got, ref, lo, rtol, atol, &worst);
        CHECK(bad_drop > la / 2);
        printf("    dropped tap |b| = %.3f: %lld of %lld outputs outside\n", fabs(b[tap]),
               (long long)bad_drop, (long long)la);

        const plant shifted = { -1, 1, 0, 0 };
        conv_f32(a, la, b, lb, shifted, got);
        CHECK(count_outside(got, ref, lo, rtol, atol, &worst) > lo / 2);

        if (lb >= 1025) {
            /* 256 taps left out: about la outputs use them */
            const plant chunk = { -1, 0, lb / 2, lb / 2 + 256 };
            conv_f32(a, la, b, lb, chunk, got);
            CHECK(count_outside(got, ref, lo, rtol, atol, &worst) > la / 2);
        }

        conv_f32(a, la, b, lb, clean, got);
        got[lo / 2] += (float)(4 * (atol + rtol * fabs(ref[lo / 2])));
        CHECK(count_outside(got, ref, lo, rtol, atol, &worst) == 1);
        free(a); free(b); free(ref); free(got);
    }
}

static void test_size_key(void)
{
    const int64_t s36 = (int64_t)1 << 36;
    CHECK(tk_conv1d_size_key(1, 1) == 1);
    CHECK(tk_conv1d_size_key(1024, 3) == 2 * s36 + 1024);
    CHECK(tk_conv1d_size_key(3, 1024) == 2 * s36 + 1024);
    CHECK(tk_conv1d_size_key(4, 1024) == 2 * s36 + 1024);
    CHECK(tk_conv1d_size_key(5, 1024) == 3 * s36 + 1024);
    CHECK(tk_conv1d_size_key(1 << 20, 16) == 4 * s36 + (1 << 20));
    CHECK(tk_conv1d_size_key(1 << 20, 17) == 5 * s36 + (1 << 20));
    CHECK(tk_conv1d_size_key(262144, 16384) == 14 * s36 + 262144);
    CHECK(tk_conv1d_size_key(1024, 16384) == 10 * s36 + 16384);
    CHECK(tk_conv1d_size_key(s36 * 4, 2) == 1 * s36 + (s36 - 1));   /* clamped */
    CHECK(tk_conv1d_size_key(s36 * 4, s36 * 2) == 36 * s36 + (s36 - 1));
    CHECK(tk_conv1d_size_key(0, 5) == -1 && tk_conv1d_size_key(5, 0) == -1);
    CHECK(tk_conv1d_size_key(-3, 5) == -1);

    /* the lookup stays in the filter-length bucket when the header has one */
    const tk_tuned_entry entries[] = {
        { "conv1d.full", "f32", 0, "A" },   /* filter 3, signal 64 Mi */
        { "conv1d.full", "f32", 0, "B" },   /* filter 33, signal 4 Mi */
        { "conv1d.full", "f32", 0, "C" },   /* filter 4096, signal 1 Mi */
        { "conv1d.full", "f32", 0, "D" },   /* filter 16384, signal 256 Ki */
        { "conv1d.full", "f32", 0, "E" },   /* filter 33, signal 64 Mi */
    };
    tk_tuned_entry e[5];
    memcpy(e, entries, sizeof e);
    e[0].size = tk_conv1d_size_key(64 << 20, 3);
    e[1].size = tk_conv1d_size_key(4 << 20, 33);
    e[2].size = tk_conv1d_size_key(1 << 20, 4096);
    e[3].size = tk_conv1d_size_key(256 << 10, 16384);
    e[4].size = tk_conv1d_size_key(64 << 20, 33);
    const tk_tuned_device dev = { "made-up", 9, 0, 100, 0, 5 };
    CHECK(tk_tuned_nearest(e, &dev, "conv1d.full", "f32", tk_conv1d_size_key(1024, 3)) == 0);
    CHECK(tk_tuned_nearest(e, &dev, "conv1d.full", "f32", tk_conv1d_size_key(100, 40)) == 1);
    CHECK(tk_tuned_nearest(e, &dev, "conv1d.full", "f32", tk_conv1d_size_key(48 << 20, 60)) == 4);
    CHECK(tk_tuned_nearest(e, &dev, "conv1d.full", "f32", tk_conv1d_size_key(1 << 30, 3000)) == 2);
    CHECK(tk_tuned_nearest(e, &dev, "conv1d.full", "f32", tk_conv1d_size_key(4096, 1 << 20)) == 2);
    CHECK(tk_tuned_nearest(e, &dev, "conv1d.full", "f32", tk_conv1d_size_key(1 << 20, 2)) == 0);
}

static void problem_of(problem *p, int64_t la, int64_t lb)
{
    const char *names[] = { "len_a", "len_b" };
    const value v[] = { value_int(la), value_int(lb) };
    problem_init(p, 2, names, v);
}

static void test_harness_parent_side(void)
{
    const op_family *f = op_family_find("conv1d");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(f->n_ops == 1 && op_family_op_index(f, "full") == 0);
    CHECK(f->n_dtypes == 1 && op_family_dtype_index(f, "f32") == 0);
    CHECK(op_family_dtype_index(f, "f16") < 0);
    CHECK(f->n_fields == 2 && f->fields[0].required && f->fields[1].required);
    CHECK(f->config_space() == tk_conv1d_config_space());

    problem p;
    char err[256];
    problem_of(&p, 1024, 3);
    CHECK(f->elements(f, &p) == 1026);
    CHECK(f->bytes_moved(f, "full", "f32", &p) == 4 * (1024 + 3 + 1026));
    CHECK(f->size_key(f, &p) == tk_conv1d_size_key(1024, 3));
    CHECK(f->check_problem(f, "full", "f32", &p, err, sizeof err) == 0);
    problem_clear(&p);
    problem_of(&p, 262144, 16384);
    CHECK(f->check_problem(f, "full", "f32", &p, err, sizeof err) == 0);
    problem_clear(&p);
    problem_of(&p, 64 << 20, 16384);
    err[0] = 0;
    CHECK(f->check_problem(f, "full", "f32", &p, err, sizeof err) == -1);
    CHECK(strstr(err, "2^38") != NULL);
    problem_clear(&p);
    problem_of(&p, (int64_t)1 << 32, (int64_t)1 << 32);   /* the product overflows int64 */
    CHECK(f->check_problem(f, "full", "f32", &p, err, sizeof err) == -1);
    problem_clear(&p);

    char text[128];
    CHECK(f->default_config(f, "f32", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=256,impl=const_smem,outputs_per_thread=1");
    CHECK(f->default_config(f, "f16", text, sizeof text) == -1);
}

static void test_config_text(void)
{
    tk_conv1d_config c;
    CHECK(tk_conv1d_config_from_text("block_size=256,impl=const_smem,outputs_per_thread=1", &c) ==
          TK_OK);
    const tk_conv1d_config d = tk_conv1d_default_config();
    CHECK(c.impl == d.impl && c.block_size == d.block_size &&
          c.outputs_per_thread == d.outputs_per_thread);
    CHECK(tk_conv1d_config_from_text("outputs_per_thread=8,impl=smem,block_size=128", &c) == TK_OK);
    CHECK(c.impl == TK_CONV1D_SMEM && c.block_size == 128 && c.outputs_per_thread == 8);
    CHECK(tk_conv1d_config_from_text("block_size=64,impl=direct,outputs_per_thread=1", &c) == TK_OK);
    CHECK(c.impl == TK_CONV1D_DIRECT && tk_conv1d_config_supported(&c));
    CHECK(tk_conv1d_config_from_text("block_size=64,impl=fft,outputs_per_thread=1", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_conv1d_config_from_text("block_size=64,impl=smem,outputs_per_thread=3", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_conv1d_config_from_text("block_size=64,impl=smem", &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_conv1d_config_from_text(NULL, &c) == TK_ERR_INVALID_ARGUMENT);

    const tk_conv1d_config ok[] = { { TK_CONV1D_DIRECT, 1024, 1 }, { TK_CONV1D_SMEM, 32, 16 },
                                    { TK_CONV1D_CONST_SMEM, 256, 16 }, { TK_CONV1D_SMEM, 512, 8 },
                                    { TK_CONV1D_CONST_SMEM, 1024, 4 } };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) CHECK(tk_conv1d_config_supported(&ok[i]));
    const tk_conv1d_config bad[] = { { TK_CONV1D_DIRECT, 256, 2 }, { TK_CONV1D_SMEM, 512, 16 },
                                     { TK_CONV1D_SMEM, 1024, 8 }, { TK_CONV1D_SMEM, 33, 1 },
                                     { TK_CONV1D_SMEM, 0, 1 }, { TK_CONV1D_SMEM, 2048, 1 },
                                     { (tk_conv1d_impl)3, 256, 1 }, { TK_CONV1D_SMEM, 256, 32 },
                                     { TK_CONV1D_SMEM, 256, 0 } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(!tk_conv1d_config_supported(&bad[i]));
    CHECK(!tk_conv1d_config_supported(NULL));

    /* argument checks that return before any CUDA call */
    float x[4] = { 1, 2, 3, 4 }, y[8];
    const tk_conv1d_config dflt = tk_conv1d_default_config();
    CHECK(tk_conv1d_full(x, -1, x, 2, y, &dflt, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_conv1d_full(x, 2, x, -1, y, &dflt, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_conv1d_full(x, 0, x, 2, y, &dflt, 0) == TK_OK);
    CHECK(tk_conv1d_full(NULL, 0, NULL, 0, NULL, NULL, 0) == TK_OK);
    CHECK(tk_conv1d_full(x, 4, NULL, 2, y, &dflt, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_conv1d_full(x, 4, x, 2, NULL, &dflt, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_conv1d_full(x, 4, x, 2, y, &bad[0], 0) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_conv1d_full(x, 0, x, 0, y, &bad[1], 0) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_conv1d_tuned_config(4, 2, NULL) == TK_ERR_INVALID_ARGUMENT);
    tk_conv1d_config t;
    CHECK(tk_conv1d_tuned_config(-1, 2, &t) == TK_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    test_reference();
    test_tolerance_values();
    test_tolerance_against_f32();
    test_size_key();
    test_harness_parent_side();
    test_config_text();
    return CHECK_DONE();
}

/* test_relu_mask.c: unit tests (CPU only) of the relu_mask family: the harness's CPU references
 * on hand-worked cases (pass rule with zeros, NaN and infinities; one rounding of x + addend in
 * f16 and bf16; the mask layout by words and by bytes, padding bits cleared; the backward), the
 * mask comparison catching planted errors, the problem fields, bytes moved (PERF.md's 77 MB and
 * 52 MB) and size keys, the canonical config text against the library's parser, the library's
 * host helpers (mask words, default configs, the parameter space). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ops/ops.h"
#include "ops/relu_mask.h"
#include "tk_check.h"
#include "tunekit.h"

static int bit(const uint32_t *mask, int64_t i) { return (int)(mask[i / 32] >> (i % 32) & 1u); }

static void test_reference_relu(void)
{
    /* f32: the pass rule !(s <= 0): zeros of both signs stop, NaN and +inf pass */
    const double x[] = {1.5, -1.5, 0.0, -0.0, NAN, INFINITY, -INFINITY, 1e-30, -1e-30, 3.0};
    const int n = (int)(sizeof x / sizeof x[0]);
    double y[10];
    float ys[10];
    uint32_t mask[1] = {0xffffffffu};
    relu_mask_reference(TK_F32, n, x, NULL, ys, y, mask);
    const int want_bits[] = {1, 0, 0, 0, 1, 1, 0, 1, 0, 1};
    int bits_ok = 1;
    for (int i = 0; i < n; i++) bits_ok &= bit(mask, i) == want_bits[i];
    CHECK(bits_ok);
    CHECK(mask[0] >> n == 0);   /* padding bits cleared */
    CHECK(y[0] == 1.5 && y[1] == 0.0 && y[2] == 0.0 && y[3] == 0.0 && !signbit(y[3]));
    CHECK(isnan(y[4]) && y[5] == INFINITY && y[6] == 0.0 && y[7] == 1e-30 && y[8] == 0.0);
    CHECK(ys[0] == 1.5f && ys[1] == 0.0f && !signbit(ys[3]) && isnan(ys[4]) && ys[9] == 3.0f);
    CHECK(ys[7] == (float)1e-30);

    /* the layout across words: element i is bit i % 32 of word i / 32 and bit i % 8 of byte
     * i / 8; n = 70 leaves 26 padding bits in the third word */
    enum { N = 70 };
    double v[N];
    for (int i = 0; i < N; i++) v[i] = (i % 3 == 0 || i == 69) ? 1.0 + i : -1.0 - i;
    uint32_t m[3] = {0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu};
    relu_mask_reference(TK_F16, N, v, NULL, NULL, NULL, m);
    const unsigned char *bytes = (const unsigned char *)m;
    int layout_ok = 1;
    for (int i = 0; i < N; i++) {
        const int want = i % 3 == 0 || i == 69;
        layout_ok &= bit(m, i) == want && ((bytes[i / 8] >> (i % 8)) & 1) == want;
    }
    CHECK(layout_ok);
    CHECK(m[2] >> (N - 64) == 0);
    CHECK(m[0] == 0x49249249u);   /* every third element from 0 */
}

static void test_reference_add(void)
{
    /* f16 at [2048, 4096) has spacing 2: 2048 + 1 ties to 2048 (even), 2048 + 3 ties to 2052;
     * 1 + -1 is +0 and stops; bf16 at [256, 512) has spacing 2: 256 + 1 ties to 256 */
    const double x[] = {2048.0, 2048.0, 1.0, -3.0, 0.5};
    const double a[] = {1.0, 3.0, -1.0, 1.0, -0.25};
    double y[5];
    uint16_t ys[5];
    uint32_t mask[1];
    relu_mask_reference(TK_F16, 5, x, a, ys, y, mask);
    CHECK(y[0] == 2048.0 && y[1] == 2052.0 && y[2] == 0.0 && y[3] == 0.0 && y[4] == 0.25);
    CHECK(mask[0] == 0x13u);
    double back[5];
    tk_host_to_double(TK_F16, ys, back, 5);
    CHECK(memcmp(back, y, sizeof y) == 0);

    const double xb[] = {256.0, 256.0, -0.5};
    const double ab[] = {1.0, 3.0, 0.5};
    relu_mask_reference(TK_BF16, 3, xb, ab, NULL, y, mask);
    CHECK(y[0] == 256.0 && y[1] == 260.0 && y[2] == 0.0 && mask[0] == 0x3u);

    /* f32: inf + -inf is NaN and passes; the sum rounds once */
    const double xf[] = {INFINITY, 1.0, -2.0};
    const double af[] = {-INFINITY, 0x1p-30, 1.0};
    relu_mask_reference(TK_F32, 3, xf, af, NULL, y, mask);
    CHECK(isnan(y[0]) && y[1] == 1.0 && y[2] == 0.0 && mask[0] == 0x3u);

    /* a large case on all cores equals a sequential per-element computation */
    const int64_t n = (3 << 20) + 45;
    double *xs = malloc((size_t)n * sizeof *xs), *as = malloc((size_t)n * sizeof *as);
    double *yr = malloc((size_t)n * sizeof *yr);
    uint32_t *mk = malloc((size_t)tk_relu_mask_words(n) * sizeof *mk);
    if (!xs || !as || !yr || !mk) {
        CHECK(!"out of memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        xs[i] = (double)((i * 7919) % 2001 - 1000) / 64.0;
        as[i] = (double)((i * 104729) % 1999 - 999) / 64.0;
    }
    relu_mask_reference(TK_F32, n, xs, as, NULL, yr, mk);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const double s = xs[i] + as[i];   /* exact in f32: multiples of 1/64 below 32 */
        bad += yr[i] != (s > 0 ? s : 0.0) || bit(mk, i) != (s > 0);
    }
    CHECK(bad == 0);
    CHECK(mk[tk_relu_mask_words(n) - 1] >> (n % 32) == 0);
done:
    free(xs); free(as); free(yr); free(mk);
}

static void test_grad_and_compare(void)
{
    const double dy[] = {1.0, -2.0, 3.0, -4.0, 5.0};
    const uint32_t mask[1] = {0x15u};   /* elements 0, 2, 4 */
    double dx[5];
    relu_mask_grad_reference(5, dy, mask, dx);
    CHECK(dx[0] == 1.0 && dx[1] == 0.0 && dx[2] == 3.0 && dx[3] == 0.0 && dx[4] == 5.0);

    uint32_t want[4] = {1, 2, 3, 4}, got[4] = {1, 2, 3, 4};
    char err[512] = "";
    CHECK(relu_mask_compare_words(got, want, 4, err, sizeof err) == 0);
    got[2] ^= 1u << 5;          /* element 69 */
    got[3] = ~got[3];
    CHECK(relu_mask_compare_words(got, want, 4, err, sizeof err) == 1);
    CHECK(strstr(err, "2 of 4 mask words differ") != NULL);
    CHECK(strstr(err, "[2] got 0x00000023 expected 0x00000003 (element 69)") != NULL);
    CHECK(strstr(err, "[3] got 0xfffffffb expected 0x00000004 (element 96)") != NULL);
    CHECK(relu_mask_compare_words(got, want, 2, err, sizeof err) == 0);   /* only n_words */
}

static problem make_problem(int64_t n, int64_t offset, int64_t with_mask)
{
    const char *names[] = {"n", "offset", "with_mask"};
    value v[] = {value_int(n), value_int(offset), value_int(with_mask)};
    problem p;
    memset(&p, 0, sizeof p);
    CHECK(problem_init(&p, 3, names, v) == 0);
    return p;
}

static void test_family(void)
{
    const op_family *f = op_family_find("relu_mask");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(op_family_op_index(f, "relu_fwd") == 0 && op_family_op_index(f, "add_relu_bwd") == 3);
    CHECK(op_family_op_index(f, "relu") < 0);
    CHECK(op_family_dtype_index(f, "bf16") == 2);
    CHECK(f->n_fields == 3 && strcmp(f->fields[2].name, "with_mask") == 0 &&
          f->fields[2].def == 1 && f->fields[2].max == 1);
    CHECK(f->config_space() == tk_relu_mask_config_space());

    /* PERF.md: f32 (16,32,112,112) backward moves 77 MB reading y, 52 MB reading the mask */
    problem p = make_problem(6422528, 0, 1), q = make_problem(6422528, 0, 0);
    problem r = make_problem(1000003, 1, 1);
    CHECK(f->bytes_moved(f, "relu_bwd", "f32", &q) == 3 * 6422528LL * 4);
    CHECK(f->bytes_moved(f, "relu_bwd", "f32", &p) == 2 * 6422528LL * 4 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "relu_fwd", "f32", &p) == 2 * 6422528LL * 4 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "relu_fwd", "f32", &q) == 2 * 6422528LL * 4);
    CHECK(f->bytes_moved(f, "add_relu_fwd", "f16", &p) == 3 * 6422528LL * 2 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "add_relu_bwd", "bf16", &p) == 3 * 6422528LL * 2 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "add_relu_bwd", "bf16", &q) == 4 * 6422528LL * 2);
    CHECK(f->bytes_moved(f, "relu_bwd", "f32", &r) == 2 * 1000003LL * 4 + 31251LL * 4);
    CHECK(f->bytes_moved(f, "gelu", "f32", &p) == 0 && f->bytes_moved(f, "relu_fwd", "f64", &p) == 0);
    CHECK(f->elements(f, &p) == 6422528);
    CHECK(f->size_key(f, &p) == 6422528 && f->size_key(f, &q) == -1 && f->size_key(f, &r) == -1);
    char err[64];
    CHECK(f->check_problem(f, "relu_fwd", "f32", &p, err, sizeof err) == 0);

    /* the default config, as text the library parses back */
    char text[128];
    CHECK(f->default_config(f, "f32", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=256,cache_hint=normal,loop=grid_stride,mask=ballot32,pack_size=4,"
                    "unroll=1,waves=32");
    CHECK(f->default_config(f, "bf16", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=256,cache_hint=normal,loop=grid_stride,mask=ballot32,pack_size=8,"
                    "unroll=1,waves=32");
    CHECK(f->default_config(f, "f64", text, sizeof text) == -1);
    tk_relu_mask_config c;
    CHECK(tk_relu_mask_config_from_text(text, &c) == TK_OK);
    const tk_relu_mask_config d = tk_relu_mask_default_config(TK_BF16, TK_MASK_BALLOT32);
    CHECK(memcmp(&c, &d, sizeof c) == 0);
    problem_clear(&p);
    problem_clear(&q);
    problem_clear(&r);
}

static void test_config_text(void)
{
    const tk_relu_mask_config all[] = {
        {32, 1, 1, TK_MASK_NONE, TK_CACHE_NORMAL, TK_LOOP_GRID_STRIDE, 1},
        {1024, 1024, 8, TK_MASK_BYTE8, TK_CACHE_EVICT_FIRST, TK_LOOP_ONE_SHOT, 4},
        {96, 7, 2, TK_MASK_BALLOT32, TK_CACHE_NORMAL, TK_LOOP_ONE_SHOT, 2},
    };
    char text[128];
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        tk_relu_mask_config back;
        CHECK(relu_mask_config_text(&all[i], text, sizeof text) == 0);
        CHECK(tk_relu_mask_config_from_text(text, &back) == TK_OK);
        CHECK(memcmp(&back, &all[i], sizeof back) == 0);
    }
    CHECK(relu_mask_config_text(&all[1], text, sizeof text) == 0);
    CHECK_STR(text, "block_size=1024,cache_hint=evict_first,loop=one_shot,mask=byte8,"
                    "pack_size=8,unroll=4,waves=1024");
    tk_relu_mask_config bad = all[0];
    bad.mask = (tk_mask_scheme)3;
    CHECK(relu_mask_config_text(&bad, text, sizeof text) == -1);
    bad = all[0];
    bad.cache_hint = (tk_cache_hint)-1;
    CHECK(relu_mask_config_text(&bad, text, sizeof text) == -1);
    bad = all[0];
    bad.loop = (tk_loop)2;
    CHECK(relu_mask_config_text(&bad, text, sizeof text) == -1);
    CHECK(relu_mask_config_text(&all[1], text, 20) == -1);   /* does not fit */

    tk_relu_mask_config c;
    CHECK(tk_relu_mask_config_from_text("unroll=2,waves=8,mask=none,pack_size=2,loop=one_shot,"
                                        "cache_hint=normal,block_size=128",
                                        &c) == TK_OK);
    CHECK(c.waves == 8 && c.mask == TK_MASK_NONE && c.pack_size == 2 && c.block_size == 128 &&
          c.loop == TK_LOOP_ONE_SHOT && c.unroll == 2);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=byte4,pack_size=2,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);   /* no pack_size */
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,mask=none,"
                                        "pack_size=2,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);   /* no loop, unroll */
    CHECK(tk_relu_mask_config_from_text("block_size=100,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,pack_size=2,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,pack_size=16,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,pack_size=4,unroll=3,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=persistent,"
                                        "mask=none,pack_size=4,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text(NULL, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_config_from_text("block_size=128", NULL) == TK_ERR_INVALID_ARGUMENT);
}

static void test_library_host_helpers(void)
{
    CHECK(tk_relu_mask_words(0) == 0 && tk_relu_mask_words(-5) == 0);
    CHECK(tk_relu_mask_words(1) == 1 && tk_relu_mask_words(32) == 1);
    CHECK(tk_relu_mask_words(33) == 2 && tk_relu_mask_words(6422528) == 200704);
    CHECK(tk_relu_mask_words((int64_t)1 << 40) == (int64_t)1 << 35);
    CHECK(tk_relu_mask_words(((int64_t)1 << 31) + 37) == ((int64_t)1 << 26) + 2);

    const tk_relu_mask_config f32 = tk_relu_mask_default_config(TK_F32, TK_MASK_NONE);
    CHECK(f32.block_size == 256 && f32.waves == 32 && f32.pack_size == 4 &&
          f32.mask == TK_MASK_NONE && f32.cache_hint == TK_CACHE_NORMAL &&
          f32.loop == TK_LOOP_GRID_STRIDE && f32.unroll == 1);
    const tk_relu_mask_config f16 = tk_relu_mask_default_config(TK_F16, TK_MASK_BYTE8);
    CHECK(f16.pack_size == 8 && f16.mask == TK_MASK_BYTE8);

    /* the space: parameters in canonical (sorted) order, with the values the library has */
    const tk_config_space *s = tk_relu_mask_config_space();
    CHECK(s && strcmp(s->family, "relu_mask") == 0 && s->n_params == 7);
    if (!s || s->n_params != 7) return;
    const char *names[] = {"block_size", "cache_hint", "loop", "mask", "pack_size", "unroll",
                           "waves"};
    for (int i = 0; i < 7; i++) CHECK_STR(s->params[i].name, names[i]);
    CHECK(!s->params[2].compile_time && s->params[2].n_values == 2);
    CHECK_STR(s->params[2].str_values[0], "grid_stride");
    CHECK_STR(s->params[2].str_values[1], "one_shot");
    CHECK(s->params[2].default_value == TK_LOOP_GRID_STRIDE);
    CHECK(s->params[3].compile_time && s->params[3].n_values == 3);
    CHECK_STR(s->params[3].str_values[0], "none");
    CHECK_STR(s->params[3].str_values[1], "byte8");
    CHECK_STR(s->params[3].str_values[2], "ballot32");
    CHECK(s->params[3].default_value == TK_MASK_BALLOT32);
    CHECK(tk_param_supports(&s->params[0], 96) && !tk_param_supports(&s->params[0], 2048));
    CHECK(tk_param_supports(&s->params[4], 8) && !tk_param_supports(&s->params[4], 16));
    CHECK(s->params[5].compile_time && s->params[5].default_value == 1);
    CHECK(tk_param_supports(&s->params[5], 4) && !tk_param_supports(&s->params[5], 3) &&
          !tk_param_supports(&s->params[5], 8));
    CHECK(tk_param_supports(&s->params[6], 1) && !tk_param_supports(&s->params[6], 0));

    tk_relu_mask_config c;
    CHECK(tk_relu_mask_tuned_config("relu_mask.gelu", TK_F32, 10, 1, &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_fwd", TK_F32, 10, 1, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_mask.relu_fwd", (tk_dtype)4, 10, 1, &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_mask.relu_fwd", TK_F32, -1, 1, &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_mask.relu_fwd", TK_F32, 10, 1, NULL) ==
          TK_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    test_reference_relu();
    test_reference_add();
    test_grad_and_compare();
    test_family();
    test_config_text();
    test_library_host_helpers();
    return CHECK_DONE();
}

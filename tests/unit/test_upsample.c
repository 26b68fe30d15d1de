/* test_upsample.c: the CPU parts of the upsample family: its config space, default config and
 * config texts; the backward error bound (its formula, and that it holds for float accumulation
 * emulated here over millions of random sums while being tight enough to reject sums rounded in
 * 16-bit precision); the harness's references (hand-worked cases, chunking, the backward being
 * the adjoint of the forward); its bytes moved, size key, default config text and problem
 * checks; and spaces/upsample.yaml (every config it enumerates is one the library supports). */
#include "check.h"
#include "ops/ops.h"
#include "ops/upsample.h"
#include "space/space.h"
#include "tk_check.h"
#include "tunekit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_config_space(void)
{
    const tk_config_space *s = tk_upsample_config_space();
    CHECK(s && s->n_params == 5);
    CHECK_STR(s->family, "upsample");
    CHECK_STR(s->params[0].name, "block_size");
    CHECK_STR(s->params[1].name, "cache_hint");
    CHECK_STR(s->params[2].name, "impl");
    CHECK_STR(s->params[3].name, "pack_size");
    CHECK_STR(s->params[4].name, "waves");
    CHECK(!s->params[0].compile_time && s->params[1].compile_time && s->params[2].compile_time &&
          s->params[3].compile_time && !s->params[4].compile_time);
    CHECK(s->params[1].n_values == 2 && s->params[1].default_value == TK_CACHE_NORMAL);
    CHECK_STR(s->params[1].str_values[TK_CACHE_NORMAL], "normal");
    CHECK_STR(s->params[1].str_values[TK_CACHE_EVICT_FIRST], "evict_first");
    CHECK(s->params[2].n_values == 3);
    CHECK_STR(s->params[2].str_values[TK_UPSAMPLE_GENERIC], "generic");
    CHECK_STR(s->params[2].str_values[TK_UPSAMPLE_PACK2X], "pack2x");
    CHECK_STR(s->params[2].str_values[TK_UPSAMPLE_VEC], "vec");
    CHECK(tk_param_supports(&s->params[3], 8) && !tk_param_supports(&s->params[3], 16) &&
          !tk_param_supports(&s->params[3], 3));
    CHECK(tk_param_supports(&s->params[0], 96) && !tk_param_supports(&s->params[0], 100));

    tk_upsample_config d = tk_upsample_default_config(TK_F32);
    CHECK(d.impl == TK_UPSAMPLE_VEC && d.pack_size == 4 && d.block_size == 256 && d.waves == 32 &&
          d.cache_hint == TK_CACHE_NORMAL);
    CHECK(tk_upsample_default_config(TK_F16).pack_size == 8);
    CHECK(tk_upsample_default_config(TK_BF16).pack_size == 8);

    tk_upsample_config c;
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=normal,impl=pack2x,pack_size=1,waves=3", &c) == TK_OK);
    CHECK(c.block_size == 64 && c.impl == TK_UPSAMPLE_PACK2X && c.pack_size == 1 && c.waves == 3 &&
          c.cache_hint == TK_CACHE_NORMAL);
    CHECK(tk_upsample_config_from_text(
              "waves=1,pack_size=2,impl=generic,cache_hint=evict_first,block_size=1024", &c) ==
          TK_OK);
    CHECK(c.block_size == 1024 && c.impl == TK_UPSAMPLE_GENERIC && c.pack_size == 2 &&
          c.waves == 1 && c.cache_hint == TK_CACHE_EVICT_FIRST);
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=normal,impl=vec,pack_size=16,waves=3", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=normal,impl=rows,pack_size=2,waves=3", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=streaming,impl=vec,pack_size=2,waves=3", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_upsample_config_from_text("block_size=64,impl=vec,pack_size=2,waves=3", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=normal,impl=vec,pack_size=2,waves=0", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=normal,impl=vec,pack_size=x,waves=2", &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_config_from_text(NULL, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_config_from_text(
              "block_size=64,cache_hint=normal,impl=vec,pack_size=2,waves=2", NULL) ==
          TK_ERR_INVALID_ARGUMENT);
}


/* Deterministic uniform doubles in [-4, 4) (xorshift64*), never zero. */
static double next_uniform(uint64_t *state)
{
    double v;
    do {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        uint64_t r = *state * 2685821657736338717ull;
        v = -4.0 + 8.0 * (double)(r >> 11) * 0x1p-53;
    } while (v == 0.0);
    return v;
}

static void test_error_bound(void)
{
    double rtol = -1, atol = -1;
    const double g3 = 3 * 0x1p-24 / (1 - 3 * 0x1p-24);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 2, 2, 4.0, &rtol, &atol) == TK_OK);
    CHECK(rtol == 0x1p-24 && fabs(atol - (1 + 0x1p-24) * g3 * 16) < 1e-20);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F16, 2, 2, 4.0, &rtol, &atol) == TK_OK);
    CHECK(rtol == 0x1p-11 && fabs(atol - ((1 + 0x1p-11) * g3 * 16 + 0x1p-25)) < 1e-20);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_BF16, 2, 2, 4.0, &rtol, &atol) == TK_OK);
    CHECK(rtol == 0x1p-8 && fabs(atol - (1 + 0x1p-8) * g3 * 16) < 1e-20);
    /* one term: nothing is accumulated */
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 1, 1, 4.0, &rtol, &atol) == TK_OK &&
          atol == 0.0);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F16, 1, 1, 4.0, &rtol, &atol) == TK_OK &&
          atol == 0x1p-25);
    /* grows with the number of terms and their size; no accumulation error for zero terms */
    double a4, a9, a16;
    tk_upsample_nearest_bwd_error_bound(TK_F32, 2, 2, 1.0, &rtol, &a4);
    tk_upsample_nearest_bwd_error_bound(TK_F32, 3, 3, 1.0, &rtol, &a9);
    tk_upsample_nearest_bwd_error_bound(TK_F32, 4, 4, 1.0, &rtol, &a16);
    CHECK(a4 < a9 && a9 < a16 && a4 > 0);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_BF16, 3, 3, 0.0, &rtol, &atol) == TK_OK &&
          atol == 0.0);
    /* beyond 2^24 terms the bound says nothing: infinite */
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 4096, 8192, 1.0, &rtol, &atol) == TK_OK &&
          isinf(atol));
    CHECK(tk_upsample_nearest_bwd_error_bound((tk_dtype)3, 2, 2, 4.0, &rtol, &atol) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 0, 2, 4.0, &rtol, &atol) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 2, -1, 4.0, &rtol, &atol) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 2, 2, -1.0, &rtol, &atol) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 2, 2, NAN, &rtol, &atol) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_upsample_nearest_bwd_error_bound(TK_F32, 2, 2, 4.0, NULL, &atol) ==
          TK_ERR_INVALID_ARGUMENT);

    /* The bound holds for what the kernels compute: four dtype-rounded terms in [-4, 4) added
     * in float, pairwise ((a + b) + (c + d), the 2x kernels) and in a row (((a + b) + c) + d,
     * generic), then rounded to the dtype. And it is tight enough that adding in the dtype's
     * own precision (rounding every partial sum) breaks it for some sums. */
    const tk_dtype dts[] = { TK_F32, TK_F16, TK_BF16 };
    for (int k = 0; k < 3; k++) {
        tk_dtype dt = dts[k];
        tk_upsample_nearest_bwd_error_bound(dt, 2, 2, 4.0, &rtol, &atol);
        uint64_t state = 0x9e3779b97f4a7c15ull + (uint64_t)k;
        long violations = 0, dtype_sum_violations = 0;
        double worst = 0;
        for (int i = 0; i < 2000000; i++) {
            double t[4];
            for (int j = 0; j < 4; j++) t[j] = tk_host_round(dt, next_uniform(&state));
            const double exact = (t[0] + t[1]) + (t[2] + t[3]);   /* exact in double */
            const float pair = ((float)t[0] + (float)t[1]) + ((float)t[2] + (float)t[3]);
            const float row = (((float)t[0] + (float)t[1]) + (float)t[2]) + (float)t[3];
            const double bound = atol + rtol * fabs(exact);
            const double e1 = fabs(tk_host_round(dt, pair) - exact);
            const double e2 = fabs(tk_host_round(dt, row) - exact);
            violations += e1 > bound || e2 > bound;
            if (e1 / bound > worst) worst = e1 / bound;
            if (e2 / bound > worst) worst = e2 / bound;
            const double in_dtype =
                tk_host_round(dt, tk_host_round(dt, tk_host_round(dt, t[0] + t[1]) + t[2]) + t[3]);
            dtype_sum_violations += fabs(in_dtype - exact) > bound;
        }
        CHECK(violations == 0);
        CHECK(worst > 0.05);   /* the bound is not loose by orders of magnitude */
        if (dt != TK_F32) CHECK(dtype_sum_violations > 1000);
        printf("error bound %s: rtol %.3g atol %.3g, worst error / bound %.3f, 16-bit sums "
               "beyond it: %ld of 2000000\n", tk_dtype_name(dt), rtol, atol, worst,
               dtype_sum_violations);
    }
}

static void test_references(void)
{
    /* 1 x 1 x 2 x 3 -> 4 x 6 */
    const double x[6] = { 1, 2, 3, 4, 5, 6 };
    double y[24];
    upsample_ref_fwd(x, 1, 2, 3, 2, 2, 0, 24, y);
    const double want[24] = { 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3,
                              4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6 };
    CHECK(memcmp(y, want, sizeof y) == 0);
    /* scales 3 x 1 of two planes of 1 x 2 */
    const double x2[4] = { 1, 2, 3, 4 };
    double y2[12];
    upsample_ref_fwd(x2, 2, 1, 2, 3, 1, 0, 12, y2);
    const double want2[12] = { 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4 };
    CHECK(memcmp(y2, want2, sizeof y2) == 0);
    /* backward of a 1 x 1 x 4 x 6 ramp: each of the 2 x 3 outputs sums its 2 x 2 window */
    double dy[24], dx[6];
    for (int i = 0; i < 24; i++) dy[i] = i;
    upsample_ref_bwd(dy, 1, 2, 3, 2, 2, 0, 6, dx);
    const double want_dx[6] = { 0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11,
                                12 + 13 + 18 + 19, 14 + 15 + 20 + 21, 16 + 17 + 22 + 23 };
    CHECK(memcmp(dx, want_dx, sizeof dx) == 0);

    /* The backward is the adjoint of the forward: <fwd(x), dy> = <x, bwd(dy)>, over shapes and
     * scales; and computing a reference in two chunks gives the same values as in one. */
    const struct { int64_t nc, h, w; int sh, sw; } cases[] = {
        { 1, 1, 1, 1, 1 }, { 3, 5, 7, 2, 2 }, { 2, 4, 9, 3, 2 }, { 5, 1, 8, 1, 4 }, { 1, 79, 81, 2, 2 },
    };
    uint64_t state = 12345;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int64_t n = cases[k].nc * cases[k].h * cases[k].w;
        const int64_t m = n * cases[k].sh * cases[k].sw;
        double *xs = malloc((size_t)n * sizeof *xs), *dxs = malloc((size_t)n * sizeof *dxs);
        double *ys = malloc((size_t)m * sizeof *ys), *dys = malloc((size_t)m * sizeof *dys);
        double *ys2 = malloc((size_t)m * sizeof *ys2);
        for (int64_t i = 0; i < n; i++) xs[i] = next_uniform(&state);
        for (int64_t i = 0; i < m; i++) dys[i] = next_uniform(&state);
        upsample_ref_fwd(xs, cases[k].nc, cases[k].h, cases[k].w, cases[k].sh, cases[k].sw, 0, m, ys);
        upsample_ref_bwd(dys, cases[k].nc, cases[k].h, cases[k].w, cases[k].sh, cases[k].sw, 0, n, dxs);
        double lhs = 0, rhs = 0, scale = 0;
        for (int64_t i = 0; i < m; i++) { lhs += ys[i] * dys[i]; scale += fabs(ys[i] * dys[i]); }
        for (int64_t i = 0; i < n; i++) rhs += xs[i] * dxs[i];
        CHECK(fabs(lhs - rhs) <= 1e-12 * scale);
        upsample_ref_fwd(xs, cases[k].nc, cases[k].h, cases[k].w, cases[k].sh, cases[k].sw, 0, m / 3, ys2);
        upsample_ref_fwd(xs, cases[k].nc, cases[k].h, cases[k].w, cases[k].sh, cases[k].sw, m / 3, m,
                         ys2);
        CHECK(memcmp(ys, ys2, (size_t)m * sizeof *ys) == 0);
        free(xs); free(dxs); free(ys); free(dys); free(ys2);
    }
}

/* A problem { N, C, H, W }; the caller frees it with problem_clear. */
static void make_problem(problem *p, int64_t n, int64_t c, int64_t h, int64_t w)
{
    const char *names[] = { "N", "C", "H", "W" };
    value v[] = { value_int(n), value_int(c), value_int(h), value_int(w) };
    problem_init(p, 4, names, v);
}

static void test_harness(void)
{
    const op_family *f = op_family_find("upsample");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(f->n_ops == 2 && op_family_op_index(f, "nearest2x_fwd") == 0 &&
          op_family_op_index(f, "nearest2x_bwd") == 1);
    CHECK(f->n_dtypes == 3 && op_family_dtype_index(f, "bf16") == 2);
    CHECK(f->n_fields == 4 && f->config_space == tk_upsample_config_space);
    problem p;
    make_problem(&p, 16, 32, 80, 80);
    CHECK_STR(p.text, "C=32,H=80,N=16,W=80");
    CHECK(f->size_key(f, &p) == 3276800 && f->elements(f, &p) == 3276800);
    /* PERF.md: 65.5 MB for f32, 32.8 MB for f16, both directions */
    CHECK(f->bytes_moved(f, "nearest2x_fwd", "f32", &p) == 65536000);
    CHECK(f->bytes_moved(f, "nearest2x_bwd", "f32", &p) == 65536000);
    CHECK(f->bytes_moved(f, "nearest2x_fwd", "f16", &p) == 32768000);
    CHECK(f->bytes_moved(f, "nearest2x_bwd", "bf16", &p) == 32768000);
    CHECK(f->bytes_moved(f, "nearest3x_fwd", "f32", &p) == 0);
    char err[256] = "";
    CHECK(f->check_problem(f, "nearest2x_fwd", "f32", &p, err, sizeof err) == 0);
    problem_clear(&p);
    make_problem(&p, 1, 1, 79, 81);
    CHECK(f->size_key(f, &p) == 79 * 81);
    CHECK(f->bytes_moved(f, "nearest2x_bwd", "f16", &p) == 5 * 79 * 81 * 2);
    problem_clear(&p);
    /* an output beyond 2^36 elements is refused before anything runs */
    make_problem(&p, 1 << 16, 1 << 16, 2, 2);            /* 2^36 outputs: the limit */
    CHECK(f->check_problem(f, "nearest2x_fwd", "f32", &p, err, sizeof err) == 0);
    problem_clear(&p);
    make_problem(&p, 1 << 16, 1 << 16, 2, 4);
    CHECK(f->check_problem(f, "nearest2x_fwd", "f32", &p, err, sizeof err) == -1);
    CHECK(strstr(err, "must not exceed") != NULL);
    problem_clear(&p);
    make_problem(&p, (int64_t)1 << 31, (int64_t)1 << 31, (int64_t)1 << 31, (int64_t)1 << 31);
    CHECK(f->check_problem(f, "nearest2x_bwd", "f16", &p, err, sizeof err) == -1);
    CHECK(f->bytes_moved(f, "nearest2x_bwd", "f16", &p) == 0);
    problem_clear(&p);

    char buf[128];
    tk_upsample_config c;
    CHECK(f->default_config(f, "f32", buf, sizeof buf) == 0);
    CHECK_STR(buf, "block_size=256,cache_hint=normal,impl=vec,pack_size=4,waves=32");
    CHECK(tk_upsample_config_from_text(buf, &c) == TK_OK && c.pack_size == 4);
    CHECK(f->default_config(f, "bf16", buf, sizeof buf) == 0);
    CHECK_STR(buf, "block_size=256,cache_hint=normal,impl=vec,pack_size=8,waves=32");
    CHECK(f->default_config(f, "f64", buf, sizeof buf) == -1);
}

/* spaces/upsample.yaml loads, and for every op, dtype and problem each config it enumerates
 * parses as a library config, with pack_size meaningful only for vec. */
static void test_space_file(void)
{
    char err[512] = "";
    space *sp = space_load("spaces/upsample.yaml", err, sizeof err);
    CHECK(sp != NULL);
    if (!sp) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK(sp->n_problems == 4 && sp->n_ops == 2 && sp->n_dtypes == 3);
    int64_t total = 0, bad = 0, default_seen = 0;
    int choice[16];
    char text[256];
    for (int o = 0; o < sp->n_ops; o++)
        for (int d = 0; d < sp->n_dtypes; d++)
            for (int q = 0; q < sp->n_problems; q++) {
                space_binding b = { sp->ops[o], sp->dtypes[d], &sp->problems[q], NULL };
                char def[128];
                sp->family->default_config(sp->family, sp->dtypes[d], def, sizeof def);
                space_iter it;
                space_iter_init(&it, sp, &b);
                while (space_iter_next(&it, choice) == 1) {
                    space_config_text(sp, choice, text, sizeof text);
                    tk_upsample_config c;
                    const size_t es = tk_dtype_size((tk_dtype)tk_dtype_parse(sp->dtypes[d]));
                    bad += tk_upsample_config_from_text(text, &c) != TK_OK ||
                           (c.impl == TK_UPSAMPLE_VEC) != (c.pack_size > 1) ||
                           (size_t)c.pack_size * es > 16;
                    default_seen += strcmp(text, def) == 0;
                    total++;
                }
                space_iter_free(&it);
            }
    CHECK(bad == 0);
    CHECK(default_seen == 2 * 3 * 4);   /* the classic default is measured on every problem */
    /* f32: generic, pack2x, vec 2, vec 4; f16 and bf16 also vec 8; x 4 blocks x 4 waves x 2
     * cache hints */
    CHECK(total == 2 * 4 * (4 + 5 + 5) * 4 * 4 * 2);
    printf("spaces/upsample.yaml: %lld configs over 24 (op, dtype, problem)\n", (long long)total);
    space_free(sp);
}

int main(void)
{
    test_config_space();
    test_error_bound();
    test_references();
    test_harness();
    test_space_file();
    return CHECK_DONE();
}

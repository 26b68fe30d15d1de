/* test_reduce.c: the CPU parts of the reduce family: the double reference (values, NaN, empty,
 * the parallel split against a serial pass, every dtype), the sum's tolerance (formula, limits)
 * and that it holds for float sums done the way the kernels do them (chains then trees, one
 * serial chain, a chain of "atomics") while rejecting planted errors (a block's partial dropped
 * or counted twice), the plan of versions 0..5 (grid, launches, workspace, error depth, the
 * 2^31-block limit; these need no device), config text round trips and support rules, the
 * harness's parent-side members through the registry, and the argument checks of tk_reduce
 * that return before any CUDA call. */
#include "check.h"
#include "ops/harness.h"
#include "ops/ops.h"
#include "ops/reduce.h"
#include "tunekit.h"
#include "tk_check.h"
#include "tuned_lookup.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference ---- */

static void test_reference(void)
{
    const float f[] = { 1.5f, -2.0f, 4.0f, -0.25f };
    reduce_ref r;
    reduce_reference(TK_F32, f, 4, &r);
    CHECK(r.sum == 3.25 && r.sum_abs == 7.75 && r.max == 4.0 && r.min == -2.0);
    reduce_reference(TK_F32, f, 0, &r);
    CHECK(r.sum == 0.0 && r.sum_abs == 0.0 && r.max == -INFINITY && r.min == INFINITY);

    const float with_nan[] = { 1.0f, NAN, -3.0f };
    reduce_reference(TK_F32, with_nan, 3, &r);
    CHECK(isnan(r.sum) && isnan(r.max) && isnan(r.min));

    /* 16-bit storage: the values as stored */
    const double src[] = { 0.1, -0.2, 3.0, 1e-3 };
    uint16_t h[4];
    double exact[4];
    for (int d = TK_F16; d <= TK_BF16; d++) {
        tk_host_from_double((tk_dtype)d, src, h, 4);
        tk_host_to_double((tk_dtype)d, h, exact, 4);
        reduce_reference((tk_dtype)d, h, 4, &r);
        double s = 0, a = 0, mx = -INFINITY, mn = INFINITY;
        for (int i = 0; i < 4; i++) {
            s += exact[i];
            a += fabs(exact[i]);
            mx = exact[i] > mx ? exact[i] : mx;
            mn = exact[i] < mn ? exact[i] : mn;
        }
        CHECK(fabs(r.sum - s) <= 1e-15 && fabs(r.sum_abs - a) <= 1e-15);
        CHECK(r.max == mx && r.min == mn && r.max == exact[2]);
    }

    /* several parallel chunks against one serial pass */
    const int64_t n = (5 << 20) + 3;
    float *x = malloc((size_t)n * sizeof *x);
    double *ex = malloc((size_t)n * sizeof *ex);
    harness_fill_uniform(99, 0, TK_F32, n, REDUCE_INPUT_LO, REDUCE_INPUT_HI, x, ex);
    x[n / 3] = 7.0f;
    ex[n / 3] = 7.0;
    x[n - 1] = -5.0f;
    ex[n - 1] = -5.0;
    reduce_reference(TK_F32, x, n, &r);
    double s = 0, a = 0;
    for (int64_t i = 0; i < n; i++) {
        s += ex[i];
        a += fabs(ex[i]);
    }
    CHECK(fabs(r.sum - s) <= 1e-9 * a && fabs(r.sum_abs - a) <= 1e-9 * a);
    CHECK(r.max == 7.0 && r.min == -5.0);
    free(x);
    free(ex);
}

/* ---- the tolerance ---- */

static void test_tolerance_formula(void)
{
    const double u = ldexp(1.0, -24);
    CHECK(reduce_sum_atol(0, 1e6) == 0.0);
    CHECK(fabs(reduce_sum_atol(100, 1.0) - (100 * u / (1 - 100 * u) + 100 * 0x1p-126)) < 1e-20);
    CHECK(reduce_sum_atol(100, 2.0) > reduce_sum_atol(100, 1.0));
    CHECK(reduce_sum_atol(101, 1.0) > reduce_sum_atol(100, 1.0));
    CHECK(isinf(reduce_sum_atol((int64_t)1 << 24, 1.0)));
    CHECK(isinf(reduce_sum_atol(-1, 1.0)));
    CHECK(isfinite(reduce_sum_atol(((int64_t)1 << 24) - 1, 1.0)));
}

/* The float sum of x[0 .. n) as the shuffle versions do it: `threads` chains (thread t adds
 * x[t], x[t + threads], ...), then a pairwise tree over the chains (threads a power of two).
 * *depth gets the height: the longest chain plus the tree's levels. */
static float chains_then_tree(const float *x, int64_t n, int threads, int64_t *depth)
{
    float *acc = calloc((size_t)threads, sizeof *acc);
    for (int64_t i = 0; i < n; i++) acc[i % threads] += x[i];
    int levels = 0;
    for (int w = threads / 2; w >= 1; w /= 2, levels++)
        for (int k = 0; k < w; k++) acc[k] += acc[k + w];
    float s = acc[0];
    free(acc);
    *depth = (n + threads - 1) / threads + levels;
    return s;
}

static void test_tolerance_holds_and_rejects(void)
{
    const int64_t n = 1 << 22;
    float *x = malloc((size_t)n * sizeof *x);
    harness_fill_uniform(7, 0, TK_F32, n, REDUCE_INPUT_LO, REDUCE_INPUT_HI, x, NULL);
    reduce_ref r;
    reduce_reference(TK_F32, x, n, &r);
    CHECK(r.sum_abs / fabs(r.sum) > 1.5 && r.sum_abs / fabs(r.sum) < 1.9);   /* cond ~ 5/3 */

    /* chains of several lengths, then a tree: inside the bound */
    const int thread_counts[] = { 1 << 18, 1 << 14, 1 << 10, 64 };
    for (size_t k = 0; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        int64_t depth = 0;
        const double s = chains_then_tree(x, n, thread_counts[k], &depth);
        const double atol = reduce_sum_atol(depth, r.sum_abs);
        CHECK(fabs(s - r.sum) <= atol);
        /* one block's partial (1 / 1024 of the data) left out, or counted twice: rejected at
         * the depths the kernels have (up to a few thousand; 64 chains of 65536 are beyond) */
        if (thread_counts[k] < 1024) continue;
        double block = 0;
        for (int64_t i = 0; i < n / 1024; i++) block += x[i];
        CHECK(fabs((s - block) - r.sum) > atol);
        CHECK(fabs((s + block) - r.sum) > atol);
    }

    /* one serial chain over 2^20 elements (the atomic finish's worst case, depth = n) */
    const int64_t m = 1 << 20;
    reduce_ref rm;
    reduce_reference(TK_F32, x, m, &rm);
    float serial = 0.0f;
    for (int64_t i = 0; i < m; i++) serial += x[i];
    CHECK(fabs((double)serial - rm.sum) <= reduce_sum_atol(m, rm.sum_abs));
    free(x);
}

/* ---- plans (versions 0..5 size their grid from n alone: no device needed) ---- */

static tk_reduce_config make_config(int version, int block, tk_reduce_finish finish)
{
    tk_reduce_config c = tk_reduce_default_config(TK_F32);
    c.version = version;
    c.block_size = block;
    c.finish = finish;
    c.waves = 1;
    c.pack_size = 1;
    c.cache_hint = TK_CACHE_NORMAL;
    return c;
}

static void test_plans(void)
{
    tk_reduce_plan p;
    tk_reduce_config c = make_config(0, 256, TK_FINISH_TWO_PASS);
    CHECK(tk_reduce_plan_for(TK_F32, 1000, NULL, &c, &p) == TK_OK);
    CHECK(p.grid == 4 && p.launches == 2 && !p.direct && p.finish == TK_FINISH_TWO_PASS);
    CHECK(p.workspace_bytes == 256 + 4 * 4);
    CHECK(p.error_depth == 8 + (1 + 3 + 10) + 1);   /* tree, second launch, slack */

    c = make_config(0, 256, TK_FINISH_LAST_BLOCK);
    CHECK(tk_reduce_plan_for(TK_F16, 1000, NULL, &c, &p) == TK_OK);
    CHECK(p.grid == 4 && p.launches == 1 && p.workspace_bytes == 256 + 16);
    CHECK(p.error_depth == 8 + (1 + 2 + 10) + 1);

    c = make_config(2, 64, TK_FINISH_ATOMIC);
    CHECK(tk_reduce_plan_for(TK_BF16, 6400, NULL, &c, &p) == TK_OK);
    CHECK(p.grid == 100 && p.launches == 1 && p.workspace_bytes == 256);
    CHECK(p.error_depth == 6 + 100 + 1);

    /* versions 3..5 read two elements per thread */
    for (int v = 3; v <= 5; v++) {
        c = make_config(v, 64, TK_FINISH_TWO_PASS);
        CHECK(tk_reduce_plan_for(TK_F32, 129, NULL, &c, &p) == TK_OK);
        CHECK(p.grid == 2 && p.error_depth == 1 + 6 + (1 + 3 + 10) + 1);
        CHECK(tk_reduce_plan_for(TK_F32, 128, NULL, &c, &p) == TK_OK);
        CHECK(p.grid == 1 && p.direct && p.launches == 1 && p.workspace_bytes == 0);
        CHECK(p.error_depth == 1 + 6 + 1);
    }

    /* empty and tiny inputs: one block writes the identity or the value itself */
    for (int f = TK_FINISH_TWO_PASS; f <= TK_FINISH_ATOMIC; f++) {
        c = make_config(1, 1024, (tk_reduce_finish)f);
        CHECK(tk_reduce_plan_for(TK_F32, 0, NULL, &c, &p) == TK_OK);
        CHECK(p.grid == 1 && p.direct && p.launches == 1 && p.workspace_bytes == 0);
        CHECK(tk_reduce_plan_for(TK_F32, 1024, NULL, &c, &p) == TK_OK && p.direct);
        CHECK(tk_reduce_plan_for(TK_F32, 1025, NULL, &c, &p) == TK_OK && !p.direct && p.grid == 2);
    }

    /* one block per 64 elements: 2^31 blocks do not fit a launch */
    c = make_config(0, 64, TK_FINISH_TWO_PASS);
    CHECK(tk_reduce_plan_for(TK_F16, (int64_t)1 << 37, NULL, &c, &p) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_reduce_plan_for(TK_F16, ((int64_t)1 << 37) - 64, NULL, &c, &p) == TK_OK);
    CHECK(p.grid == 0x7fffffffu && p.workspace_bytes == 256 + 4 * (int64_t)0x7fffffff);

    /* versions 6..9 ask the device for its limits: fine with one, TK_ERR_CUDA without */
    for (int v = 6; v <= 9; v++) {
        c = make_config(v, 256, TK_FINISH_LAST_BLOCK);
        tk_status st = tk_reduce_plan_for(TK_F32, 1 << 20, NULL, &c, &p);
        CHECK(st == TK_OK || st == TK_ERR_CUDA);
        if (st == TK_OK) CHECK(p.grid >= 1 && p.error_depth > 0);
    }

    /* bad arguments */
    c = make_config(0, 256, TK_FINISH_TWO_PASS);
    CHECK(tk_reduce_plan_for(TK_F32, 10, (const void *)(uintptr_t)0x1002, &c, &p) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_plan_for(TK_F16, 10, (const void *)(uintptr_t)0x1002, &c, &p) == TK_OK);
    CHECK(tk_reduce_plan_for(TK_F32, -1, NULL, &c, &p) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_plan_for((tk_dtype)3, 10, NULL, &c, &p) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_plan_for(TK_F32, 10, NULL, NULL, &p) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_plan_for(TK_F32, 10, NULL, &c, NULL) == TK_ERR_INVALID_ARGUMENT);
    c.block_size = 96;
    CHECK(tk_reduce_plan_for(TK_F32, 10, NULL, &c, &p) == TK_ERR_UNSUPPORTED_CONFIG);
}

/* ---- config text and support ---- */

static int same_config(const tk_reduce_config *a, const tk_reduce_config *b)
{
    return a->version == b->version && a->block_size == b->block_size && a->waves == b->waves &&
           a->pack_size == b->pack_size && a->finish == b->finish &&
           a->cache_hint == b->cache_hint && a->unroll == b->unroll && a->load == b->load;
}

static void test_config_text(void)
{
    const int blocks[] = { 64, 128, 256, 512, 1024 }, packs[] = { 1, 2, 4, 8 }, waves[] = { 1, 7, 1024 };
    const int unrolls[] = { 1, 2, 4 };
    int round_trips = 0, failures = 0;
    for (int v = 0; v <= TK_REDUCE_MAX_VERSION; v++)
        for (int b = 0; b < 5; b++)
            for (int p = 0; p < 4; p++)
                for (int w = 0; w < 3; w++)
                    for (int f = 0; f < 3; f++)
                        for (int h = 0; h < 2; h++)
                            for (int u = 0; u < 3; u++)
                                for (int l = 0; l < 2; l++) {
                                    tk_reduce_config c = { v, blocks[b], waves[w], packs[p],
                                                           (tk_reduce_finish)f, (tk_cache_hint)h,
                                                           unrolls[u], (tk_reduce_load)l };
                                    char text[256];
                                    tk_reduce_config back;
                                    int len = tk_reduce_config_to_text(&c, text, sizeof text);
                                    failures += !(len > 0 && (size_t)len < sizeof text &&
                                                  tk_reduce_config_from_text(text, &back) == TK_OK &&
                                                  same_config(&c, &back));
                                    round_trips++;
                                }
    CHECK(round_trips == 10 * 5 * 4 * 3 * 3 * 2 * 3 * 2 && failures == 0);

    tk_reduce_config c = tk_reduce_default_config(TK_F16);
    char text[256];
    CHECK(tk_reduce_config_to_text(&c, text, sizeof text) > 0);
    CHECK_STR(text, "block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=8,"
                    "unroll=4,version=9,waves=1");
    c = tk_reduce_default_config(TK_F32);
    CHECK(c.pack_size == 4 && c.version == 9 && c.block_size == 256 && c.waves == 1 &&
          c.finish == TK_FINISH_LAST_BLOCK && c.cache_hint == TK_CACHE_EVICT_FIRST &&
          c.unroll == 4 && c.load == TK_REDUCE_LOAD_COP);
    CHECK(tk_reduce_config_from_text("block_size=512,cache_hint=evict_first,finish=atomic,"
                                     "load=no_allocate,pack_size=4,unroll=2,version=9,waves=1",
                                     &c) == TK_OK);
    CHECK(c.block_size == 512 && c.cache_hint == TK_CACHE_EVICT_FIRST && c.finish == TK_FINISH_ATOMIC &&
          c.load == TK_REDUCE_LOAD_NO_ALLOCATE && c.pack_size == 4 && c.unroll == 2 &&
          c.version == 9 && c.waves == 1 && tk_reduce_config_supported(&c, TK_F32));
    /* snprintf's rule for a short buffer */
    char small[8];
    int need = tk_reduce_config_to_text(&c, small, sizeof small);
    CHECK(need > 8 && strlen(small) == 7);
    CHECK(tk_reduce_config_to_text(&c, NULL, 0) == need);

    const struct { tk_reduce_config c; const char *what; } bad[] = {
        { { 10, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "version 10" },
        { { -1, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "version -1" },
        { { 9, 96, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "block 96" },
        { { 9, 32, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "block 32" },
        { { 9, 2048, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "block 2048" },
        { { 9, 256, 0, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "waves 0" },
        { { 9, 256, 1025, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "waves 1025" },
        { { 9, 256, 1, 3, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "pack 3" },
        { { 9, 256, 1, 16, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "pack 16" },
        { { 9, 256, 1, 4, (tk_reduce_finish)3, TK_CACHE_NORMAL, 4, TK_REDUCE_LOAD_COP }, "finish 3" },
        { { 9, 256, 1, 4, TK_FINISH_TWO_PASS, (tk_cache_hint)2, 4, TK_REDUCE_LOAD_COP }, "hint 2" },
        { { 9, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 3, TK_REDUCE_LOAD_COP }, "unroll 3" },
        { { 9, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 8, TK_REDUCE_LOAD_COP }, "unroll 8" },
        { { 8, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 0, TK_REDUCE_LOAD_COP }, "unroll 0" },
        { { 9, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4, (tk_reduce_load)2 }, "load 2" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        CHECK(tk_reduce_config_to_text(&bad[k].c, text, sizeof text) == -1);
        CHECK(!tk_reduce_config_supported(&bad[k].c, TK_F16));
    }
    CHECK(tk_reduce_config_to_text(NULL, text, sizeof text) == -1);

    /* version 9 has at least two packs in flight (one is version 8); the others ignore unroll */
    tk_reduce_config u = { 9, 256, 1, 4, TK_FINISH_ATOMIC, TK_CACHE_EVICT_FIRST, 1, TK_REDUCE_LOAD_NO_ALLOCATE };
    CHECK(tk_reduce_config_to_text(&u, text, sizeof text) > 0);
    CHECK(!tk_reduce_config_supported(&u, TK_F32));
    u.unroll = 2;
    CHECK(tk_reduce_config_supported(&u, TK_F32));
    for (int v = 0; v <= 8; v++) {
        u.version = v;
        for (int k = 0; k < 3; k++) {
            u.unroll = unrolls[k];
            CHECK(tk_reduce_config_supported(&u, TK_F32));
        }
    }

    /* the pack must fit 16 bytes where it is used (versions 8, 9); other versions ignore it */
    tk_reduce_config p8 = { 8, 256, 1, 8, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 1, TK_REDUCE_LOAD_COP };
    CHECK(!tk_reduce_config_supported(&p8, TK_F32));
    CHECK(tk_reduce_config_supported(&p8, TK_F16) && tk_reduce_config_supported(&p8, TK_BF16));
    p8.version = 9;
    p8.unroll = 2;
    CHECK(!tk_reduce_config_supported(&p8, TK_F32) && tk_reduce_config_supported(&p8, TK_F16));
    p8.version = 3;
    CHECK(tk_reduce_config_supported(&p8, TK_F32));
    CHECK(!tk_reduce_config_supported(&p8, (tk_dtype)7));
    CHECK(!tk_reduce_config_supported(NULL, TK_F32));

    CHECK(tk_reduce_config_from_text("version=9", &c) == TK_ERR_UNSUPPORTED_CONFIG);
    /* the text of the configs before load and unroll existed no longer parses (every key) */
    CHECK(tk_reduce_config_from_text("block_size=512,cache_hint=evict_first,finish=atomic,"
                                     "pack_size=4,version=9,waves=2", &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_reduce_config_from_text("block_size=512,cache_hint=evict_first,finish=atomic,"
                                     "load=l2,pack_size=4,unroll=4,version=9,waves=2", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_reduce_config_from_text("block_size=256,cache_hint=normal,finish=fast,pack_size=4,"
                                     "version=9,waves=1", &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_reduce_config_from_text(NULL, &c) == TK_ERR_INVALID_ARGUMENT);

    /* the space: sorted names, defaults that parse */
    const tk_config_space *s = tk_reduce_config_space();
    CHECK_STR(s->family, "reduce");
    CHECK(s->n_params == 8);
    for (int k = 1; k < s->n_params; k++) CHECK(strcmp(s->params[k - 1].name, s->params[k].name) < 0);
    for (int k = 0; k < s->n_params; k++) CHECK(tk_param_supports(&s->params[k], s->params[k].default_value));
}

/* ---- the harness through the registry ---- */

static void test_family(void)
{
    const op_family *f = op_family_find("reduce");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(f->n_ops == 3 && op_family_op_index(f, "sum") == 0 && op_family_op_index(f, "max") == 1 &&
          op_family_op_index(f, "min") == 2 && op_family_op_index(f, "avg") == -1);
    CHECK(f->n_dtypes == 3 && op_family_dtype_index(f, "bf16") == 2);
    CHECK(f->config_space() == tk_reduce_config_space());

    problem p, q;
    const char *names[] = { "n", "offset" };
    value a[] = { value_int(1000), value_int(0) }, b[] = { value_int(33554431), value_int(1) };
    CHECK(problem_init(&p, 2, names, a) == 0 && problem_init(&q, 2, names, b) == 0);
    CHECK(f->check_problem(f, "sum", "f32", &p, NULL, 0) == 0);
    CHECK(f->elements(f, &p) == 1000);
    CHECK(f->bytes_moved(f, "sum", "f32", &p) == 4004);
    CHECK(f->bytes_moved(f, "max", "f16", &p) == 2004);
    CHECK(f->bytes_moved(f, "min", "bf16", &q) == 2 * (int64_t)33554431 + 4);
    CHECK(f->bytes_moved(f, "avg", "f32", &p) == 0);
    CHECK(f->bytes_moved(f, "sum", "f64", &p) == 0);
    CHECK(f->size_key(f, &p) == 1000 && f->size_key(f, &q) == -1);

    char text[256];
    tk_reduce_config c;
    for (int d = TK_F32; d <= TK_BF16; d++) {
        CHECK(f->default_config(f, tk_dtype_name((tk_dtype)d), text, sizeof text) == 0);
        tk_reduce_config want = tk_reduce_default_config((tk_dtype)d);
        CHECK(tk_reduce_config_from_text(text, &c) == TK_OK && same_config(&c, &want));
        CHECK(tk_reduce_config_supported(&c, (tk_dtype)d));
    }
    CHECK(f->default_config(f, "f64", text, sizeof text) == -1);
    CHECK(f->default_config(f, "f32", text, 10) == -1);
    problem_clear(&p);
    problem_clear(&q);
}

/* ---- entry points: what is refused before any CUDA call ---- */

static void test_entry_arguments(void)
{
    float *out = (float *)(uintptr_t)0x10000;
    const void *x = (const void *)(uintptr_t)0x20000;
    const tk_reduce_config ok = tk_reduce_default_config(TK_F32);
    CHECK(tk_reduce((tk_reduce_op)3, TK_F32, 10, x, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce((tk_reduce_op)-1, TK_F32, 10, x, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce(TK_REDUCE_SUM, (tk_dtype)3, 10, x, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_sum(TK_F32, -1, x, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_max(TK_F32, 10, NULL, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_min(TK_F32, 10, x, NULL, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_min(TK_F32, 0, NULL, NULL, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_sum(TK_F32, 10, (const char *)x + 2, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_sum(TK_F16, 10, (const char *)x + 1, out, &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_sum(TK_F32, 10, x, (float *)((char *)out + 2), &ok, 0) == TK_ERR_INVALID_ARGUMENT);
    tk_reduce_config bad = ok;
    bad.pack_size = 8;   /* 32 bytes of f32 */
    CHECK(tk_reduce_sum(TK_F32, 10, x, out, &bad, 0) == TK_ERR_UNSUPPORTED_CONFIG);
    bad = ok;
    bad.version = 12;
    CHECK(tk_reduce_max(TK_F16, 0, NULL, out, &bad, 0) == TK_ERR_UNSUPPORTED_CONFIG);

    tk_reduce_config c;
    CHECK(tk_reduce_tuned_config("reduce.avg", TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_tuned_config("sum", TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_tuned_config(NULL, TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_tuned_config("reduce.sum", (tk_dtype)4, 10, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_tuned_config("reduce.sum", TK_F32, -1, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_reduce_tuned_config("reduce.sum", TK_F32, 10, NULL) == TK_ERR_INVALID_ARGUMENT);
    /* without a device (or with one the header does not know) a NULL config is the default */
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 || tk_tuned_device_count() == 0) {
        cudaGetLastError();
        for (int d = TK_F32; d <= TK_BF16; d++) {
            tk_reduce_config want = tk_reduce_default_config((tk_dtype)d);
            CHECK(tk_reduce_tuned_config("reduce.max", (tk_dtype)d, 1 << 20, &c) == TK_OK &&
                  same_config(&c, &want));
        }
    }
}

int main(void)
{
    test_reference();
    test_tolerance_formula();
    test_tolerance_holds_and_rejects();
    test_plans();
    test_config_text();
    test_family();
    test_entry_arguments();
    return CHECK_DONE();
}

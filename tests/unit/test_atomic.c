/* test_atomic.c: the CPU side of the atomic family: its harness's problem rules (size key,
 * bytes moved, the out_index check, the default config text against the library's config space)
 * and the dot product's tolerance rule (atomic_tolerance), checked against simulated
 * half-precision atomic accumulations: partials of random products summed in float per thread,
 * rounded to the dtype and added in a random order with a rounding after every add, as the GPU's
 * atomics do. Correct accumulations must pass in every trial; accumulations that lose half the
 * partials, or a tenth of them with bf16-sized errors, must fail in nearly every trial.
 * And spaces/atomic.yaml: every config it enumerates is a library config, no config makes one
 * plain 16-bit atomic per thread (half; fast without a partner lane) above n = 128 Ki (on an
 * H200 4 Mi of them took 20.8 s), the write-up's comparison and the 32 Mi target are measured,
 * and the default is measured on every problem. */
#include "check.h"
#include "ops/ops.h"
#include "ops/atomic.h"
#include "core/problem.h"
#include "space/space.h"
#include "tk_check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 88172645463325252ull;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double uniform(void) { return (double)(next_u64() >> 11) * 0x1p-53 * 2.0 - 1.0; }


typedef struct sim {
    double exact, got, sum_sq, start;
} sim;

/* n products of dtype-rounded uniform inputs, k threads of contiguous chunks summed in float,
 * each partial rounded to the dtype and added to start (rounded after every add) in a random
 * order; `keep` of every 10 partials are added (10: all). */
static sim simulate(tk_dtype dt, int n, int k, int keep)
{
    sim s = {0, 0, 0, 0};
    double *partial = malloc((size_t)k * sizeof *partial);
    int *order = malloc((size_t)k * sizeof *order);
    s.start = tk_host_round(dt, uniform());
    int per = (n + k - 1) / k;
    for (int t = 0; t < k; t++) {
        float acc = 0.0f;
        for (int i = t * per; i < n && i < (t + 1) * per; i++) {
            double x = tk_host_round(dt, uniform()), y = tk_host_round(dt, uniform());
            acc += (float)(x * y);
            s.exact += x * y;
            s.sum_sq += x * y * x * y;
        }
        partial[t] = tk_host_round(dt, acc);
        order[t] = t;
    }
    for (int t = k - 1; t > 0; t--) {
        int j = (int)(next_u64() % (uint64_t)(t + 1));
        int tmp = order[t]; order[t] = order[j]; order[j] = tmp;
    }
    double sum = s.start;
    for (int t = 0; t < k; t++)
        if (order[t] % 10 < keep) sum = tk_host_round(dt, sum + partial[order[t]]);
    s.got = sum;
    s.exact += s.start;
    free(partial);
    free(order);
    return s;
}

/* Trials out of `trials` whose error is within atomic_tolerance. */
static int passing(tk_dtype dt, int n, int k, int keep, int trials)
{
    int ok = 0;
    for (int r = 0; r < trials; r++) {
        sim s = simulate(dt, n, k, keep);
        double tol = atomic_tolerance(dt, k, 0, (n + k - 1) / k, s.start, s.sum_sq, s.exact);
        ok += fabs(s.got - s.exact) <= tol;
    }
    return ok;
}

static void test_tolerance(void)
{
    /* correct accumulations always pass */
    CHECK(passing(TK_F16, 65536, 1024, 10, 100) == 100);
    CHECK(passing(TK_F16, 65536, 64, 10, 100) == 100);
    CHECK(passing(TK_F16, 100000, 8192, 10, 50) == 50);
    CHECK(passing(TK_BF16, 65536, 1024, 10, 100) == 100);
    CHECK(passing(TK_BF16, 20000, 20000, 10, 50) == 50);
    /* losing half the partials fails nearly always (f16: tolerance ~4% of the result's spread) */
    CHECK(passing(TK_F16, 65536, 1024, 5, 100) <= 8);
    CHECK(passing(TK_F16, 65536, 64, 5, 100) <= 8);
    CHECK(passing(TK_BF16, 65536, 64, 5, 100) <= 20);

    /* the rule's shape: grows with the adds and the unit roundoff, never below one subnormal */
    double base = atomic_tolerance(TK_F16, 100, 0, 8, 0.5, 100.0, 3.0);
    CHECK(atomic_tolerance(TK_F16, 10000, 0, 8, 0.5, 100.0, 3.0) > 5 * base);
    CHECK(atomic_tolerance(TK_BF16, 100, 0, 8, 0.5, 100.0, 3.0) > 7 * base);
    CHECK(atomic_tolerance(TK_F16, 0, 0, 0, 0, 0, 0) >= 0x1p-24);
    /* float_acc: one rounding in the dtype, float adds barely count */
    double fa = atomic_tolerance(TK_F16, 1, 1000000, 128, 0.5, 1e6, 1000.0);
    CHECK(fa < 1000.0 * 0x1p-11 + 6 * 0x1p-11 * sqrt(1e6 / 6 + 1e6 / 3) + 1.0);
}

static void test_harness_rules(void)
{
    const op_family *f = op_family_find("atomic");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(op_family_op_index(f, "dot") == 0);
    CHECK(op_family_dtype_index(f, "f16") >= 0 && op_family_dtype_index(f, "bf16") >= 0);
    CHECK(op_family_dtype_index(f, "f32") < 0);

    problem p;
    char err[200];
    CHECK(problem_parse(&p, "n=33554432,offset=0,out_index=0,out_len=2,out_offset=0") == 0);
    CHECK(f->size_key(f, &p) == 33554432);
    CHECK(f->elements(f, &p) == 33554432);
    CHECK(f->bytes_moved(f, "dot", "f16", &p) == 2 * 33554432LL * 2);
    CHECK(f->check_problem(f, "dot", "f16", &p, err, sizeof err) == 0);
    problem_clear(&p);
    const char *not_keys[] = {
        "n=1000,offset=1,out_index=0,out_len=2,out_offset=0",
        "n=1000,offset=0,out_index=0,out_len=1,out_offset=0",
        "n=1000,offset=0,out_index=1,out_len=2,out_offset=0",
        "n=1000,offset=0,out_index=0,out_len=2,out_offset=1",
    };
    for (int i = 0; i < 4; i++) {
        CHECK(problem_parse(&p, not_keys[i]) == 0);
        CHECK(f->size_key(f, &p) == -1);
        problem_clear(&p);
    }
    CHECK(problem_parse(&p, "n=10,offset=0,out_index=5,out_len=5,out_offset=0") == 0);
    err[0] = 0;
    CHECK(f->check_problem(f, "dot", "f16", &p, err, sizeof err) == -1);
    CHECK(strstr(err, "out_index") != NULL);
    problem_clear(&p);

    char text[200];
    CHECK(f->default_config(f, "f16", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=256,cache_hint=normal,strategy=block_reduce,waves=32");
    tk_atomic_config c;
    CHECK(tk_atomic_config_from_text(text, &c) == TK_OK);
    tk_atomic_config d = tk_atomic_default_config();
    CHECK(c.block_size == d.block_size && c.strategy == d.strategy && c.waves == d.waves &&
          c.cache_hint == d.cache_hint && d.cache_hint == TK_CACHE_NORMAL);
    CHECK(f->default_config(f, "f64", text, sizeof text) == -1);
    CHECK(tk_atomic_config_from_text("block_size=64,cache_hint=evict_first,strategy=fast,waves=2",
                                     &c) == TK_OK);
    CHECK(c.cache_hint == TK_CACHE_EVICT_FIRST && c.strategy == TK_ATOMIC_FAST && c.waves == 2);

    const tk_config_space *cs = f->config_space();
    CHECK(cs && cs->n_params == 4);
    CHECK_STR(cs->params[1].name, "cache_hint");
    CHECK(tk_param_supports(&cs->params[1], 1) && !tk_param_supports(&cs->params[1], 2));
    CHECK_STR(cs->params[2].name, "strategy");
    CHECK(tk_param_supports(&cs->params[2], 4) && !tk_param_supports(&cs->params[2], 5));
    CHECK(tk_param_supports(&cs->params[0], 96) && !tk_param_supports(&cs->params[0], 48));
    CHECK(tk_param_supports(&cs->params[3], 1024) && !tk_param_supports(&cs->params[3], 0));
    CHECK(tk_atomic_config_from_text("block_size=64,cache_hint=normal,strategy=fast", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_atomic_config_from_text("block_size=64,cache_hint=evict_last,strategy=fast,waves=1",
                                     &c) == TK_ERR_UNSUPPORTED_CONFIG);
}

/* Plain 16-bit atomics per thread in the harness's layout (atomic.c: the output buffer starts
 * out_offset elements past a 4-byte boundary): half always, fast when the target's pair partner
 * lies outside the buffer (a one-element buffer, or the wrong end of one). */
static int plain_per_thread(const tk_atomic_config *c, const problem *p)
{
    if (c->strategy == TK_ATOMIC_HALF) return 1;
    if (c->strategy != TK_ATOMIC_FAST) return 0;
    const int64_t len = problem_int(p, "out_len", 2), index = problem_int(p, "out_index", 0);
    const int starts_pair = (problem_int(p, "out_offset", 0) + index) % 2 == 0;
    return starts_pair ? index + 1 >= len : index == 0;
}

static void test_space_file(void)
{
    char err[512] = "";
    space *sp = space_load("spaces/atomic.yaml", err, sizeof err);
    CHECK(sp != NULL);
    if (!sp) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK(sp->n_ops == 1 && sp->n_dtypes == 2);
    /* the watchdog and the timing cap keep one slow config from eating the run */
    CHECK(sp->measure.timeout_s > 0 && sp->measure.timeout_s <= 5);
    CHECK(sp->measure.max_seconds > 0 && sp->measure.max_seconds <= 0.5);
    int64_t total = 0, bad = 0, slow = 0, defaults = 0, header_problems = 0;
    int64_t writeup[5] = {0}, target[5] = {0}, evict_first = 0;
    int choice[8];
    char text[256], def[128];
    CHECK(sp->family->default_config(sp->family, "f16", def, sizeof def) == 0);
    for (int d = 0; d < sp->n_dtypes; d++)
        for (int q = 0; q < sp->n_problems; q++) {
            const problem *p = &sp->problems[q];
            const int64_t n = problem_int(p, "n", 0);
            const int header = sp->family->size_key(sp->family, p) >= 0;
            header_problems += header;
            space_binding b = { sp->ops[0], sp->dtypes[d], p, NULL };
            space_iter it;
            space_iter_init(&it, sp, &b);
            while (space_iter_next(&it, choice) == 1) {
                space_config_text(sp, choice, text, sizeof text);
                tk_atomic_config c;
                if (tk_atomic_config_from_text(text, &c) != TK_OK) {
                    bad++;
                    continue;
                }
                slow += plain_per_thread(&c, p) && n > 131072;
                defaults += strcmp(text, def) == 0;
                if (header && n == 131072 && c.block_size == 256 && c.waves == 1)
                    writeup[c.strategy]++;
                if (header && n == 33554432) target[c.strategy]++;
                if (c.cache_hint == TK_CACHE_EVICT_FIRST) {
                    evict_first++;
                    CHECK(c.strategy == TK_ATOMIC_BLOCK_REDUCE && n == 33554432);
                }
                total++;
            }
            space_iter_free(&it);
        }
    CHECK(bad == 0);
    CHECK(slow == 0);
    CHECK(defaults == 2 * sp->n_problems);
    CHECK(header_problems >= 2 * 3);
    for (int s = 0; s < 5; s++) {
        CHECK(writeup[s] == 2);                    /* every strategy at the same block and waves */
        CHECK(s == TK_ATOMIC_HALF ? target[s] == 0 : target[s] >= 2);
    }
    CHECK(evict_first == 2 * 21);   /* the 21 block_reduce configs at 32 Mi, per dtype */
    CHECK(total == 266);
    printf("spaces/atomic.yaml: %lld configs over %d (op, dtype, problem)\n", (long long)total,
           2 * sp->n_problems);
    space_free(sp);
}

int main(void)
{
    test_tolerance();
    test_harness_rules();
    test_space_file();
    return CHECK_DONE();
}

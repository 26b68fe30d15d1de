/* test_index_add.c: the CPU side of the index_add family: its harness's shape rules (leading
 * self sizes, dim, index range, collapse to outer/D/inner), size keys (the write-up's shapes are
 * header entries keyed by the source's element count; duplicate-heavy, int32 and misaligned
 * problems are not), PERF.md's byte count, the default config text against the library's config
 * space, and the tolerance rule against simulated accumulations in each dtype (start and
 * contributions uniform in [-1, 1), alpha 0.75, rounded after every add in a random order):
 * correct sums always pass, sums missing one contribution nearly always fail. */
#include "check.h"
#include "ops/ops.h"
#include "ops/index_add.h"
#include "problem.h"
#include "tk_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double uniform(void) { return (double)(next_u64() >> 11) * 0x1p-53 * 2.0 - 1.0; }

static double round_to(tk_dtype dt, double v)
{
    unsigned char b[8];
    tk_host_from_double(dt, &v, b, 1);
    double r;
    tk_host_to_double(dt, b, &r, 1);
    return r;
}

/* Trials (of `trials`) within tolerance: one element receiving `dups` contributions, added as
 * the GPU's atomics do (16-bit: alpha * source rounded first), skipping `drop` of them. */
static int passing(tk_dtype dt, int dups, int drop, int trials)
{
    double rtol, atol;
    index_add_tolerance(dt, dups, INDEX_ADD_ALPHA, &rtol, &atol);
    int ok = 0;
    for (int t = 0; t < trials; t++) {
        double start = round_to(dt, uniform()), exact = start, got = start;
        for (int k = 0; k < dups; k++) {
            double src = round_to(dt, uniform());
            exact += INDEX_ADD_ALPHA * src;
            double add = round_to(dt, INDEX_ADD_ALPHA * src);   /* spread / large kernels */
            if (k >= drop) got = round_to(dt, got + add);
        }
        ok += fabs(got - exact) <= atol + rtol * fabs(exact);
    }
    return ok;
}

static void test_tolerance(void)
{
    const tk_dtype dts[] = { TK_F32, TK_F16, TK_BF16 };
    for (int d = 0; d < 3; d++) {
        CHECK(passing(dts[d], 1, 0, 300) == 300);
        CHECK(passing(dts[d], 4, 0, 300) == 300);
        CHECK(passing(dts[d], 60, 0, 300) == 300);
        CHECK(passing(dts[d], 5000, 0, 30) == 30);
        /* one contribution lost: caught unless it was tiny */
        CHECK(passing(dts[d], 4, 1, 300) <= (dts[d] == TK_BF16 ? 30 : 15));
    }
    double r16, a16, r32, a32;
    index_add_tolerance(TK_F16, 10, 1.0, &r16, &a16);
    index_add_tolerance(TK_F32, 10, 1.0, &r32, &a32);
    CHECK(r16 == 0x1p-11 && r32 == 0x1p-24 && a16 > 1000 * a32);
    index_add_tolerance(TK_F16, 1000, 1.0, &r16, &a16);
    index_add_tolerance(TK_F16, 10, 1.0, &r32, &a32);
    CHECK(a16 > a32);
}

static void test_shapes(void)
{
    problem p;
    index_add_shape s;
    char err[200];
    CHECK(problem_parse(&p, "dim=1,n_index=7,self0=4,self1=5,self2=6") == 0);
    CHECK(index_add_shape_of(&p, &s, err, sizeof err) == 0);
    CHECK(s.ndim == 3 && s.dim == 1 && s.outer == 4 && s.dim_size == 5 && s.inner == 6);
    CHECK(s.index_range == 5 && s.self_elements == 120 && s.source_elements == 4 * 7 * 6);
    problem_clear(&p);

    CHECK(problem_parse(&p, "n_index=7,self0=4,self2=6") == 0);
    CHECK(index_add_shape_of(&p, &s, err, sizeof err) == -1);
    CHECK(strstr(err, "self2") != NULL);
    problem_clear(&p);
    CHECK(problem_parse(&p, "dim=2,n_index=7,self0=4,self1=6") == 0);
    CHECK(index_add_shape_of(&p, &s, err, sizeof err) == -1);
    CHECK(strstr(err, "dim 2") != NULL);
    problem_clear(&p);
    CHECK(problem_parse(&p, "index_range=9,n_index=7,self0=4,self1=6") == 0);
    CHECK(index_add_shape_of(&p, &s, err, sizeof err) == -1);
    CHECK(strstr(err, "index_range") != NULL);
    problem_clear(&p);
    CHECK(problem_parse(&p, "n_index=7,self0=4194304,self1=4194304,self2=4") == 0);
    CHECK(index_add_shape_of(&p, &s, err, sizeof err) == -1);
    problem_clear(&p);
}

static void test_harness_rules(void)
{
    const op_family *f = op_family_find("index_add");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(op_family_op_index(f, "add") == 0);
    CHECK(op_family_dtype_index(f, "f32") >= 0 && op_family_dtype_index(f, "bf16") >= 0);

    struct { const char *text; int64_t key, elements; } cases[] = {
        { "index_range=1024,n_index=15,self0=33554432", 15, 15 },
        { "index_range=1024,n_index=15,self0=32768,self1=1024", 15 * 1024, 15 * 1024 },
        { "n_index=15,self0=32,self1=1024,self2=1024", 15 << 20, 15 << 20 },
        { "index_range=1024,n_index=1024,self0=33554432", 1024, 1024 },
        { "index_range=1024,n_index=1024,self0=32768,self1=1024", 1 << 20, 1 << 20 },
        { "index_range=16,n_index=1048576,self0=4096", -1, 1 << 20 },
        { "index_range=8,n_index=4096,self0=64,self1=4096", -1, 4096 * 4096 },
        { "idx64=0,n_index=15,self0=64,self1=8", -1, 15 * 8 },
        { "n_index=15,offset=1,self0=64,self1=8", -1, 15 * 8 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        problem p;
        char err[200];
        CHECK(problem_parse(&p, cases[i].text) == 0);
        CHECK(f->check_problem("add", "f32", &p, err, sizeof err) == 0);
        CHECK(f->size_key(&p) == cases[i].key);
        CHECK(f->elements(&p) == cases[i].elements);
        problem_clear(&p);
    }
    problem p;
    CHECK(problem_parse(&p, "n_index=15,self0=32,self1=1024,self2=1024") == 0);
    CHECK(f->bytes_moved("add", "f32", &p) == 3LL * 15 * 1024 * 1024 * 4 + 15 * 8);   /* PERF.md: 189 MB */
    CHECK(f->bytes_moved("add", "f16", &p) == 3LL * 15 * 1024 * 1024 * 2 + 15 * 8);
    problem_clear(&p);

    char text[200];
    CHECK(f->default_config("f32", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=128,grid_cap=8,pack_size=1,small_mode=owner,threshold=16");
    tk_index_add_config c;
    CHECK(tk_index_add_config_from_text(text, &c) == TK_OK);
    tk_index_add_config d = tk_index_add_default_config();
    CHECK(c.block_size == d.block_size && c.grid_cap == d.grid_cap && c.pack_size == d.pack_size &&
          c.small_mode == d.small_mode && c.threshold == d.threshold);
    const tk_config_space *cs = f->config_space();
    CHECK(cs && cs->n_params == 5);
    CHECK_STR(cs->params[4].name, "threshold");
    CHECK(tk_param_supports(&cs->params[4], 0) && tk_param_supports(&cs->params[4], 4096));
    CHECK(!tk_param_supports(&cs->params[4], 4097));
    CHECK(tk_param_supports(&cs->params[2], 8) && !tk_param_supports(&cs->params[2], 3));
}

int main(void)
{
    test_tolerance();
    test_shapes();
    test_harness_rules();
    return CHECK_DONE();
}

/* test_harness.c: the shared harness mechanics on the CPU: parallel_for visits every index once,
 * random inputs are reproducible, in range, never zero, differ between streams and problems, and
 * the exact values are the dtype-rounded ones. */
#include "check.h"
#include "ops/harness.h"
#include "tk_check.h"

#include <stdlib.h>

static void mark(void *ctx, int64_t b, int64_t e)
{
    unsigned char *seen = ctx;
    for (int64_t i = b; i < e; i++) __atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
}

int main(void)
{
    const int64_t n = (3 << 20) + 12345;
    unsigned char *seen = calloc((size_t)n, 1);
    harness_parallel_for(n, mark, seen);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += seen[i] != 1;
    CHECK(bad == 0);
    free(seen);

    problem p, q;
    const char *names[] = { "n" };
    value v1[] = { value_int(1000) }, v2[] = { value_int(1001) };
    CHECK(problem_init(&p, 1, names, v1) == 0);
    CHECK(problem_init(&q, 1, names, v2) == 0);
    uint64_t s = harness_seed(1, "mul", "f16", &p);
    CHECK(s == harness_seed(1, "mul", "f16", &p));
    CHECK(s != harness_seed(1, "mul", "f16", &q));
    CHECK(s != harness_seed(2, "mul", "f16", &p));
    CHECK(s != harness_seed(1, "mul", "f32", &p));

    const int64_t m = (2 << 20) + 77;
    uint16_t *a = malloc((size_t)m * 2), *b = malloc((size_t)m * 2), *c = malloc((size_t)m * 2);
    double *ea = malloc((size_t)m * sizeof *ea), *ref = malloc((size_t)m * sizeof *ref);
    harness_fill_uniform(s, 0, TK_F16, m, -4.0, 4.0, a, ea);
    harness_fill_uniform(s, 0, TK_F16, m, -4.0, 4.0, b, NULL);
    harness_fill_uniform(s, 1, TK_F16, m, -4.0, 4.0, c, NULL);
    CHECK(memcmp(a, b, (size_t)m * 2) == 0);
    CHECK(memcmp(a, c, (size_t)m * 2) != 0);
    tk_host_to_double(TK_F16, a, ref, m);
    int64_t out_of_range = 0, zeros = 0, mismatch = 0, negative = 0;
    for (int64_t i = 0; i < m; i++) {
        out_of_range += ea[i] < -4.0 || ea[i] > 4.0;
        zeros += ea[i] == 0.0;
        mismatch += ea[i] != ref[i];
        negative += ea[i] < 0;
    }
    CHECK(out_of_range == 0);
    CHECK(zeros == 0);
    CHECK(mismatch == 0);
    CHECK(negative > m / 3 && negative < 2 * m / 3);   /* both signs */
    free(a); free(b); free(c); free(ea); free(ref);
    problem_clear(&p);
    problem_clear(&q);
    return CHECK_DONE();
}

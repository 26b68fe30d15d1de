/* test_pareto.c: unit tests of the Pareto front (tuner/core/pareto.c): random sets, some with
 * many repeated coordinates, against the O(n^2) definition (a point is on the front when no
 * other point is no worse in both and better in one); ties (equal points are both on the front,
 * a point beaten in one coordinate and tied in the other is not); a single point; all points
 * equal; an empty set; a front given in decreasing x; and that the front of a large set is found
 * in n log n time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "check.h"
#include "core/pareto.h"

/* The definition, O(n^2). */
static void brute(const double *x, const double *y, int n, unsigned char *out)
{
    for (int i = 0; i < n; i++) {
        out[i] = 1;
        for (int j = 0; j < n && out[i]; j++)
            if (j != i && x[j] <= x[i] && y[j] <= y[i] && (x[j] < x[i] || y[j] < y[i]))
                out[i] = 0;
    }
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* n random points; coordinates drawn from `levels` values when levels > 0 (many ties), else
 * continuous. Returns 1 when pareto_front agrees with the definition point by point. */
static int agrees(int n, int levels)
{
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    unsigned char *got = malloc((size_t)n), *want = malloc((size_t)n);
    int ok = x && y && got && want;
    for (int i = 0; ok && i < n; i++) {
        x[i] = levels ? (double)(next() % (uint64_t)levels) : (double)(next() >> 11) / 9007199254740992.0;
        y[i] = levels ? (double)(next() % (uint64_t)levels) : (double)(next() >> 11) / 9007199254740992.0;
    }
    if (ok) {
        int count = pareto_front(x, y, n, got), brute_count = 0;
        brute(x, y, n, want);
        for (int i = 0; i < n; i++) {
            ok &= got[i] == want[i];
            brute_count += want[i];
        }
        ok &= count == brute_count;
    }
    free(x);
    free(y);
    free(got);
    free(want);
    return ok;
}

static void test_random(void)
{
    int all = 1;
    for (int round = 0; round < 300; round++) {
        int n = 1 + (int)(next() % 200);
        int levels = round % 3 == 0 ? 0 : round % 3 == 1 ? 4 : 25;
        all &= agrees(n, levels);
    }
    CHECK(all);
    CHECK(agrees(2000, 0));
    CHECK(agrees(2000, 7));
}

static void test_ties(void)
{
    unsigned char f[8];
    /* two equal points, both on the front; a third beaten in x at the same y */
    double x[] = {1, 1, 2}, y[] = {5, 5, 5};
    CHECK(pareto_front(x, y, 3, f) == 2);
    CHECK(f[0] == 1 && f[1] == 1 && f[2] == 0);
    /* same x: the one of lower y wins; same y, other x: the one of lower x wins */
    double x2[] = {3, 3, 1, 2}, y2[] = {1, 2, 9, 9};
    CHECK(pareto_front(x2, y2, 4, f) == 2);
    CHECK(f[0] == 1 && f[1] == 0 && f[2] == 1 && f[3] == 0);
    /* an equal pair dominated by a third point: neither is on the front */
    double x3[] = {2, 2, 1}, y3[] = {2, 2, 1};
    CHECK(pareto_front(x3, y3, 3, f) == 1);
    CHECK(f[0] == 0 && f[1] == 0 && f[2] == 1);
    /* a staircase in decreasing x, all on the front, and one point above it */
    double x4[] = {5, 4, 3, 2, 1, 4.5}, y4[] = {1, 2, 3, 4, 5, 2.5};
    CHECK(pareto_front(x4, y4, 6, f) == 5);
    CHECK(f[0] && f[1] && f[2] && f[3] && f[4] && !f[5]);
}

static void test_small(void)
{
    unsigned char f[4] = {9, 9, 9, 9};
    double one_x = 3.5, one_y = 0.25;
    CHECK(pareto_front(&one_x, &one_y, 1, f) == 1);
    CHECK(f[0] == 1);
    CHECK(pareto_front(NULL, NULL, 0, f) == 0);
    double x[4] = {7, 7, 7, 7}, y[4] = {2, 2, 2, 2};
    CHECK(pareto_front(x, y, 4, f) == 4);
    CHECK(f[0] == 1 && f[1] == 1 && f[2] == 1 && f[3] == 1);
}

/* n log n: a million points in well under a second (the O(n^2) definition would take hours) */
static void test_speed(void)
{
    const int n = 1000000;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    unsigned char *f = malloc((size_t)n);
    CHECK(x && y && f);
    if (x && y && f) {
        for (int i = 0; i < n; i++) {
            x[i] = (double)(next() % 100000);
            y[i] = (double)(next() % 100000);
        }
        clock_t t0 = clock();
        int count = pareto_front(x, y, n, f);
        double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
        CHECK(count >= 1 && count < 1000);
        CHECK(s < 2.0 * SANITIZER_SLOWDOWN);
    }
    free(x);
    free(y);
    free(f);
}

int main(void)
{
    test_random();
    test_ties();
    test_small();
    test_speed();
    return CHECK_DONE();
}

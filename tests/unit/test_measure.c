/* test_measure.c: the worker's pure rules (tuner/measure/measure.h) on the CPU: the sampling plan
 * (batches, convergence, max_runs, max_seconds, and racing's decisions: a config surely slower
 * than the margin stops after five runs, a close contender or a noisy one never does, and the
 * best so far is never raced), which CUDA errors lose the context, which launch failures mean
 * "the device cannot run this variant" (unsupported) rather than a refused launch
 * (launch_error). The GPU side of measure.c runs in tests/gpu/worker_test.sh. */
#include "check.h"
#include "measure/measure.h"

/* Runs the plan over a generator of samples; returns the runs taken, batch sizes in batches. */
static int run_plan(measure_plan *p, double (*gen)(int i), int *batches, int *n_batches)
{
    static double samples[100000];
    int n = 0, b, nb = 0;
    while ((b = measure_plan_next(p, samples, n)) > 0) {
        CHECK(b <= MEASURE_BATCH_MAX);
        if (nb < 64) batches[nb++] = b;
        for (int i = 0; i < b; i++) samples[n + i] = gen(n + i);
        n += b;
    }
    *n_batches = nb;
    return n;
}

static double steady10(int i) { (void)i; return 10.0; }
static double steady12(int i) { (void)i; return 12.0; }
static double close104(int i) { return 10.4 + 0.001 * (i % 3); }
static double noisy_close(int i)
{
    static const double v[] = {10.6, 10.2, 10.7, 10.8, 10.9, 10.6, 10.7, 10.3, 10.8, 10.6};
    return v[i % 10];
}
static double alternating(int i) { return i % 2 ? 20.0 : 10.0; }
static double one_second(int i) { (void)i; return 1e6; }
static double slow_after_outlier(int i) { return i == 3 ? 10.1 : 13.0; }

static void test_plan(void)
{
    measure_settings ms = { .warmup = 3, .min_runs = 10, .max_runs = 200, .rel_ci = 0.01,
                            .race_margin = 0.05 };
    measure_plan p;
    int b[64], nb;
    /* no best yet: no racing; min_runs in one batch, then converged */
    measure_plan_init(&p, &ms, 0);
    CHECK(run_plan(&p, steady10, b, &nb) == 10 && nb == 1 && b[0] == 10 && !p.raced);
    CHECK(p.stats.n == 10 && p.stats.median == 10.0);
    /* racing against 10 us at 5%: a config at 12 us stops after 5 runs */
    measure_plan_init(&p, &ms, 10.0);
    CHECK(run_plan(&p, steady12, b, &nb) == STATS_RACE_MIN_RUNS && p.raced && b[0] == 5);
    CHECK(p.stats.n == 5 && p.stats.median == 12.0);
    /* a contender inside the margin (10.4 < 10.5) is measured in full */
    measure_plan_init(&p, &ms, 10.0);
    CHECK(run_plan(&p, close104, b, &nb) >= 10 && !p.raced && b[0] == 5 && b[1] == 5);
    /* noisy, its median (10.65) above the threshold (10.5) but some runs under it: not raced
     * at 5 runs (one is 10.2) nor at 10 (the order-statistic bound is the 2nd smallest, 10.3),
     * raced only once enough runs pin its median above the threshold */
    measure_plan_init(&p, &ms, 10.0);
    int n = run_plan(&p, noisy_close, b, &nb);
    CHECK(p.raced && n > 10);
    CHECK(p.stats.ci_lo > 10.5);
    /* the best itself, or anything faster, is never raced */
    measure_plan_init(&p, &ms, 12.0);
    CHECK(run_plan(&p, steady10, b, &nb) == 10 && !p.raced);
    measure_plan_init(&p, &ms, 10.0);
    CHECK(run_plan(&p, steady10, b, &nb) == 10 && !p.raced);
    /* one fast outlier among five runs keeps it in; the next batch races it out */
    measure_plan_init(&p, &ms, 10.0);
    n = run_plan(&p, slow_after_outlier, b, &nb);
    CHECK(p.raced && n == 10);
    /* racing off (margin 0): no racing whatever the best */
    measure_settings off = ms;
    off.race_margin = 0;
    measure_plan_init(&p, &off, 10.0);
    CHECK(run_plan(&p, steady12, b, &nb) == 10 && !p.raced && b[0] == 10);
    /* never converging: batches of an eighth of the runs so far (at least 2, at most 32) up to
     * max_runs exactly */
    measure_plan_init(&p, &off, 0);
    CHECK(run_plan(&p, alternating, b, &nb) == 200);
    CHECK(b[0] == 10 && b[1] == 2 && nb > 10);
    for (int i = 1; i < nb; i++) CHECK(b[i] >= 1 && b[i] <= MEASURE_BATCH_MAX);
    measure_settings big = off;
    big.max_runs = 2000;
    measure_plan_init(&p, &big, 0);
    CHECK(run_plan(&p, alternating, b, &nb) == 2000);
    /* max_seconds: 1 s runs, at most 2 s of GPU time once min_runs are in */
    measure_settings secs = { .min_runs = 1, .max_runs = 200, .rel_ci = 1e-9, .max_seconds = 2 };
    measure_plan_init(&p, &secs, 0);
    CHECK(run_plan(&p, one_second, b, &nb) == 3);   /* 1, then a batch of 2 */
    /* min_runs under five with racing: racing waits for five runs */
    measure_settings few = ms;
    few.min_runs = 3;
    measure_plan_init(&p, &few, 10.0);
    CHECK(run_plan(&p, steady12, b, &nb) == 5 && p.raced && b[0] == 3 && b[1] == 2);
    /* the test itself */
    sample_stats st;
    double five[5] = {12, 13, 12.5, 12.2, 14};
    stats_summarize(five, 5, &st);
    CHECK(stats_surely_above(&st, 11.9) && !stats_surely_above(&st, 12.0));
    stats_summarize(five, 4, &st);
    CHECK(!stats_surely_above(&st, 1.0));   /* four runs never decide */
}

/* The playoff's order: every batch holds each config once per round, and over k batches in a
 * row each config opens one batch and takes each place of the round once. */
static void test_playoff_order(void)
{
    for (int k = 2; k <= EVAL_PLAYOFF_MAX; k++) {
        for (int b = 0; b < 3 * k; b++) {
            int seen[EVAL_PLAYOFF_MAX] = { 0 };
            for (int j = 0; j < k; j++) seen[measure_playoff_config(b, k, j)]++;
            for (int i = 0; i < k; i++) CHECK(seen[i] == 1);
            /* the second round of a batch repeats the first's order */
            for (int j = 0; j < k; j++)
                CHECK(measure_playoff_config(b, k, j + k) == measure_playoff_config(b, k, j));
        }
        for (int place = 0; place < k; place++) {
            int held[EVAL_PLAYOFF_MAX] = { 0 };
            for (int b = 7; b < 7 + k; b++) held[measure_playoff_config(b, k, place)]++;
            for (int i = 0; i < k; i++) CHECK(held[i] == 1);
        }
    }
    /* the first batch starts with config 0, the next with config 1 */
    CHECK(measure_playoff_config(0, 4, 0) == 0 && measure_playoff_config(1, 4, 0) == 1);
    CHECK(measure_playoff_config(1, 4, 3) == 0);
}

int main(void)
{
    test_plan();
    test_playoff_order();
    /* Sticky errors: the context is gone and the worker must exit. */
    cudaError_t sticky[] = { cudaErrorIllegalAddress, cudaErrorLaunchFailure,
                             cudaErrorMisalignedAddress, cudaErrorIllegalInstruction,
                             cudaErrorHardwareStackError, cudaErrorInvalidAddressSpace,
                             cudaErrorInvalidPc, cudaErrorAssert, cudaErrorLaunchTimeout };
    for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++)
        CHECK(measure_error_is_sticky(sticky[i]) == 1);
    cudaError_t not_sticky[] = { cudaSuccess, cudaErrorInvalidConfiguration,
                                 cudaErrorLaunchOutOfResources, cudaErrorInvalidValue,
                                 cudaErrorMemoryAllocation, cudaErrorNoKernelImageForDevice };
    for (size_t i = 0; i < sizeof not_sticky / sizeof *not_sticky; i++)
        CHECK(measure_error_is_sticky(not_sticky[i]) == 0);

    CHECK(measure_error_is_resource(cudaErrorInvalidConfiguration));
    CHECK(measure_error_is_resource(cudaErrorLaunchOutOfResources));
    CHECK(measure_error_is_resource(cudaErrorCooperativeLaunchTooLarge));
    CHECK(!measure_error_is_resource(cudaErrorInvalidValue));
    CHECK(!measure_error_is_resource(cudaSuccess));

    /* The library said it has no such variant. */
    CHECK(measure_launch_status(TK_ERR_UNSUPPORTED_CONFIG, cudaSuccess, "") == EVAL_UNSUPPORTED);
    /* A launch refused for resources, known from the pending error or from the text. */
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaErrorLaunchOutOfResources, NULL) ==
          EVAL_UNSUPPORTED);
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaSuccess,
                                "launch: cudaErrorInvalidConfiguration: invalid configuration "
                                "argument") == EVAL_UNSUPPORTED);
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaSuccess,
                                "too many resources requested for launch") == EVAL_UNSUPPORTED);
    /* Any other refused launch. */
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaSuccess, "launch failed") ==
          EVAL_LAUNCH_ERROR);
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaErrorNoKernelImageForDevice, "") ==
          EVAL_LAUNCH_ERROR);
    CHECK(measure_launch_status(TK_ERR_INVALID_ARGUMENT, cudaSuccess, "bad pointer") ==
          EVAL_LAUNCH_ERROR);
    CHECK(measure_launch_status(TK_ERR_CUDA, cudaSuccess, NULL) == EVAL_LAUNCH_ERROR);
    return CHECK_DONE();
}

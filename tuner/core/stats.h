/* stats.h: the one statistics module. Summaries of timing samples (median, mean, spread) and the
 * 95% confidence interval of the median that decides when a measurement has converged, all on
 * GSL (sorting, quantiles, t distribution). */
#pragma once

typedef struct sample_stats {
    int n;
    double median, min, max, mean, stddev;
    double ci_lo, ci_hi;     /* 95% confidence interval of the median (distribution-free, order
                                statistics; the t interval of the mean scaled when n < 6) */
} sample_stats;

/* Summarises n >= 1 samples (not modified). */
void stats_summarize(const double *samples, int n, sample_stats *out);

/* 1 when the confidence interval's half-width is within rel_ci of the median. */
int stats_converged(const sample_stats *s, double rel_ci);

/* Racing's test (docs/time-to-tune.md): 1 when the samples say the true median is above
 * threshold with at least 96.9% confidence: at least STATS_RACE_MIN_RUNS samples and the lower
 * end of the median's interval (ci_lo: with 5 samples their minimum, which lies above the median
 * with probability 1/32; from 6 on the order-statistic bound, wrong at most 2.5% of the time)
 * above threshold. */
#define STATS_RACE_MIN_RUNS 5
int stats_surely_above(const sample_stats *s, double threshold);

/* Quantile q in [0,1] of n samples (not modified), linear interpolation. */
double stats_quantile(const double *samples, int n, double q);

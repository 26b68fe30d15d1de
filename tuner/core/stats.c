/* stats.c: summaries of timing samples on GSL. The median's 95% confidence interval is the
 * distribution-free one from order statistics: ranks l and n-l+1 where l is the largest rank with
 * P(Bin(n, 1/2) <= l-1) <= 2.5%. It needs no normality assumption (kernel timings are skewed by
 * occasional slow runs), and with fewer than 6 samples it is the whole range, so a measurement
 * converges only once it has enough runs to say something. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* Lower 1-based rank of the median's 95% interval for n samples. */
static int median_ci_rank(int n)
{
    int l = 1;
    while (l + 1 <= n && gsl_cdf_binomial_P((unsigned)l, 0.5, (unsigned)n) <= 0.025)
        l++;
    return l;
}

void stats_summarize(const double *samples, int n, sample_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0) return;
    double *s = malloc((size_t)n * sizeof *s);   /* freed below */
    if (!s) return;
    memcpy(s, samples, (size_t)n * sizeof *s);
    gsl_sort(s, 1, (size_t)n);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = gsl_stats_median_from_sorted_data(s, 1, (size_t)n);
    out->mean = gsl_stats_mean(s, 1, (size_t)n);
    out->stddev = n > 1 ? gsl_stats_sd_m(s, 1, (size_t)n, out->mean) : 0.0;
    int l = median_ci_rank(n);
    out->ci_lo = s[l - 1];
    out->ci_hi = s[n - l];
    free(s);
}

int stats_converged(const sample_stats *s, double rel_ci)
{
    if (s->n < 6 || s->median <= 0) return 0;
    double half = 0.5 * (s->ci_hi - s->ci_lo);
    return half <= rel_ci * s->median;
}

int stats_surely_above(const sample_stats *s, double threshold)
{
    return s->n >= STATS_RACE_MIN_RUNS && s->ci_lo > threshold;
}

double stats_quantile(const double *samples, int n, double q)
{
    if (n <= 0) return 0.0;
    double *s = malloc((size_t)n * sizeof *s);   /* freed below */
    if (!s) return 0.0;
    memcpy(s, samples, (size_t)n * sizeof *s);
    gsl_sort(s, 1, (size_t)n);
    double v = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, q < 0 ? 0 : q > 1 ? 1 : q);
    free(s);
    return v;
}

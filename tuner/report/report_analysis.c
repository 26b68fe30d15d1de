/* report_analysis.c: the report's analysis over one device's variants (see report_data.h):
 * parameter importance (the spread of the best time across a parameter's values, everything
 * else tuned), two-parameter slices, each group's ranking of parameters, histograms of all
 * variants' times relative to the winner, and the Pareto front of time and energy. Pure
 * functions of the loaded data. */
#include "report_data.h"
#include "core/pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rp_importance(rp_device *dev)
{
    for (int i = 0; i < dev->n_problems; i++) {
        rp_problem *p = &dev->problems[i];
        int np = p->n_params ? p->n_params : 1;
        p->spread = calloc((size_t)np, sizeof *p->spread);
        p->best_by_value = calloc((size_t)np, sizeof *p->best_by_value);
        if (!p->spread || !p->best_by_value) return -1;
        for (int k = 0; k < p->n_params; k++) {
            int nv = p->params[k].n_values;
            double *b = malloc((size_t)(nv ? nv : 1) * sizeof *b);
            if (!b) return -1;
            p->best_by_value[k] = b;
            for (int j = 0; j < nv; j++) b[j] = NAN;
            for (int v = 0; v < p->n_variants; v++) {
                int j = p->variants[v].value[k];
                if (j >= 0 && (isnan(b[j]) || p->variants[v].us < b[j])) b[j] = p->variants[v].us;
            }
            double lo = NAN, hi = NAN;
            int n = 0;
            for (int j = 0; j < nv; j++) {
                if (isnan(b[j])) continue;
                n++;
                if (isnan(lo) || b[j] < lo) lo = b[j];
                if (isnan(hi) || b[j] > hi) hi = b[j];
            }
            p->spread[k] = n >= 2 && lo > 0 ? hi / lo - 1 : NAN;
        }
    }
    return 0;
}

int rp_param_index(const rp_problem *p, const char *name)
{
    for (int k = 0; k < p->n_params; k++)
        if (strcmp(p->params[k].name, name) == 0) return k;
    return -1;
}

void rp_slice(const rp_problem *p, int a, int b, double *out)
{
    int na = p->params[a].n_values, nb = p->params[b].n_values;
    for (int i = 0; i < na * nb; i++) out[i] = NAN;
    double best = p->n_variants ? p->variants[0].us : NAN;
    /* variants are fastest first: the first one seen in a cell is its best */
    for (int v = 0; v < p->n_variants; v++) {
        int i = p->variants[v].value[a], j = p->variants[v].value[b];
        if (i < 0 || j < 0 || !isnan(out[i * nb + j])) continue;
        out[i * nb + j] = p->variants[v].us / best;
    }
}

int rp_most_important(const rp_problem *p)
{
    int best = -1;
    for (int k = 0; k < p->n_params; k++) {
        if (isnan(p->spread[k])) continue;
        if (best < 0 || p->spread[k] > p->spread[best]) best = k;   /* params sorted by name */
    }
    return best;
}

typedef struct ranked { const char *name; double sum; } ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->sum != y->sum) return x->sum > y->sum ? -1 : 1;
    return strcmp(x->name, y->name);
}

int rp_group_ranking(const rp_device *dev, const rp_group *g, const char **names, int max)
{
    ranked r[64];
    int n = 0;
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        for (int k = 0; k < p->n_params; k++) {
            if (p->params[k].n_values < 2) continue;
            int at = -1;
            for (int j = 0; j < n && at < 0; j++)
                if (strcmp(r[j].name, p->params[k].name) == 0) at = j;
            if (at < 0) {
                if (n == 64) continue;
                at = n++;
                r[at] = (ranked){p->params[k].name, 0};
            }
            if (!isnan(p->spread[k])) r[at].sum += p->spread[k];
        }
    }
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    int m = n < max ? n : max;
    for (int i = 0; i < m; i++) names[i] = r[i].name;
    return m;
}

void rp_histogram(const rp_problem *p, double hi_ratio, int n, int *bins)
{
    for (int i = 0; i < n; i++) bins[i] = 0;
    if (p->n_variants == 0 || n < 1) return;
    double best = p->variants[0].us, top = log(hi_ratio > 1 ? hi_ratio : 1.0001);
    for (int v = 0; v < p->n_variants; v++) {
        double x = log(p->variants[v].us / best) / top;
        int b = (int)floor(x * n);
        if (b < 0) b = 0;
        if (b >= n) b = n - 1;
        bins[b]++;
    }
}

int rp_pareto(const rp_problem *p, unsigned char *on_front)
{
    int n = p->n_variants, m = 0, count = -1;
    double *x = malloc((size_t)(n ? n : 1) * sizeof *x), *y = malloc((size_t)(n ? n : 1) * sizeof *y);
    unsigned char *front = malloc((size_t)(n ? n : 1));
    if (x && y && front) {
        for (int k = 0; k < n; k++)
            if (p->variants[k].joules > 0) {
                x[m] = p->variants[k].us;
                y[m] = p->variants[k].joules;
                m++;
            }
        count = pareto_front(x, y, m, front);
        if (count >= 0)
            for (int k = 0, j = 0; k < n; k++)
                on_front[k] = p->variants[k].joules > 0 ? front[j++] : 0;
    }
    free(x);
    free(y);
    free(front);
    return count;
}

/* strategy_bayes.c: Bayesian optimisation ("bayes"). A Gaussian process models the log time
 * of a config from its encoding (strategy_common.h); each proposal is the candidate of greatest
 * expected improvement over the best time so far.
 *
 * Model: Matern 5/2 kernel with one lengthscale per parameter (ARD), signal variance and a noise
 * ratio; targets standardised. Hyperparameters maximise the marginal likelihood: the signal
 * variance in closed form (profiled), one shared lengthscale and the noise ratio over a grid, then
 * a coordinate sweep over each parameter's lengthscale. Linear algebra is GSL's Cholesky.
 * Configs that ran and failed or cannot run are learned as slow as the slowest that ran, so the
 * model steers away from them; unrecorded ones are only never proposed again.
 *
 * The model sees at most BAYES_MAX_TRAIN observations (the fastest two thirds of them, then the
 * latest), which bounds the cost of a proposal on long runs.
 *
 * Start: BAYES_INIT_MIN..BAYES_INIT_MAX space-filling configs (each the farthest of a few random
 * draws from those chosen). Candidates: every unvisited allowed config when there are at most
 * BAYES_MAX_CANDIDATES, else that many random ones plus the neighbours of the fastest five. */
#include "strategy_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_vector.h>

#define BAYES_INIT_MIN 3
#define BAYES_INIT_MAX 8
#define BAYES_MAX_CANDIDATES 4096
#define BAYES_XI 0.01        /* expected-improvement margin, in standard deviations */
#define BAYES_MAX_TRAIN 64   /* observations the model is fitted to: the fastest, then the latest */
#define BAYES_REFIT_EVERY 3  /* past 30 observations, hyperparameters are chosen every 3rd time */

static const double lengthscales[] = { 0.08, 0.15, 0.25, 0.4, 0.6, 1.0, 1.6, 3.0 };
static const double noises[] = { 1e-4, 1e-3, 1e-2, 0.05, 0.2 };
#define N_LS (int)(sizeof lengthscales / sizeof lengthscales[0])
#define N_NOISE (int)(sizeof noises / sizeof noises[0])

typedef struct ranked {
    double y;                /* log time (failures: the slowest that ran) */
    size_t i;                /* observation index */
} ranked;

typedef struct bayes {
    strategy base;
    sc_search s;
    int n_init;
    /* model data, sized for the observations */
    size_t cap;
    double *x, *y;           /* n * dim encodings, n standardised targets */
    ranked *order;           /* observations the model may use, with their log time */
    unsigned char *taken;    /* per observation: in the training set */
    double *ls;              /* lengthscale per parameter */
    double noise;
    int tuned;               /* ls and noise were chosen at least once */
    int64_t proposals;       /* model-guided proposals so far */
    gsl_matrix *K;
    gsl_vector *alpha, *kstar;
    double *cand_x;
    int *cand_choice;
    int *nb;                 /* neighbour scratch */
} bayes;

/* Matern 5/2 correlation between two encodings under the per-parameter lengthscales. */
static double kernel(const bayes *m, const double *a, const double *b)
{
    const sc_search *s = &m->s;
    double r2 = 0;
    for (int k = 0; k < s->np; k++)
        for (int d = s->off[k]; d < s->off[k] + s->width[k]; d++) {
            double t = (a[d] - b[d]) / m->ls[k];
            r2 += t * t;
        }
    double r = sqrt(5.0 * r2);
    return (1.0 + r + r * r / 3.0) * exp(-r);
}

/* Factors K = C + noise I for n points and solves alpha = K^-1 y. Returns the profiled log
 * marginal likelihood, or -INFINITY when K is not positive definite. */
static double fit(bayes *m, size_t n)
{
    int dim = m->s.dim;
    gsl_matrix_view K = gsl_matrix_submatrix(m->K, 0, 0, n, n);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            double c = kernel(m, m->x + i * dim, m->x + j * dim);
            gsl_matrix_set(&K.matrix, i, j, c);
            gsl_matrix_set(&K.matrix, j, i, c);
        }
        gsl_matrix_set(&K.matrix, i, i, 1.0 + m->noise);
    }
    if (gsl_linalg_cholesky_decomp1(&K.matrix) != GSL_SUCCESS) return -INFINITY;
    gsl_vector_view alpha = gsl_vector_subvector(m->alpha, 0, n);
    gsl_vector_const_view y = gsl_vector_const_view_array(m->y, n);
    if (gsl_linalg_cholesky_solve(&K.matrix, &y.vector, &alpha.vector) != GSL_SUCCESS)
        return -INFINITY;
    double yKy = 0, logdet = 0;
    for (size_t i = 0; i < n; i++) {
        yKy += m->y[i] * gsl_vector_get(&alpha.vector, i);
        logdet += log(gsl_matrix_get(&K.matrix, i, i));
    }
    if (!(yKy > 0)) return -INFINITY;
    return -0.5 * (double)n * log(yKy / (double)n) - logdet;
}

/* Chooses the hyperparameters (grid, then a per-parameter sweep) and leaves the model fitted
 * with them. Returns 0, or -1 when no setting gives a positive definite K. */
static int fit_hyper(bayes *m, size_t n)
{
    int np = m->s.np;
    double best = -INFINITY, best_ls = 0.4, best_noise = 1e-2;
    for (int a = 0; a < N_LS; a++)
        for (int b = 0; b < N_NOISE; b++) {
            for (int k = 0; k < np; k++) m->ls[k] = lengthscales[a];
            m->noise = noises[b];
            double ll = fit(m, n);
            if (ll > best) { best = ll; best_ls = lengthscales[a]; best_noise = noises[b]; }
        }
    for (int k = 0; k < np; k++) m->ls[k] = best_ls;
    m->noise = best_noise;
    if (best == -INFINITY) return -1;
    for (int k = 0; k < np; k++) {
        if (!m->s.width[k]) continue;
        double keep = m->ls[k];
        for (int a = 0; a < N_LS; a++) {
            if (lengthscales[a] == keep) continue;
            m->ls[k] = lengthscales[a];
            double ll = fit(m, n);
            if (ll > best) { best = ll; keep = lengthscales[a]; }
        }
        m->ls[k] = keep;
    }
    return fit(m, n) == -INFINITY ? -1 : 0;
}

/* Sizes the buffers for n observations (the model itself for at most BAYES_MAX_TRAIN). */
static int grow(bayes *m, size_t n)
{
    if (n <= m->cap) return 0;
    size_t cap = m->cap ? m->cap : 64;
    while (cap < n) cap *= 2;
    size_t dim = (size_t)(m->s.dim ? m->s.dim : 1);
    double *x = realloc(m->x, cap * dim * sizeof *x);
    if (x) m->x = x;
    double *y = realloc(m->y, cap * sizeof *y);
    if (y) m->y = y;
    ranked *order = realloc(m->order, cap * sizeof *order);
    if (order) m->order = order;
    unsigned char *taken = realloc(m->taken, cap);
    if (taken) m->taken = taken;
    if (!x || !y || !order || !taken) return -1;
    if (m->K && m->cap >= BAYES_MAX_TRAIN) { m->cap = cap; return 0; }
    size_t model = cap < BAYES_MAX_TRAIN ? cap : BAYES_MAX_TRAIN;
    gsl_matrix_free(m->K);
    gsl_vector_free(m->alpha);
    gsl_vector_free(m->kstar);
    m->K = gsl_matrix_alloc(model, model);
    m->alpha = gsl_vector_alloc(model);
    m->kstar = gsl_vector_alloc(model);
    if (!m->K || !m->alpha || !m->kstar) return -1;
    m->cap = cap;
    return 0;
}

/* Orders (target, observation) pairs fastest first, then by observation. */
static int by_target(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->y != y->y) return x->y < y->y ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Loads the observations the model is fitted to into x/y (standardised): every one that ran or
 * failed, or past BAYES_MAX_TRAIN the fastest two thirds of that many and then the latest.
 * Returns how many, and the standardised best time in *ybest; 0 when fewer than two ran ok. */
static size_t load_data(bayes *m, double *ybest)
{
    sc_search *s = &m->s;
    size_t n = 0, n_ok = 0, n_use = 0;
    double worst = -INFINITY, sum = 0, sum2 = 0;
    for (size_t i = 0; i < s->n_obs; i++)
        if (s->obs_status[i] == EVAL_OK) {
            double l = log(s->obs_us[i]);
            if (l > worst) worst = l;
            n_ok++;
        }
    if (n_ok < 2 || grow(m, s->n_obs) != 0) return 0;
    for (size_t i = 0; i < s->n_obs; i++) {
        eval_status st = s->obs_status[i];
        if (st != EVAL_OK && !sc_is_failure(st)) continue;
        m->order[n_use].y = st == EVAL_OK ? log(s->obs_us[i]) : worst;
        m->order[n_use++].i = i;
    }
    if (n_use > BAYES_MAX_TRAIN) {
        memset(m->taken, 0, s->n_obs);
        size_t fastest = BAYES_MAX_TRAIN * 2 / 3, kept;
        qsort(m->order, n_use, sizeof *m->order, by_target);
        for (size_t k = 0; k < fastest; k++) m->taken[m->order[k].i] = 1;
        /* the latest of the rest: walk back from the end of the history */
        for (size_t k = fastest; k < n_use; k++) m->taken[m->order[k].i] = 2;
        kept = fastest;
        for (size_t i = s->n_obs; i-- > 0 && kept < BAYES_MAX_TRAIN;)
            if (m->taken[i] == 2) { m->taken[i] = 1; kept++; }
        size_t w = 0;
        for (size_t k = 0; k < n_use; k++)
            if (m->taken[m->order[k].i] == 1) m->order[w++] = m->order[k];
        n_use = w;
    }
    for (size_t k = 0; k < n_use; k++) {
        size_t i = m->order[k].i;
        sc_encode(s, s->obs_choice + i * (size_t)s->np, m->x + n * (size_t)s->dim);
        m->y[n] = m->order[k].y;
        sum += m->y[n];
        sum2 += m->y[n] * m->y[n];
        n++;
    }
    double mean = sum / (double)n, var = sum2 / (double)n - mean * mean;
    double sd = var > 1e-18 ? sqrt(var) : 1.0;
    *ybest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        m->y[i] = (m->y[i] - mean) / sd;
        if (m->y[i] < *ybest) *ybest = m->y[i];
    }
    return n;
}

/* Fills the candidate list; returns its length. */
static size_t candidates(bayes *m)
{
    sc_search *s = &m->s;
    int np = s->np;
    size_t n = 0;
    if (s->enumerated && s->n_unvisited <= BAYES_MAX_CANDIDATES) {
        for (size_t u = 0; u < s->n_unvisited; u++) {
            memcpy(m->cand_choice + n * (size_t)np, s->allowed + s->unvisited[u] * (size_t)np,
                   (size_t)np * sizeof *m->cand_choice);
            n++;
        }
        return n;
    }
    /* neighbours of the fastest few, then random draws */
    int64_t top[5];
    int n_top = 0;
    for (size_t i = 0; i < s->n_obs; i++) {
        if (s->obs_status[i] != EVAL_OK) continue;
        int pos = n_top;
        while (pos > 0 && s->obs_us[top[pos - 1]] > s->obs_us[i]) pos--;
        if (pos >= 5) continue;
        int last = n_top < 5 ? n_top++ : 4;
        memmove(top + pos + 1, top + pos, (size_t)(last - pos) * sizeof *top);
        top[pos] = (int64_t)i;
    }
    for (int t = 0; t < n_top; t++) {
        int k = sc_neighbours(s, s->obs_choice + (size_t)top[t] * np, m->nb, 256);
        for (int j = 0; j < k && n < BAYES_MAX_CANDIDATES / 2; j++)
            if (sc_seen(s, m->nb + (size_t)j * np) < 0)
                memcpy(m->cand_choice + n++ * (size_t)np, m->nb + (size_t)j * np,
                       (size_t)np * sizeof *m->nb);
    }
    while (n < BAYES_MAX_CANDIDATES && sc_random_unvisited(s, m->cand_choice + n * (size_t)np)) n++;
    return n;
}

/* Space-filling start: the farthest (from what was observed) of a few random unvisited draws. */
static int spread(bayes *m, int *choice)
{
    sc_search *s = &m->s;
    int np = s->np;
    double best_d = -1;
    double *cx = m->cand_x, *ox = m->cand_x + (s->dim ? s->dim : 1);
    for (int t = 0; t < 20; t++) {
        if (!sc_random_unvisited(s, m->cand_choice)) return best_d >= 0;
        sc_encode(s, m->cand_choice, cx);
        double d = INFINITY;
        for (size_t i = 0; i < s->n_obs; i++) {
            sc_encode(s, s->obs_choice + i * (size_t)np, ox);
            double e = sc_dist2(s, cx, ox);
            if (e < d) d = e;
        }
        if (d > best_d) {
            best_d = d;
            memcpy(choice, m->cand_choice, (size_t)np * sizeof *choice);
        }
    }
    return 1;
}

static int bayes_propose(strategy *st, int *choice)
{
    bayes *m = (bayes *)st;
    sc_search *s = &m->s;
    int np = s->np, dim = s->dim;
    if (sc_exhausted(s)) return 0;
    double ybest;
    size_t n = (int64_t)s->n_obs < m->n_init ? 0 : load_data(m, &ybest);
    if (n == 0 || dim == 0) return spread(m, choice);
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    int full = !m->tuned || s->n_obs < 30 || m->proposals % BAYES_REFIT_EVERY == 0;
    int fitted = full || fit(m, n) == -INFINITY ? fit_hyper(m, n) : 0;
    gsl_set_error_handler(handler);
    m->tuned = 1;
    m->proposals++;
    if (fitted != 0) return spread(m, choice);
    size_t nc = candidates(m);
    if (nc == 0) return 0;
    gsl_matrix_view L = gsl_matrix_submatrix(m->K, 0, 0, n, n);
    gsl_vector_view kstar = gsl_vector_subvector(m->kstar, 0, n);
    double best_ei = -1, x[512];
    double *cx = dim <= 512 ? x : m->cand_x;
    size_t pick = 0;
    for (size_t c = 0; c < nc; c++) {
        const int *cc = m->cand_choice + c * (size_t)np;
        sc_encode(s, cc, cx);
        double mu = 0;
        for (size_t i = 0; i < n; i++) {
            double k = kernel(m, cx, m->x + i * (size_t)dim);
            gsl_vector_set(&kstar.vector, i, k);
            mu += k * gsl_vector_get(m->alpha, i);
        }
        /* var = 1 + noise - k* (L L^T)^-1 k*: solve L v = k* in place */
        gsl_blas_dtrsv(CblasLower, CblasNoTrans, CblasNonUnit, &L.matrix, &kstar.vector);
        double q = 0;
        for (size_t i = 0; i < n; i++) q += gsl_vector_get(&kstar.vector, i) * gsl_vector_get(&kstar.vector, i);
        double var = 1.0 - q;
        double sd = var > 1e-12 ? sqrt(var) : 1e-6;
        /* sigma^2 scales mean and sd alike in standardised units: compare in sd units */
        double imp = ybest - mu - BAYES_XI;
        double z = imp / sd;
        double ei = imp * gsl_cdf_ugaussian_P(z) + sd * gsl_ran_ugaussian_pdf(z);
        if (ei > best_ei) { best_ei = ei; pick = c; }
    }
    memcpy(choice, m->cand_choice + pick * (size_t)np, (size_t)np * sizeof *choice);
    return 1;
}

static void bayes_observe(strategy *st, const int *choice, eval_status status, double us)
{
    bayes *m = (bayes *)st;
    sc_record(&m->s, choice, status, us);
}

static void bayes_destroy(strategy *st)
{
    bayes *m = (bayes *)st;
    if (!m) return;
    sc_free(&m->s);
    free(m->x);
    free(m->y);
    free(m->order);
    free(m->taken);
    free(m->ls);
    gsl_matrix_free(m->K);
    gsl_vector_free(m->alpha);
    gsl_vector_free(m->kstar);
    free(m->cand_x);
    free(m->cand_choice);
    free(m->nb);
    free(m);
}

int bayes_init_size(int64_t budget)
{
    int64_t init = budget / 6;
    return init < BAYES_INIT_MIN ? BAYES_INIT_MIN : init > BAYES_INIT_MAX ? BAYES_INIT_MAX : (int)init;
}

static strategy *bayes_create(const space *sp, const space_binding *b, uint64_t seed,
                              int64_t budget, char *err, size_t len)
{
    bayes *m = calloc(1, sizeof *m);   /* freed by bayes_destroy */
    if (!m) { snprintf(err, len, "out of memory"); return NULL; }
    m->base.vt = &strategy_bayes_vt;
    if (sc_init(&m->s, sp, b, seed, 0xba7e5, err, len) != 0) { free(m); return NULL; }
    m->n_init = bayes_init_size(sc_budget(&m->s, budget));
    size_t np = (size_t)(sp->n_params ? sp->n_params : 1), dim = (size_t)(m->s.dim ? m->s.dim : 1);
    m->ls = malloc(np * sizeof *m->ls);
    m->cand_x = malloc(2 * dim * sizeof *m->cand_x);
    m->cand_choice = malloc(BAYES_MAX_CANDIDATES * np * sizeof *m->cand_choice);
    m->nb = malloc(256 * np * sizeof *m->nb);
    if (!m->ls || !m->cand_x || !m->cand_choice || !m->nb) {
        snprintf(err, len, "out of memory");
        bayes_destroy(&m->base);
        return NULL;
    }
    return &m->base;
}

const strategy_vtable strategy_bayes_vt = {
    "bayes", bayes_create, bayes_propose, bayes_observe, bayes_destroy, 0,
};

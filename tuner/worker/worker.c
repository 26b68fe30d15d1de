/* worker.c: the worker process (`tuner __worker ORDINAL`): opens its GPU, announces it, and serves
 * `copy` and `eval` requests (an evaluation, a playoff of a problem's closest configs, or an
 * energy window alone of a contender under an energy objective) from
 * the parent over stdin/stdout (protocol in protocol.h). It keeps
 * the prepared problem of the last request and reuses it while kernel, op, dtype, problem and seed
 * stay the same, so a sweep over configs prepares each problem once. A user kernel's request names
 * its space file, which the worker loads once (tuner/ops/user_kernel.c builds its family), and the compiled
 * variant the parent made, which the family loads before it is measured (tuner/ops/user_kernel.c).
 * A request that names a state file (a space with device settings) has the config's clocks and
 * power limit applied to the GPU first (measure/device_settings.c); they are put back when the
 * worker ends. */
#include "worker.h"
#include "protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "core/cuda_device.h"
#include "measure/measure.h"
#include "ops/ops.h"
#include "core/problem.h"
#include "space/space.h"
#include "ops/user_kernel.h"
#include "measure/device_settings.h"
#include <signal.h>

enum { EXIT_OK = 0, EXIT_NO_DEVICE = 2, EXIT_CONTEXT_LOST = 3, EXIT_IO = 4 };

/* The prepared problem: its key, the instance, or why it could not be prepared. */
typedef struct prepared {
    int valid;
    char *kernel, *op, *dtype, *problem_text;
    uint64_t seed;
    const op_family *family;
    problem problem;
    op_instance *inst;       /* NULL when prepare failed: error says why */
    char error[1024];
} prepared;

static void prepared_clear(prepared *p)
{
    if (p->inst) p->family->release(p->inst);
    if (p->valid) problem_clear(&p->problem);
    free(p->kernel);
    free(p->op);
    free(p->dtype);
    free(p->problem_text);
    memset(p, 0, sizeof *p);
}

/* The user kernel's space the last request named, loaded once. */
typedef struct user_space {
    char *path;
    space *sp;
    const device_info *dev;
} user_space;

static void user_space_clear(user_space *u)
{
    user_space_free(u->sp);
    free(u->path);
    u->sp = NULL;
    u->path = NULL;
}

static int prepared_matches(const prepared *p, const wp_eval *r)
{
    return p->valid && strcmp(p->kernel, r->kernel) == 0 && strcmp(p->op, r->op) == 0 &&
           strcmp(p->dtype, r->dtype) == 0 && strcmp(p->problem_text, r->problem) == 0 &&
           p->seed == r->seed;
}

/* Writes the whole line to stdout. 0 or -1. */
static int send_line(const wp_buf *b)
{
    if (b->failed) return -1;
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = write(STDOUT_FILENO, b->s + off, b->len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        off += (size_t)w;
    }
    return 0;
}

static int send_error(wp_buf *b, const char *message)
{
    wp_begin(b, "error");
    wp_add(b, "message", message);
    if (wp_end(b)) return -1;
    return send_line(b);
}

/* Makes *p the prepared problem for r (releasing the previous one first). -1 with err when the
 * request itself is wrong (unknown family, op, dtype or problem text); a problem that cannot be
 * prepared on this device is remembered in p->error with p->inst NULL and returns 0. *setup_ms:
 * the family's prepare call's time when this request made it, else 0. */
static int prepare_for(prepared *p, user_space *us, const wp_eval *r, double *setup_ms, char *err,
                       size_t len)
{
    *setup_ms = 0;
    if (r->space && (!us->path || strcmp(us->path, r->space) != 0)) {
        prepared_clear(p);   /* its family belongs to the space about to go */
        user_space_clear(us);
        if (!(us->sp = user_space_load(r->space, us->dev, err, len))) return -1;
        if (!us->sp->user || strcmp(us->sp->kernel, r->kernel) != 0) {
            snprintf(err, len, "worker: %s is not the user kernel '%s'", r->space, r->kernel);
            user_space_clear(us);
            return -1;
        }
        if (!(us->path = strdup(r->space))) {
            user_space_clear(us);
            snprintf(err, len, "worker: out of host memory");
            return -1;
        }
    }
    if (prepared_matches(p, r)) return 0;
    prepared_clear(p);
    const op_family *f = r->space ? us->sp->family : op_family_find(r->kernel);
    if (!f) { snprintf(err, len, "worker: unknown kernel family '%s'", r->kernel); return -1; }
    if (op_family_op_index(f, r->op) < 0 || op_family_dtype_index(f, r->dtype) < 0) {
        snprintf(err, len, "worker: %s has no op '%s' with dtype '%s'", r->kernel, r->op,
                 r->dtype);
        return -1;
    }
    if (problem_parse(&p->problem, r->problem)) {
        snprintf(err, len, "worker: malformed problem '%s'", r->problem);
        return -1;
    }
    p->valid = 1;
    p->family = f;
    p->seed = r->seed;
    p->kernel = strdup(r->kernel);
    p->op = strdup(r->op);
    p->dtype = strdup(r->dtype);
    p->problem_text = strdup(r->problem);
    if (!p->kernel || !p->op || !p->dtype || !p->problem_text) {
        prepared_clear(p);
        snprintf(err, len, "worker: out of host memory");
        return -1;
    }
    char why[sizeof p->error];
    why[0] = 0;
    const double t0 = measure_now_ms();
    if (f->prepare(f, r->op, r->dtype, &p->problem, r->seed, &p->inst, why, sizeof why)) {
        p->inst = NULL;
        snprintf(p->error, sizeof p->error, "prepare: %s", why);
    }
    *setup_ms = measure_now_ms() - t0;
    if (*setup_ms <= 0) *setup_ms = 1e-6;   /* made here: never reads as "reused" */
    return 0;
}

/* A playoff's binding of config i for a user kernel (measure_bind_fn). */
typedef struct playoff_binding {
    prepared *p;
    const wp_eval *r;
} playoff_binding;

static tk_status bind_playoff(void *ctx, int i, char *err, size_t len)
{
    playoff_binding *pb = ctx;
    return pb->p->family->bind_variant(pb->p->inst, pb->r->playoff[i], pb->r->playoff_module[i],
                                       pb->r->ref_module, pb->r->checks, err, len);
}

/* The GPU's settings (docs/energy.md, "Clocks and power limit"): opened at the first request
 * that names a state file, restored when the worker ends. */
static devset *settings;
static const device_info *settings_dev;

/* Makes the config's device settings the GPU's (a request with a state file). 0, or -1 with
 * res unsupported and the reason. */
static int apply_settings(const wp_eval *r, eval_result *res)
{
    if (!r->device_state) return 0;
    devset_values want;
    if (devset_from_config(r->config, &want) < 0) {
        res->status = EVAL_UNSUPPORTED;
        snprintf(res->error, sizeof res->error, "device settings of '%.900s' are not whole "
                 "numbers", r->config);
        return -1;
    }
    if (!settings && !(settings = devset_open(settings_dev->uuid, r->device_state))) {
        res->status = EVAL_UNSUPPORTED;
        snprintf(res->error, sizeof res->error, "out of host memory");
        return -1;
    }
    if (devset_apply(settings, &want, res->error, sizeof res->error) != 0) {
        res->status = EVAL_UNSUPPORTED;
        return -1;
    }
    return 0;
}

/* Serves one eval request. Returns 0 to go on, EXIT_CONTEXT_LOST after a context-losing fault,
 * EXIT_IO when the answer cannot be written. */
static int serve_eval(const wp_msg *m, prepared *p, user_space *us, measure_ctx *mc, wp_buf *b)
{
    char err[1024];
    wp_eval r;
    double setup_ms = 0;
    if (wp_parse_eval(m, &r, err, sizeof err) ||
        prepare_for(p, us, &r, &setup_ms, err, sizeof err))
        return send_error(b, err) ? EXIT_IO : 0;

    eval_result res;
    memset(&res, 0, sizeof res);
    int lost = 0;
    if (!p->inst) {
        /* The device cannot hold or build this problem: every config of it is unsupported. */
        res.status = EVAL_UNSUPPORTED;
        snprintf(res.error, sizeof res.error, "%s", p->error);
    } else {
        /* A user kernel's variant: load it (and compute the reference the first time). A
         * reference that cannot be computed stops the run; a variant that cannot launch is
         * recorded without running. */
        tk_status bound = TK_OK;
        if (p->family->bind_variant && r.n_playoff == 0) {
            bound = p->family->bind_variant(p->inst, r.config, r.module, r.ref_module, r.checks,
                                            res.error, sizeof res.error);
            if (bound == TK_ERR_CUDA) {
                snprintf(err, sizeof err, "%s", res.error);
                int lost_now = cudaDeviceSynchronize() != cudaSuccess;
                if (send_error(b, err)) return EXIT_IO;
                return lost_now ? EXIT_CONTEXT_LOST : 0;
            }
        }
        wp_begin(b, "prepared");
        if (wp_end(b) || send_line(b)) return EXIT_IO;
        measure_profile_mark(MP_PREPARE);
        if (bound != TK_OK) {
            res.status = bound == TK_ERR_UNSUPPORTED_CONFIG ? EVAL_UNSUPPORTED : EVAL_LAUNCH_ERROR;
        } else if (apply_settings(&r, &res) != 0) {
            /* the GPU refused the config's clocks or power limit: recorded unsupported */
        } else {
            if (p->family->set_tolerance_scale)
                p->family->set_tolerance_scale(p->inst, r.tolerance_scale);
            if (r.energy_us > 0) {
                measure_energy_window(mc, p->family, p->inst, r.config, &r.measure, r.energy_us,
                                      &res, &lost);
            } else if (r.n_playoff > 0) {
                playoff_binding pb = { p, &r };
                measure_playoff(mc, p->family, p->inst, r.n_playoff, r.playoff,
                                p->family->bind_variant ? bind_playoff : NULL, &pb, &r.measure,
                                &res, &lost);
            } else {
                measure_variant(mc, p->family, p->inst, r.config, &r.measure, r.race_us,
                                r.validate, &res, &lost);
            }
        }
    }
    res.setup_ms = setup_ms;   /* after measuring, which starts from a cleared result */
    int rc = wp_format_result(b, &res);
    measure_profile_mark(MP_ANSWER);
    rc = rc || send_line(b) ? EXIT_IO : 0;
    measure_profile_mark(MP_SEND);
    eval_result_clear(&res);
    if (rc) return rc;
    return lost ? EXIT_CONTEXT_LOST : 0;
}

static int serve_copy(measure_ctx *mc, wp_buf *b)
{
    char err[512];
    double gbps = 0;
    if (measure_copy_gbps(mc, &gbps, err, sizeof err))
        return send_error(b, err) ? EXIT_IO : 0;
    wp_begin(b, "copy");
    wp_add_double(b, "gbps", gbps);
    return wp_end(b) || send_line(b) ? EXIT_IO : 0;
}

int worker_main(int ordinal)
{
    int rc = EXIT_OK;
    char err[1024];
    wp_buf b = { 0 };
    prepared prep;
    memset(&prep, 0, sizeof prep);
    user_space us = { NULL, NULL, NULL };
    measure_ctx *mc = NULL;
    char *line = NULL;
    size_t cap = 0;
    device_info dev;

    if (cuda_device_open(ordinal, &dev, err, sizeof err) ||
        measure_ctx_create(&dev, &mc, err, sizeof err)) {
        send_error(&b, err);
        rc = EXIT_NO_DEVICE;
        goto done;
    }
    if (wp_format_device(&b, &dev) || send_line(&b)) { rc = EXIT_IO; goto done; }
    us.dev = &dev;
    settings_dev = &dev;
    /* Ctrl-C reaches the whole process group: the parent restores the GPU's settings from the
     * state file and ends; this worker then ends with it (PR_SET_PDEATHSIG) */
    signal(SIGINT, SIG_IGN);

    ssize_t n;
    measure_profile_mark(MP_ANSWER);   /* starts the profile's clock */
    while ((n = getline(&line, &cap, stdin)) > 0) {
        measure_profile_mark(MP_WAIT);
        wp_msg m;
        if (wp_parse(line, (size_t)n, &m, err, sizeof err)) {
            wp_msg_clear(&m);
            if (send_error(&b, err)) { rc = EXIT_IO; goto done; }
            continue;
        }
        if (strcmp(m.type, "quit") == 0) {
            wp_msg_clear(&m);
            break;
        } else if (strcmp(m.type, "eval") == 0) {
            rc = serve_eval(&m, &prep, &us, mc, &b);
        } else if (strcmp(m.type, "copy") == 0) {
            rc = serve_copy(mc, &b);
        } else {
            snprintf(err, sizeof err, "worker: unknown request '%s'", m.type);
            rc = send_error(&b, err) ? EXIT_IO : 0;
        }
        wp_msg_clear(&m);
        measure_profile_mark(MP_ANSWER);
        if (rc) goto done;
    }
done:
    measure_profile_write(ordinal);
    devset_close(settings);   /* the GPU's settings as they were, the state file removed */
    settings = NULL;
    /* After a lost context nothing on the device can be released; the process exit cleans up. */
    if (rc != EXIT_CONTEXT_LOST) {
        prepared_clear(&prep);
        user_space_clear(&us);
        measure_ctx_free(mc);
    }
    free(line);
    wp_buf_free(&b);
    return rc;
}

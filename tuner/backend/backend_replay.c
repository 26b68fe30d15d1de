/* backend_replay.c: the replay backend. Answers evaluations from recorded measurements (a dump
 * under db/results/ or a database file) as if on the recorded device, so strategies, resume, the
 * header and reports run for real without a GPU. A config that was never recorded is answered
 * EVAL_UNRECORDED (never invented, never stored). An answer carries what was recorded of the
 * config: its samples, statistics and energy measurement (schema version 7; none when it was
 * measured without, or when the request asks for no energy, as the worker measures none then),
 * so a run over a replayed dump stores the energy again and a search by energy or edp ranks the
 * recorded readings. An energy window alone (eval_request.energy_us, the contenders of an energy
 * search) is answered with the recorded energy and no samples.
 *
 * A playoff is answered with each contender's recorded runs (their medians are the recorded
 * ones, so replay's winners are the recording's).
 *
 * "replay:PATH" needs PATH to hold one GPU model (device_same_model); its cards replay as that
 * model: each problem is answered from the card that recorded the most evaluations of it (ties:
 * the smaller uuid), and the device the run sees is the card with the most evaluations overall
 * (same tie rule), whose newest run gives the copy bandwidth. "replay:PATH#NAME" picks a model
 * of several by name, "replay:PATH#UUID" one card alone. */
#include "backend.h"
#include "db/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct replay {
    backend base;
    db *source;
    char path[512];
    char want[256];          /* "#..." selector, or empty */
    device_info dev;         /* the device the run sees */
    int n_cards;             /* cards of dev's model answering (1: dev alone) */
    char problem[1024];      /* the problem last looked up ("op dtype shape") ... */
    char card[64];           /* ... and the card that answers it */
} replay;

/* The recorded devices the selector matches (all without one). */
typedef struct device_list {
    const char *want;
    device_info *dev;
    int n, cap;
    int out_of_memory;
} device_list;

static int collect_device(void *ctx, int64_t id, const device_info *dev)
{
    (void)id;
    device_list *l = ctx;
    if (l->want[0] && strcmp(l->want, dev->uuid) != 0 && strcmp(l->want, dev->name) != 0)
        return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        device_info *p = realloc(l->dev, (size_t)cap * sizeof *p);
        if (!p) {
            l->out_of_memory = 1;
            return 1;
        }
        l->dev = p;
        l->cap = cap;
    }
    l->dev[l->n++] = *dev;
    return 0;
}

/* "NAME (cc X.Y, N SMs): K cards; ..." for the models in l, into buf. Returns the model count. */
static int describe_models(const device_list *l, char *buf, size_t len)
{
    int models = 0;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < l->n; i++) {
        int first = 1, cards = 0;
        for (int j = 0; j < l->n; j++) {
            if (!device_same_model(&l->dev[i], &l->dev[j])) continue;
            if (j < i) first = 0;
            cards++;
        }
        if (!first) continue;
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s'%s' (cc %d.%d, %d SMs, %d card%s)",
                                   models ? ", " : "", l->dev[i].name, l->dev[i].cc_major,
                                   l->dev[i].cc_minor, l->dev[i].sm_count, cards,
                                   cards == 1 ? "" : "s");
        models++;
    }
    return models;
}

static int replay_device(backend *b, device_info *out, char *err, size_t len)
{
    (void)err; (void)len;
    *out = ((replay *)b)->dev;
    return 0;
}

static double replay_copy_gbps(backend *b)
{
    replay *r = (replay *)b;
    return db_device_copy_gbps(r->source, r->dev.uuid);
}

static int replay_evaluate(backend *b, const eval_request *req, eval_result *out, char *err,
                           size_t len)
{
    replay *r = (replay *)b;
    char op[256];
    snprintf(op, sizeof op, "%s.%s", req->kernel, req->op);
    memset(out, 0, sizeof *out);
    const char *uuid = r->dev.uuid;
    if (r->n_cards > 1) {
        /* the card that recorded this problem (looked up once per problem: the run loop takes
         * the problems one after another) */
        char key[sizeof r->problem];
        int key_len = snprintf(key, sizeof key, "%s %s %s", op, req->dtype, req->problem->text);
        if (key_len < 0 || (size_t)key_len >= sizeof key || strcmp(key, r->problem) != 0) {
            int got = db_model_card(r->source, &r->dev, op, req->dtype, req->problem->text,
                                    r->card, sizeof r->card);
            if (got < 0) {
                r->problem[0] = 0;
                snprintf(err, len, "replay %s: cannot find the card that recorded %s", r->path,
                         key);
                return -1;
            }
            if (got == 0) snprintf(r->card, sizeof r->card, "%s", r->dev.uuid);
            /* a key too long to keep whole is not kept: the next call asks again */
            snprintf(r->problem, sizeof r->problem, "%s",
                     key_len >= 0 && (size_t)key_len < sizeof key ? key : "");
        }
        uuid = r->card;
    }
    if (req->n_playoff >= 2) {
        /* a playoff is answered with each config's recorded runs: what was measured of it */
        for (int i = 0; i < req->n_playoff && i < EVAL_PLAYOFF_MAX; i++) {
            eval_result one;
            int got = db_find_evaluation(r->source, uuid, op, req->dtype, req->problem->text,
                                         req->playoff[i], &one);
            if (got < 0) {
                eval_result_clear(out);
                snprintf(err, len, "replay %s: cannot read the recorded evaluation", r->path);
                return -1;
            }
            if (got == 0 || one.status != EVAL_OK || one.n_samples == 0) {
                eval_result_clear(&one);
                eval_result_clear(out);
                out->status = EVAL_UNRECORDED;
                snprintf(out->error, sizeof out->error, "playoff: %s has no ok runs in %s",
                         req->playoff[i], r->path);
                return 0;
            }
            out->playoff_samples[i] = one.samples;
            out->playoff_n[i] = one.n_samples;
            one.samples = NULL;
            eval_result_clear(&one);
        }
        out->status = EVAL_OK;
        out->n_playoff = req->n_playoff;
        return 0;
    }
    int found = db_find_evaluation(r->source, uuid, op, req->dtype, req->problem->text,
                                   req->config, out);
    if (found < 0) {
        snprintf(err, len, "replay %s: cannot read the recorded evaluation", r->path);
        return -1;
    }
    if (found == 0) {
        out->status = EVAL_UNRECORDED;
        snprintf(out->error, sizeof out->error, "not recorded in %s", r->path);
        return 0;
    }
    if (req->energy_us > 0) {
        /* an energy window alone: the recorded energy, nothing else */
        eval_energy en = out->status == EVAL_OK ? out->energy : (eval_energy){ .throttle = -1 };
        eval_result_clear(out);
        memset(out, 0, sizeof *out);
        out->status = EVAL_OK;
        out->energy_only = 1;
        out->energy = en;
    } else if (!(req->measure.energy_s > 0)) {
        /* the worker measures energy only when asked */
        memset(&out->energy, 0, sizeof out->energy);
        out->energy.throttle = -1;
    }
    return 0;
}

static void replay_close(backend *b)
{
    replay *r = (replay *)b;
    if (!r) return;
    db_close(r->source);
    free(r);
}

static const backend_vtable replay_vt = {
    replay_device, replay_copy_gbps, replay_evaluate, NULL, replay_close,
};

backend *backend_replay_open(const char *spec, char *err, size_t len)
{
    replay *r = calloc(1, sizeof *r);   /* freed by replay_close */
    if (!r) { snprintf(err, len, "out of memory"); return NULL; }
    r->base.vt = &replay_vt;
    snprintf(r->base.spec, sizeof r->base.spec, "replay:%s", spec);
    snprintf(r->path, sizeof r->path, "%s", spec);
    char *hash = strchr(r->path, '#');
    if (hash) {
        snprintf(r->want, sizeof r->want, "%s", hash + 1);
        *hash = 0;
    }
    char dberr[512], models[512];
    device_list l = { r->want, NULL, 0, 0, 0 };
    if (db_open_readonly(r->path, &r->source, dberr, sizeof dberr) != 0) {
        snprintf(err, len, "replay: %s", dberr);
        goto fail;
    }
    if (db_each_device(r->source, collect_device, &l) != 0 || l.out_of_memory) {
        snprintf(err, len, "replay %s: cannot read the recorded devices", r->path);
        goto fail;
    }
    if (l.n == 0) {
        snprintf(err, len, "replay %s: %s", r->path,
                 r->want[0] ? "no recorded device matches the name or uuid after '#'"
                            : "holds no recorded device");
        goto fail;
    }
    int n_models = describe_models(&l, models, sizeof models);
    if (n_models > 1) {
        snprintf(err, len, "replay %s: holds %d GPU models (%s); pick one with replay:%s#NAME "
                 "or a card with replay:%s#UUID", r->path, n_models, models, r->path, r->path);
        goto fail;
    }
    r->dev = l.dev[0];
    r->n_cards = l.n;
    if (l.n > 1) {
        /* the card the run sees: the one with the most evaluations */
        char uuid[64];
        if (db_model_card(r->source, &l.dev[0], NULL, NULL, NULL, uuid, sizeof uuid) < 0) {
            snprintf(err, len, "replay %s: cannot count the cards' evaluations", r->path);
            goto fail;
        }
        for (int i = 0; i < l.n; i++)
            if (strcmp(l.dev[i].uuid, uuid) == 0) r->dev = l.dev[i];
    }
    free(l.dev);
    return &r->base;
fail:
    free(l.dev);
    replay_close(&r->base);
    return NULL;
}

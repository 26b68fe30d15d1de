/* backend_replay.c: the replay backend. Answers evaluations from recorded measurements (a dump
 * under db/results/ or a database file) as if on the recorded device, so strategies, resume, the
 * header and reports run for real without a GPU. A config that was never recorded is answered
 * EVAL_UNRECORDED (never invented, never stored). "replay:PATH" needs PATH to hold one device;
 * "replay:PATH#UUID-or-name" picks one of several. */
#include "backend.h"
#include "db/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct replay {
    backend base;
    db *source;
    char path[512];
    device_info dev;
    int n_devices;
    char want[256];          /* "#..." selector, or empty */
} replay;

static int pick_device(void *ctx, int64_t id, const device_info *dev)
{
    (void)id;
    replay *r = ctx;
    if (r->want[0] && strcmp(r->want, dev->uuid) != 0 && strcmp(r->want, dev->name) != 0)
        return 0;
    if (r->n_devices++ == 0) r->dev = *dev;
    return 0;
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
    int found = db_find_evaluation(r->source, r->dev.uuid, op, req->dtype, req->problem->text,
                                   req->config, out);
    if (found < 0) {
        snprintf(err, len, "replay %s: cannot read the recorded evaluation", r->path);
        return -1;
    }
    if (found == 0) {
        out->status = EVAL_UNRECORDED;
        snprintf(out->error, sizeof out->error, "not recorded in %s", r->path);
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
    replay_device, replay_copy_gbps, replay_evaluate, replay_close,
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
    char dberr[512];
    if (db_open_readonly(r->path, &r->source, dberr, sizeof dberr) != 0) {
        snprintf(err, len, "replay: %s", dberr);
        goto fail;
    }
    db_each_device(r->source, pick_device, r);
    if (r->n_devices == 0) {
        snprintf(err, len, "replay %s: %s", r->path,
                 r->want[0] ? "no recorded device matches the name or uuid after '#'"
                            : "holds no recorded device");
        goto fail;
    }
    if (r->n_devices > 1) {
        snprintf(err, len, "replay %s: holds %d devices; pick one with replay:%s#UUID", r->path,
                 r->n_devices, r->path);
        goto fail;
    }
    return &r->base;
fail:
    replay_close(&r->base);
    return NULL;
}

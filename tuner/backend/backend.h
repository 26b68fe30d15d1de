/* backend.h: what evaluates one config on one problem. Two backends implement it: "cuda" (worker
 * processes that own the GPU, backend_cuda.c) and "replay:PATH" (answers from a recorded
 * dump or database, backend_replay.c). The run loop (tuner/run/run.c) sees only this. The
 * request and result types are core/eval.h's. */
#pragma once
#include <stddef.h>
#include "core/device.h"
#include "core/eval.h"

typedef struct backend backend;
typedef struct backend_vtable {
    /* The device this backend evaluates on. */
    int (*device)(backend *b, device_info *out, char *err, size_t len);
    /* Copy bandwidth (GB/s, read + written) measured for this run; <= 0 if unknown. */
    double (*copy_gbps)(backend *b);
    /* Evaluates; returns 0 when *out holds a result (of any status), -1 when the backend itself
     * failed (err says why) and the run must stop. */
    int (*evaluate)(backend *b, const eval_request *req, eval_result *out, char *err, size_t len);
    /* Optional (NULL: evaluate does it all): starts evaluating req, so that the caller can do
     * other work (the run loop stores the previous result) before evaluate(req), with the same
     * req, collects the result. req must stay valid until then. 0, or -1 as evaluate. */
    int (*submit)(backend *b, const eval_request *req, char *err, size_t len);
    void (*close)(backend *b);
} backend_vtable;

struct backend {
    const backend_vtable *vt;
    char spec[512];          /* as given: "cuda", "cuda:1", "replay:db/results/x.sql.xz" */
    int needs_modules;       /* 1: runs user kernels from compiled modules (eval_request.module);
                                0: answers without running anything (replay) */
};

/* Opens the backend named by spec. Returns NULL with err filled. The caller closes it. */
backend *backend_open(const char *spec, char *err, size_t len);
backend *backend_cuda_open(int device_ordinal, const char *self_exe, char *err, size_t len);
backend *backend_replay_open(const char *path, char *err, size_t len);

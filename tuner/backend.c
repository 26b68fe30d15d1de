/* backend.c: what both backends share: status names, eval_result ownership, and backend_open,
 * which turns a --backend spec ("cuda", "cuda:1", "replay:PATH") into a backend. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[EVAL_STATUS_COUNT] = {
    "ok", "invalid", "launch_error", "fault", "timeout", "unsupported", "skipped", "unrecorded",
};

const char *eval_status_name(eval_status s)
{
    return (unsigned)s < EVAL_STATUS_COUNT ? status_names[s] : "?";
}

int eval_status_parse(const char *name)
{
    for (int i = 0; i < EVAL_STATUS_COUNT; i++)
        if (name && strcmp(name, status_names[i]) == 0) return i;
    return -1;
}

void eval_result_clear(eval_result *r)
{
    free(r->samples);
    memset(r, 0, sizeof *r);
}

backend *backend_open(const char *spec, char *err, size_t len)
{
    if (!spec || strcmp(spec, "cuda") == 0) return backend_cuda_open(0, NULL, err, len);
    if (strncmp(spec, "cuda:", 5) == 0) {
        char *end;
        long ord = strtol(spec + 5, &end, 10);
        if (*end || end == spec + 5 || ord < 0 || ord > 255) {
            snprintf(err, len, "--backend %s: expected cuda:ORDINAL (0..255)", spec);
            return NULL;
        }
        return backend_cuda_open((int)ord, NULL, err, len);
    }
    if (strncmp(spec, "replay:", 7) == 0) {
        if (!spec[7]) {
            snprintf(err, len, "--backend replay: needs a dump or database path (replay:PATH)");
            return NULL;
        }
        return backend_replay_open(spec + 7, err, len);
    }
    snprintf(err, len, "--backend %s: unknown backend (cuda, cuda:N, replay:PATH)", spec);
    return NULL;
}

/* backend.c: backend_open, which turns a --backend spec ("cuda", "cuda:1", "replay:PATH") into a
 * backend. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* eval.c: the evaluation statuses' names and the ownership of a result's samples (core/eval.h). */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

static const char *const status_names[EVAL_STATUS_COUNT] = {
    "ok",          "invalid", "launch_error",  "fault",     "timeout",
    "unsupported", "skipped", "compile_error", "unrecorded",
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
    for (int i = 0; i < EVAL_PLAYOFF_MAX; i++) free(r->playoff_samples[i]);
    memset(r, 0, sizeof *r);
}

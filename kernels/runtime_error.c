/* runtime_error.c: the run-time API's errors (tunekit_runtime.h): each call that fails says why
 * in the calling thread's message, which tk_kernel_error returns; nothing aborts or prints. */
#include "runtime_internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

const char *tk_kernel_error(void)
{
    return last_error;
}

tk_status rt_fail(tk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

void rt_clear_error(void)
{
    last_error[0] = 0;
}

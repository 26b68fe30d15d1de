/* nvrtc_options.c: nvcc's options, as a team's build passes them, in the form NVRTC takes
 * (nvrtc_options.h). NVRTC takes most device options under the same names (-D, -I, -lineinfo,
 * -G, --use_fast_math, --maxrregcount, -Xptxas, --ftz, --fmad, -diag-suppress, ...), in either
 * the joined or the two-word form. What it refuses (measured, NVRTC 13.0) falls in three kinds:
 *   - options about host code or the nvcc driver, which mean nothing to a device-only
 *     compilation: -O0..-O3 and -g (host code; device code is optimised unless -G), -Xcompiler,
 *     -ccbin, -Xlinker, -l and -L (a Makefile's link flags), -m64, -x cu, --default-stream,
 *     -v, --keep, --threads, -res-usage (the tuner records registers and spills itself), and
 *     nvcc's warning switches -W... and --W... (NVRTC has -w and --diag-suppress). These are
 *     left out. -Ofc=max (fast compile) NVRTC takes.
 *   - --expt-relaxed-constexpr: under nvcc it lets device code call constexpr functions that
 *     carry no __device__. NVRTC refuses every function without an execution space unless
 *     -default-device, which compiles them as device functions: what the flag allows, and what
 *     host code guarded by #ifndef __CUDACC_RTC__ never reaches. It becomes -default-device.
 *   - --extended-lambda: NVRTC has no __device__ lambdas. Left out; a kernel that writes one is
 *     refused by NVRTC ("requires --extended-lambda"), and the hint names nvcc.
 * -std c++17 (two words) becomes -std=c++17. Anything else goes through unchanged, and if NVRTC
 * does not know it, its "unrecognized option" gets the hint of nvrtc_options_hint. */
#include "nvrtc_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/sha256.h"

enum { KEEP, KEEP_WITH_VALUE, DROP, DROP_WITH_VALUE, RELAXED, JOIN, DROP_WITH_WORD };

typedef struct {
    const char *name;   /* the option; "-W" and "-O" match every option they begin */
    int what;           /* KEEP_WITH_VALUE: it and, in the two-word form, its value as they are
                           (the value is not an option: "-Xptxas -v"); DROP: leave it out;
                           DROP_WITH_VALUE: it and its value; DROP_WITH_WORD: the same, where the
                           value is a word, never an option (-Werror all-warnings: a lone -Werror
                           leaves the next option alone); RELAXED: -default-device; JOIN:
                           name=value */
} rule;

static const rule rules[] = {
    /* the two-word forms NVRTC takes as nvcc does */
    {"-D", KEEP_WITH_VALUE},
    {"--define-macro", KEEP_WITH_VALUE},
    {"-U", KEEP_WITH_VALUE},
    {"--undefine-macro", KEEP_WITH_VALUE},
    {"-I", KEEP_WITH_VALUE},
    {"--include-path", KEEP_WITH_VALUE},
    {"-include", KEEP_WITH_VALUE},
    {"--pre-include", KEEP_WITH_VALUE},
    {"-Xptxas", KEEP_WITH_VALUE},
    {"--ptxas-options", KEEP_WITH_VALUE},
    {"-maxrregcount", KEEP_WITH_VALUE},
    {"--maxrregcount", KEEP_WITH_VALUE},
    {"-diag-suppress", KEEP_WITH_VALUE},
    {"--diag-suppress", KEEP_WITH_VALUE},
    {"-diag-error", KEEP_WITH_VALUE},
    {"--diag-error", KEEP_WITH_VALUE},
    {"-diag-warn", KEEP_WITH_VALUE},
    {"--diag-warn", KEEP_WITH_VALUE},
    /* what NVRTC refuses */
    {"-O", DROP},
    {"--optimize", DROP_WITH_VALUE},
    {"-g", DROP},
    {"--debug", DROP},
    {"-Werror", DROP_WITH_WORD},      /* before "-W": its two-word form carries a value */
    {"--Werror", DROP_WITH_WORD},
    {"-W", DROP},
    {"--W", DROP},
    {"-Xcompiler", DROP_WITH_VALUE},
    {"--compiler-options", DROP_WITH_VALUE},
    {"-ccbin", DROP_WITH_VALUE},
    {"--compiler-bindir", DROP_WITH_VALUE},
    {"-Xlinker", DROP_WITH_VALUE},
    {"--linker-options", DROP_WITH_VALUE},
    {"-l", DROP_WITH_VALUE},          /* -lcublas, -l cublas; not -lineinfo (see find) */
    {"--library", DROP_WITH_VALUE},
    {"-L", DROP_WITH_VALUE},
    {"--library-path", DROP_WITH_VALUE},
    {"-x", DROP_WITH_VALUE},
    {"--x", DROP_WITH_VALUE},
    {"--default-stream", DROP_WITH_VALUE},
    {"-default-stream", DROP_WITH_VALUE},
    {"-t", DROP_WITH_VALUE},
    {"--threads", DROP_WITH_VALUE},
    {"--keep-dir", DROP_WITH_VALUE},
    {"-keep-dir", DROP_WITH_VALUE},
    {"-m64", DROP},
    {"--machine", DROP_WITH_VALUE},
    {"-v", DROP},
    {"--verbose", DROP},
    {"--keep", DROP},
    {"-keep", DROP},
    {"-res-usage", DROP},
    {"--resource-usage", DROP},
    {"-src-in-ptx", DROP},
    {"--source-in-ptx", DROP},
    {"--extended-lambda", DROP},
    {"-extended-lambda", DROP},
    {"--expt-extended-lambda", DROP},
    {"-expt-extended-lambda", DROP},
    {"--expt-relaxed-constexpr", RELAXED},
    {"-expt-relaxed-constexpr", RELAXED},
    {"-std", JOIN},
    {"--std", JOIN},
};
#define N_RULES ((int)(sizeof rules / sizeof rules[0]))

/* The first rule for option o, and whether it carries its value joined ("-t=4", "-Xcompiler=-fPIC",
 * "-O3"); NULL when no rule applies. */
static const rule *find(const char *o, int *joined)
{
    for (int i = 0; i < N_RULES; i++) {
        size_t len = strlen(rules[i].name);
        if (strncmp(o, rules[i].name, len) != 0)
            continue;
        if (o[len] == 0) {
            *joined = 0;
            return &rules[i];
        }
        /* a prefix rule (-O3 but not -Ofc=max, which NVRTC takes; -Wall, --Wreorder; -lcublas
         * and -L/opt/lib but not -lineinfo), or name=value */
        const char *n = rules[i].name;
        int prefix = strcmp(n, "-O") == 0 ? o[len] >= '0' && o[len] <= '9' && o[len + 1] == 0
                     : strcmp(n, "-l") == 0 ? strcmp(o, "-lineinfo") != 0
                     : strcmp(n, "-W") == 0 || strcmp(n, "--W") == 0 || strcmp(n, "-L") == 0;
        if (prefix || o[len] == '=') {
            *joined = 1;
            return &rules[i];
        }
    }
    return NULL;
}

int nvrtc_option_takes_value(const char *o)
{
    int joined = 0;
    const rule *r = find(o, &joined);
    return r && !joined && (r->what == KEEP_WITH_VALUE || r->what == DROP_WITH_VALUE ||
                            r->what == DROP_WITH_WORD ||
                            r->what == JOIN);
}

void nvrtc_options_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

int nvrtc_options_from_nvcc(const char *const *in, int n, char ***out, int *n_out)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    int k = 0, relaxed = 0;
    *out = NULL;
    *n_out = 0;
    if (!v)
        return -1;
    for (int i = 0; i < n; i++) {
        int joined = 0;
        const rule *r = find(in[i], &joined);
        const char *next = i + 1 < n ? in[i + 1] : NULL;
        char *s = NULL;
        switch (r ? r->what : KEEP) {
        case KEEP:
            s = strdup(in[i]);
            break;
        case KEEP_WITH_VALUE:
            if (!(s = strdup(in[i])))
                break;
            if (!joined && next) {
                v[k++] = s;
                s = strdup(next);
                i++;
            }
            break;
        case DROP:
            continue;
        case DROP_WITH_VALUE:
        case DROP_WITH_WORD:
            if (!joined && next && !(r->what == DROP_WITH_WORD && next[0] == '-'))
                i++;
            continue;
        case RELAXED:
            if (relaxed++)
                continue;
            s = strdup("-default-device");
            break;
        case JOIN:
            if (joined || !next) {
                s = strdup(in[i]);
            } else {
                size_t len = strlen(in[i]) + strlen(next) + 2;
                if ((s = malloc(len)))
                    snprintf(s, len, "%s=%s", in[i], next);
                i++;
            }
            break;
        }
        if (!s) {
            nvrtc_options_free(v, k);
            return -1;
        }
        v[k++] = s;
    }
    *out = v;
    *n_out = k;
    return 0;
}

const char *nvrtc_options_digest(void)
{
    static char hex[65];
    if (hex[0])
        return hex;
    char buf[4096];
    size_t k = 0;
    /* the matching's own version too: find() and the loop above decide as much as the table */
    k += (size_t)snprintf(buf, sizeof buf, "match 2\n");
    for (int i = 0; i < N_RULES && k < sizeof buf; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s %d\n", rules[i].name, rules[i].what);
    if (k >= sizeof buf)
        k = sizeof buf - 1;
    sha256_hex(buf, k, hex);
    return hex;
}

const char *nvrtc_options_hint(const char *log)
{
    static char hint[300];
    const char *at = log ? strstr(log, "unrecognized option ") : NULL;
    if (!at)
        return NULL;
    at += strlen("unrecognized option ");
    size_t n = strcspn(at, " \n");
    if (!n)
        return NULL;
    snprintf(hint, sizeof hint,
             "NVRTC does not take the option %.*s: leave it out of kernel.options, or set "
             "kernel.compiler: nvcc in the space file", (int)(n > 100 ? 100 : n), at);
    return hint;
}

/* compiler_nvrtc.c: NVRTC behind the compiler interface (compiler.h). The library is loaded once
 * per compile process (nvrtc_load.c); each variant is one program with a name expression per
 * kernel and one per variable ("&name"), compiled straight to a cubin for the GPU's
 * architecture. The toolkit's include directories are searched after the user's: include/ and,
 * where the toolkit keeps CUB, Thrust and libcu++ apart (CUDA 13), include/cccl. The C and C++
 * standard headers that device code may use come from memory (nvrtc_headers.c), so a kernel
 * written for nvcc that includes <stdio.h> or <cub/cub.cuh> compiles unedited; a kernel that
 * needs host code is refused with a log that says to use `compiler: nvcc`. The options are
 * nvcc's as a team passes them, in NVRTC's form (nvrtc_options.c). */
#include "compiler.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nvrtc_headers.h"
#include "nvrtc_load.h"
#include "nvrtc_options.h"
#include "ptx.h"
#include "source_hint.h"

typedef struct nvrtc_compiler {
    compiler base;
    nvrtc_api api;
    char cccl_dir[1100];     /* include/cccl when the toolkit has one, else "" */
} nvrtc_compiler;

/* include/cccl beside include/, when it holds CUB (CUDA 13's layout). */
static void find_cccl(const char *include_dir, char *out, size_t len)
{
    char probe[1200];
    out[0] = 0;
    if (!include_dir[0])
        return;
    snprintf(probe, sizeof probe, "%s/cccl/cub/cub.cuh", include_dir);
    if (access(probe, R_OK) == 0)
        snprintf(out, len, "%s/cccl", include_dir);
}

void compiler_nvrtc_digests(char *out, size_t len)
{
    snprintf(out, len, "+h%.12s+o%.8s", nvrtc_headers_digest(), nvrtc_options_digest());
}

int compiler_nvrtc_probe(int cc, compiler_info *out, char *err, size_t len)
{
    nvrtc_api api;
    if (nvrtc_load(&api, err, len) != 0)
        return -1;
    if (!nvrtc_supports(&api, cc)) {
        snprintf(err, len, "NVRTC %d.%d (%s) cannot compile for sm_%d, the GPU's architecture",
                 api.major, api.minor, api.path, cc);
        nvrtc_unload(&api);
        return -1;
    }
    snprintf(out->kind, sizeof out->kind, "nvrtc");
    /* the in-memory headers and the options' rules are part of what this compiler compiles
     * with */
    char digests[64];
    compiler_nvrtc_digests(digests, sizeof digests);
    snprintf(out->version, sizeof out->version, "%d.%d%s", api.major, api.minor, digests);
    snprintf(out->tool, sizeof out->tool, "%s", api.path);
    nvrtc_unload(&api);
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* 1 when the kernel brings a header of this name itself: one of the caller's in-memory headers,
 * or a file in the source's folder or in an -I directory (opts: NVRTC's form), which NVRTC must
 * then find instead of the standard one in memory (NVRTC looks in memory first). */
static int own_header(const char *name, const cc_input *in, char *const *opts, int n_opts)
{
    char path[PATH_MAX];
    for (int i = 0; i < in->n_headers; i++)
        if (strcmp(in->header_names[i], name) == 0)
            return 1;
    if (!in->source_text && in->source) {
        const char *slash = strrchr(in->source, '/');
        int n = slash ? (int)(slash - in->source) : 1;
        snprintf(path, sizeof path, "%.*s/%s", n, slash ? in->source : ".", name);
        if (access(path, R_OK) == 0)
            return 1;
    }
    for (int i = 0; i < n_opts; i++) {
        const char *dir = NULL;
        if (strcmp(opts[i], "-I") == 0 || strcmp(opts[i], "--include-path") == 0)
            dir = i + 1 < n_opts ? opts[++i] : NULL;
        else if (strncmp(opts[i], "-I", 2) == 0)
            dir = opts[i] + 2;
        else if (strncmp(opts[i], "--include-path=", 15) == 0)
            dir = opts[i] + 15;
        if (dir && snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path &&
            access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* Whether every error of an NVRTC log is a function without an execution space ("host
 * functions are not allowed in JIT mode") whose source line, which NVRTC prints next, is a
 * declaration: it ends with ';' and has no body. */
static int only_host_prototypes(const char *log)
{
    static const char bare[] = "host functions are not allowed in JIT mode";
    int found = 0;
    for (const char *p = log; (p = strstr(p, ": error")); p++) {
        const char *eol = strchr(p, '\n');
        const char *b = strstr(p, bare);
        if (!eol || !b || b > eol)
            return 0;   /* an error of another kind */
        const char *src = eol + 1, *end = strchr(src, '\n');
        size_t n = end ? (size_t)(end - src) : strlen(src);
        while (n && (src[n - 1] == ' ' || src[n - 1] == '\r'))
            n--;
        if (!n || src[n - 1] != ';' || memchr(src, '{', n) || memchr(src, '}', n))
            return 0;
        found = 1;
    }
    return found;
}

static int nvrtc_compile(compiler *base, const cc_input *in, cc_output *out)
{
    nvrtc_compiler *c = (nvrtc_compiler *)base;
    const nvrtc_api *api = &c->api;
    nvrtcProgram prog = NULL;
    char *src = NULL, *ptx = NULL, *log = NULL, **exprs = NULL, **user_opts = NULL;
    int n_user_opts = 0;
    const char **opts = NULL, **hdr_names = NULL, **hdr_texts = NULL;
    char why[1024];
    int rc = CC_BROKEN;
    if (cc_output_alloc(out, in->n_kernels, in->n_symbols) != 0) {
        out->log = NULL;
        return CC_BROKEN;
    }
    opts = calloc((size_t)in->n_options + 6, sizeof *opts);
    exprs = calloc((size_t)in->n_symbols + 1, sizeof *exprs);
    if (!opts || !exprs) {
        out->log = strdup("out of memory");
        goto done;
    }
    if (in->source_text) {
        if (!(src = strdup(in->source_text))) {
            out->log = strdup("out of memory");
            goto done;
        }
    } else {
        FILE *f = fopen(in->source, "rb");
        if (!f) {
            snprintf(why, sizeof why, "%s: cannot open", in->source);
            out->log = strdup(why);
            goto done;
        }
        src = malloc(16 << 20);
        size_t got = src ? fread(src, 1, (16 << 20) - 1, f) : 0;
        fclose(f);
        if (!src) {
            out->log = strdup("out of memory");
            goto done;
        }
        src[got] = 0;
    }
    /* the user's options in NVRTC's form (their -I directories are looked at below) */
    if (nvrtc_options_from_nvcc(in->options, in->n_options, &user_opts, &n_user_opts) != 0) {
        out->log = strdup("out of memory");
        goto done;
    }
    /* the in-memory headers: the standard ones the kernel does not bring itself, then the
     * caller's */
    int n_std = nvrtc_headers_count(), n_own = in->n_headers > 0 ? in->n_headers : 0;
    hdr_names = calloc((size_t)(n_std + n_own) + 1, sizeof *hdr_names);
    hdr_texts = calloc((size_t)(n_std + n_own) + 1, sizeof *hdr_texts);
    if (!hdr_names || !hdr_texts) {
        out->log = strdup("out of memory");
        goto done;
    }
    int n_hdr = 0;
    for (int i = 0; i < n_std; i++) {
        if (own_header(nvrtc_headers_names()[i], in, user_opts, n_user_opts))
            continue;
        hdr_names[n_hdr] = nvrtc_headers_names()[i];
        hdr_texts[n_hdr++] = nvrtc_headers_sources()[i];
    }
    for (int i = 0; i < n_own; i++) {
        hdr_names[n_hdr] = in->header_names[i];
        hdr_texts[n_hdr++] = in->header_texts[i];
    }
    /* the user's options in NVRTC's form (no more of them than given), then the architecture
     * and the toolkit's headers */
    int k = 0;
    for (int i = 0; i < n_user_opts; i++)
        opts[k++] = user_opts[i];
    char arch_opt[64], inc_opt[1100], cccl_opt[1200];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", in->arch);
    opts[k++] = arch_opt;
    opts[k++] = "--pre-include=" NVRTC_IMPLICIT_HEADER;
    if (c->api.include_dir[0]) {
        snprintf(inc_opt, sizeof inc_opt, "-I%s", c->api.include_dir);
        opts[k++] = inc_opt;
    }
    if (c->cccl_dir[0]) {
        snprintf(cccl_opt, sizeof cccl_opt, "-I%s", c->cccl_dir);
        opts[k++] = cccl_opt;
    }
    nvrtcResult cr = NVRTC_SUCCESS;
    for (int attempt = 0; attempt < 2; attempt++) {
        nvrtcResult r = api->create(&prog, src, in->source, n_hdr, hdr_texts, hdr_names);
        for (int i = 0; r == NVRTC_SUCCESS && i < in->n_kernels; i++)
            r = api->add_name(prog, in->kernels[i]);
        for (int i = 0; r == NVRTC_SUCCESS && i < in->n_symbols; i++) {
            size_t n = strlen(in->symbols[i]) + 2;
            if (!exprs[i] && !(exprs[i] = malloc(n))) {
                out->log = strdup("out of memory");
                goto done;
            }
            snprintf(exprs[i], n, "&%s", in->symbols[i]);
            r = api->add_name(prog, exprs[i]);
        }
        if (r != NVRTC_SUCCESS) {
            snprintf(why, sizeof why, "nvrtc: %s", api->error_string(r));
            out->log = strdup(why);
            goto done;
        }
        cr = api->compile(prog, k, opts);
        size_t log_n = 0;
        api->log_size(prog, &log_n);
        free(log);
        log = calloc(log_n + 1, 1);
        if (log && log_n)
            api->log(prog, log);
        /* host prototypes (a project header's `bool run(float *, int);` beside the kernel's
         * constants) are all that NVRTC refused: nvcc compiles them as host declarations that
         * device code never calls, so the compile is redone with -default-device, which takes
         * them as device declarations; a body of host code still fails */
        if (cr == NVRTC_SUCCESS || attempt > 0 || !log || !only_host_prototypes(log))
            break;
        api->destroy(&prog);
        prog = NULL;
        opts[k++] = "-default-device";
    }
    if (cr != NVRTC_SUCCESS) {
        const char *text = log && *log ? log : api->error_string(cr);
        /* a texture reference stops every compiler, so its hint comes first; other host code
         * is NVRTC's to refuse before any call in it that CUDA removed */
        const char *hint = strstr(text, "texture is not a template")
                               ? cc_removed_feature_hint(text) : NULL;
        if (!hint)
            hint = nvrtc_headers_host_hint(text);
        if (!hint)
            hint = cc_removed_feature_hint(text);
        if (!hint)
            hint = nvrtc_options_hint(text);
        size_t n = strlen(text) + (hint ? strlen(hint) + 2 : 0) + 1;
        if ((out->log = malloc(n)))
            snprintf(out->log, n, "%s%s%s", hint ? hint : "", hint ? "\n" : "", text);
        rc = CC_REFUSED;
        goto done;
    }
    size_t ptx_n = 0;
    if (api->ptx_size(prog, &ptx_n) != NVRTC_SUCCESS || api->cubin_size(prog, &out->cubin_n) !=
        NVRTC_SUCCESS || !out->cubin_n) {
        out->log = strdup("NVRTC gave no cubin");
        rc = CC_REFUSED;
        goto done;
    }
    ptx = malloc(ptx_n + 1);
    out->cubin = malloc(out->cubin_n);
    if (!ptx || !out->cubin || api->ptx(prog, ptx) != NVRTC_SUCCESS ||
        api->cubin(prog, out->cubin) != NVRTC_SUCCESS) {
        out->log = strdup("reading NVRTC's output failed");
        goto done;
    }
    ptx[ptx_n] = 0;
    for (int i = 0; i < in->n_kernels; i++) {
        const char *lowered = NULL;
        int sizes[256];
        int np = -1;
        if (api->lowered_name(prog, in->kernels[i], &lowered) == NVRTC_SUCCESS && lowered)
            np = ptx_entry_params(ptx, lowered, sizes, 256);
        if (np < 0) {
            snprintf(why, sizeof why, "%s is not a kernel of %s (no .entry %s in the PTX)",
                     in->kernels[i], in->source, lowered ? lowered : "for it");
            out->log = strdup(why);
            rc = CC_REFUSED;
            goto done;
        }
        out->n_params[i] = np;
        out->param_sizes[i] = malloc((size_t)(np ? np : 1) * sizeof(int));
        out->lowered[i] = strdup(lowered);
        if (!out->param_sizes[i] || !out->lowered[i]) {
            out->log = strdup("out of memory");
            goto done;
        }
        memcpy(out->param_sizes[i], sizes, (size_t)np * sizeof(int));
        out->max_threads[i] = ptx_entry_max_threads(ptx, lowered);
    }
    for (int i = 0; i < in->n_symbols; i++) {
        const char *lowered = NULL;
        if (api->lowered_name(prog, exprs[i], &lowered) != NVRTC_SUCCESS || !lowered) {
            snprintf(why, sizeof why, "no variable %s in %s", in->symbols[i], in->source);
            out->log = strdup(why);
            rc = CC_REFUSED;
            goto done;
        }
        if (!(out->symbol_lowered[i] = strdup(lowered))) {
            out->log = strdup("out of memory");
            goto done;
        }
    }
    out->log = log && *log ? dup_or_null(log) : NULL;
    rc = CC_OK;
done:
    if (prog)
        api->destroy(&prog);
    for (int i = 0; exprs && i < in->n_symbols; i++)
        free(exprs[i]);
    free(exprs);
    free(src);
    free(ptx);
    free(log);
    free(opts);
    nvrtc_options_free(user_opts, n_user_opts);
    free(hdr_names);
    free(hdr_texts);
    return rc;
}

static void nvrtc_close(compiler *base)
{
    nvrtc_compiler *c = (nvrtc_compiler *)base;
    if (!c)
        return;
    nvrtc_unload(&c->api);
    free(c);
}

static const compiler_vt nvrtc_vt = {"nvrtc", nvrtc_compile, nvrtc_close};

compiler *compiler_nvrtc_open(char *err, size_t len)
{
    nvrtc_compiler *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    if (nvrtc_load(&c->api, err, len) != 0) {
        free(c);
        return NULL;
    }
    find_cccl(c->api.include_dir, c->cccl_dir, sizeof c->cccl_dir);
    c->base.vt = &nvrtc_vt;
    return &c->base;
}

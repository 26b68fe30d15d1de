/* runtime_build.c: the variants of libtunekit's run-time API (docs/runtime.md): a config's
 * compilation formed by the tuner's rule (build/compile_form.h: -std, -I, -D, the options, a name
 * expression per distinct step function), so that its key in the compile cache
 * (tuner/build/cache.c) is the tuner's; found there, or compiled by NVRTC (behind the compiler
 * interface, tuner/build/compiler.h) and stored; loaded once with cudaLibraryLoadData. */
#include "runtime_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "build/cache.h"
#include "build/compile_form.h"

void rt_variant_free(variant *v, const tk_kernel_desc *d)
{
    if (!v)
        return;
    if (v->lib)
        cudaLibraryUnload(v->lib);
    for (int i = 0; i < d->n_args && i < MAX_ARGS; i++)
        free(v->symbol[i]);
    free(v->config);
    free(v);
}
static void lists_clear(compile_lists *c)
{
    for (int i = 0; i < c->n_opts; i++)
        free(c->opts[i]);
    for (int i = 0; i < c->n_kernels; i++)
        free(c->kernels[i]);
    for (int i = 0; i < c->n_symbols; i++)
        free(c->symbols[i]);
    memset(c, 0, sizeof *c);
}

/* The library's side of compile_form.h: the descriptor's expressions, parsed once at open,
 * evaluated over a config's slots. An expression that fails says so with its place. */
typedef struct {
    const tk_kernel *k;
    const value *slots;
    int invalid; /* an expression failed (else a failure is memory) */
} form_ctx;

static int form_eval(form_ctx *f, const expr *x, value *v, const char *what, const char *name,
                     const char *text, char *err, size_t len)
{
    expr_error e;
    if (expr_eval(x, f->slots, v, &e) == 0)
        return 0;
    f->invalid = 1;
    snprintf(err, len, "%s.%s: %s%s%s '%s': %s", f->k->d->family, f->k->d->op, what,
             name ? " " : "", name ? name : "", text, e.message);
    return -1;
}

static int form_holds(void *ctx, int i, int *holds, char *err, size_t len)
{
    form_ctx *f = ctx;
    const expr *x = f->k->define_conds[i];
    value v;
    expr_error e;
    *holds = 1;
    if (!x)
        return 0;
    int failed = expr_eval(x, f->slots, &v, &e) != 0;
    if (failed || v.kind != VALUE_INT) {
        f->invalid = 1;
        snprintf(err, len, "%s.%s: define %s: its condition '%s': %s", f->k->d->family,
                 f->k->d->op, f->k->d->define_names[i], f->k->d->define_conds[i],
                 failed ? e.message : "not an integer");
        return -1;
    }
    *holds = v.i != 0;
    return 0;
}

static int form_value(void *ctx, int i, int *has, char *text, size_t cap, char *err, size_t len)
{
    form_ctx *f = ctx;
    value v;
    *has = f->k->define_values[i] != NULL;
    if (!*has)
        return 0;
    if (form_eval(f, f->k->define_values[i], &v, "define", f->k->d->define_names[i],
                  f->k->d->define_values[i], err, len) != 0)
        return -1;
    value_format(v, text, cap);
    return 0;
}

static const char *form_function(void *ctx, int step)
{
    return ((form_ctx *)ctx)->k->d->steps[step].function;
}

static int form_n_template(void *ctx, int step)
{
    return ((form_ctx *)ctx)->k->d->steps[step].n_template;
}

static int form_targ(void *ctx, int step, int j, char *text, size_t cap, char *err, size_t len)
{
    form_ctx *f = ctx;
    value v;
    if (form_eval(f, f->k->steps[step].templ[j], &v, "template", NULL,
                  f->k->d->steps[step].templ[j], err, len) != 0)
        return -1;
    value_format(v, text, cap);
    return 0;
}

static int compile_lists_for(const tk_kernel *k, const value *slots, compile_lists *c)
{
    const tk_kernel_desc *d = k->d;
    char err[1024];
    memset(c, 0, sizeof *c);
    form_ctx f = {k, slots, 0};
    cf_source src = {
        .ctx = &f, .source_dir = d->source_dir,
        .n_include_dirs = d->n_include_dirs, .include_dirs = d->include_dirs,
        .n_defines = d->n_defines, .define_names = d->define_names,
        .define_holds = form_holds, .define_value = form_value,
        .n_options = d->n_options, .options = d->options,
        .n_steps = d->n_steps, .step_function = form_function,
        .step_n_template = form_n_template, .template_arg = form_targ};
    cf_lists l;
    if (compile_form(&src, &l, err, sizeof err) != 0)
        return rt_fail(f.invalid ? TK_ERR_INVALID_ARGUMENT : TK_ERR_CUDA, "%s",
                       f.invalid ? err : "out of host memory"), -1;
    if (l.n_options > (int)(sizeof c->opts / sizeof *c->opts) || l.n_kernels > MAX_STEPS) {
        cf_lists_clear(&l);
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: too many options or kernels", d->family,
                       d->op), -1;
    }
    /* the lists move into c's arrays */
    for (int i = 0; i < l.n_options; i++)
        c->opts[c->n_opts++] = l.options[i];
    for (int i = 0; i < l.n_kernels; i++)
        c->kernels[c->n_kernels++] = l.kernels[i];
    for (int s = 0; s < d->n_steps; s++)
        c->step_kernel[s] = l.step_kernel[s];
    free(l.options), free(l.kernels), free(l.step_kernel);
    for (int i = 0; i < d->n_args; i++) {
        if (!d->args[i].symbol)
            continue;
        if (c->n_symbols >= (int)(sizeof c->symbols / sizeof *c->symbols) ||
            !(c->symbols[c->n_symbols] = strdup(d->args[i].symbol))) {
            lists_clear(c);
            return rt_fail(TK_ERR_CUDA, "out of host memory"), -1;
        }
        c->n_symbols++;
    }
    return 0;
}

/* The compiler's identity for the cache key, as compiler_nvrtc_probe gives it, remembered in the
 * cache folder (<dir>/nvrtc-sm_<arch>.probe: the library's path, size and modification time,
 * and the version): loading NVRTC only to learn its version cost a fresh process's first launch
 * most of its time. A library whose size or time differs is probed again, and so is a version
 * whose digests (the in-memory headers, the options' rules) are not this tunekit's. 0, or -1
 * with err. */
static int probe_nvrtc(const char *dir, int arch, compiler_info *info, char *err, size_t len)
{
    char path[PATH_MAX + 64], line[3][1100];
    snprintf(path, sizeof path, "%s/nvrtc-sm_%d.probe", dir, arch);
    FILE *f = fopen(path, "r");
    if (f) {
        int n = 0;
        while (n < 3 && fgets(line[n], sizeof line[n], f))
            line[n][strcspn(line[n], "\n")] = 0, n++;
        fclose(f);
        struct stat st;
        long long size = 0, mtime = 0;
        char digests[64];
        compiler_nvrtc_digests(digests, sizeof digests);
        size_t vl = n == 3 ? strlen(line[2]) : 0, dl = strlen(digests);
        if (n == 3 && vl > dl && strcmp(line[2] + vl - dl, digests) == 0 &&
            sscanf(line[1], "%lld %lld", &size, &mtime) == 2 &&
            stat(line[0], &st) == 0 && (long long)st.st_size == size &&
            (long long)st.st_mtime == mtime) {
            memset(info, 0, sizeof *info);
            snprintf(info->kind, sizeof info->kind, "nvrtc");
            snprintf(info->tool, sizeof info->tool, "%s", line[0]);
            snprintf(info->version, sizeof info->version, "%s", line[2]);
            return 0;
        }
    }
    if (compiler_nvrtc_probe(arch, info, err, len) != 0)
        return -1;
    struct stat st;
    char tmp[PATH_MAX + 96];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (stat(info->tool, &st) == 0 && cache_make_dir(dir, line[0], sizeof line[0]) == 0 &&
        (f = fopen(tmp, "w")) != NULL) {
        fprintf(f, "%s\n%lld %lld\n%s\n", info->tool, (long long)st.st_size,
                (long long)st.st_mtime, info->version);
        if (fclose(f) != 0 || rename(tmp, path) != 0)
            unlink(tmp);
    }
    return 0;
}

/* The cubin of a config for an architecture: from the cache, else compiled now and stored.
 * k->mu held. 0 with *cubin (malloc'd), *meta; -1 with the error said. */
static int build(tk_kernel *k, int arch, const compile_lists *c, char key[65], void **cubin,
                 size_t *cubin_n, module_meta *meta, tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    char err[1024], arch_name[32], dir[PATH_MAX];
    *st = TK_ERR_CUDA;
    /* the space's architecture suffix (sm_90a), which exists from 9.0 ("a") or 10.0 ("f") */
    const char *sfx = d->arch_suffix ? d->arch_suffix : "";
    if (sfx[0] && arch < (sfx[0] == 'a' ? 90 : 100)) {
        *st = TK_ERR_UNSUPPORTED_CONFIG;
        return rt_fail(TK_ERR_UNSUPPORTED_CONFIG, "%s.%s: the kernel needs sm_%d%s, which does "
                       "not exist: %s features start at compute capability %s", d->family,
                       d->op, arch, sfx, sfx[0] == 'a' ? "architecture-specific" :
                       "family-specific", sfx[0] == 'a' ? "9.0" : "10.0"), -1;
    }
    snprintf(arch_name, sizeof arch_name, "sm_%d%s", arch, sfx);
    cache_dir(dir, sizeof dir);
    if (k->cc_info_arch != arch) {
        if (probe_nvrtc(dir, arch, &k->cc_info, err, sizeof err) != 0)
            return rt_fail(TK_ERR_CUDA, "%s.%s: %s", d->family, d->op, err), -1;
        k->cc_info_arch = arch;
    }
    /* the digest of the embedded files: the tuner's of the files on its disk */
    cache_text texts[64];
    int n_files = d->n_files < 64 ? d->n_files : 64;
    for (int i = 0; i < n_files; i++)
        texts[i] = (cache_text){d->files[i].text, d->files[i].len};
    char digest[65];
    cache_digest(texts, n_files, digest);
    cache_compile cc = {
        .compiler = "nvrtc", .version = k->cc_info.version, .tool = k->cc_info.tool,
        .arch = arch_name, .source = d->files[0].name, .digest = digest,
        .n_options = c->n_opts, .options = c->opts, .n_kernels = c->n_kernels,
        .kernels = c->kernels, .n_symbols = c->n_symbols, .symbols = c->symbols,
    };
    if (cache_key(&cc, key) != 0)
        return rt_fail(TK_ERR_CUDA, "out of host memory"), -1;
    char prefix[PATH_MAX + 80];
    snprintf(prefix, sizeof prefix, "%s/%s", dir, key);
    char *log = NULL;
    int got = cache_load(prefix, cubin, cubin_n, meta, &log);
    if (got == 1) {
        rt_fail(TK_ERR_CUDA, "%s.%s: NVRTC refused the variant (from the cache %s.fail): %.600s",
                d->family, d->op, prefix, log);
        free(log);
        return -1;
    }
    if (got == 0)
        return 0;
    /* compile it now */
    if (!k->nvrtc && !(k->nvrtc = compiler_nvrtc_open(err, sizeof err)))
        return rt_fail(TK_ERR_CUDA, "%s.%s: %s", d->family, d->op, err), -1;
    const char *hdr_names[64], *hdr_texts[64];
    for (int i = 1; i < n_files; i++) {
        hdr_names[i - 1] = d->files[i].name;
        hdr_texts[i - 1] = d->files[i].text;
    }
    cc_input in = {
        .source = d->files[0].name, .source_text = d->files[0].text,
        .n_kernels = c->n_kernels, .kernels = (const char *const *)c->kernels,
        .n_symbols = c->n_symbols, .symbols = (const char *const *)c->symbols,
        .n_options = c->n_opts, .options = (const char *const *)c->opts, .arch = arch_name,
        .n_headers = n_files - 1, .header_names = hdr_names, .header_texts = hdr_texts,
    };
    cc_output o;
    int r = k->nvrtc->vt->compile(k->nvrtc, &in, &o);
    if (r == CC_BROKEN) {
        rt_fail(TK_ERR_CUDA, "%s.%s: NVRTC cannot run: %.600s", d->family, d->op,
                o.log ? o.log : "no log");
        cc_output_clear(&o);
        return -1;
    }
    /* into the cache for the next process (and the tuner); a cache that cannot be written only
     * costs the next process a compile */
    if (cache_make_dir(dir, err, sizeof err) == 0)
        cache_store(prefix, r == CC_REFUSED, &o, err, sizeof err);
    if (r == CC_REFUSED) {
        rt_fail(TK_ERR_CUDA, "%s.%s: NVRTC refused the variant: %.600s", d->family, d->op,
                o.log ? o.log : "no log");
        cc_output_clear(&o);
        return -1;
    }
    /* the meta as the cache would give it */
    cc_output_take_meta(&o, meta);
    *cubin = o.cubin;
    *cubin_n = o.cubin_n;
    o.cubin = NULL;
    cc_output_clear(&o);
    return 0;
}

int rt_compile(tk_kernel *k, int arch, const value *slots, compiled *x, tk_status *st)
{
    memset(x, 0, sizeof *x);
    if (compile_lists_for(k, slots, &x->c) != 0) {
        *st = TK_ERR_INVALID_ARGUMENT;
        return -1;
    }
    return build(k, arch, &x->c, x->key, &x->cubin, &x->cubin_n, &x->meta, st);
}

void rt_compiled_clear(compiled *x)
{
    lists_clear(&x->c);
    module_meta_clear(&x->meta);
    free(x->cubin);
    memset(x, 0, sizeof *x);
}

variant *rt_get_variant(tk_kernel *k, const char *config, int arch, const value *slots,
                        tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    for (variant *v = k->variants; v; v = v->next)
        if (v->arch == arch && strcmp(v->config, config) == 0)
            return v;
    compiled x;
    variant *v = NULL;
    if (rt_compile(k, arch, slots, &x, st) != 0)
        goto done;
    v = calloc(1, sizeof *v);
    if (!v || !(v->config = strdup(config))) {
        free(v);
        v = NULL;
        *st = rt_fail(TK_ERR_CUDA, "out of host memory");
        goto done;
    }
    memcpy(v->key, x.key, sizeof x.key);
    v->arch = arch;
    cudaError_t e = cudaLibraryLoadData(&v->lib, x.cubin, NULL, NULL, 0, NULL, NULL, 0);
    for (int s = 0; e == cudaSuccess && s < d->n_steps; s++) {
        int ki = x.c.step_kernel[s];
        e = ki < x.meta.n_kernels ? cudaLibraryGetKernel(&v->fn[s], v->lib, x.meta.lowered[ki])
                                  : cudaErrorInvalidKernelImage;
    }
    for (int i = 0, sym = 0; e == cudaSuccess && i < d->n_args; i++)
        if (d->args[i].symbol) {
            if (sym >= x.meta.n_symbols || !(v->symbol[i] = strdup(x.meta.symbols[sym++])))
                e = cudaErrorSymbolNotFound;
        }
    if (e != cudaSuccess) {
        cudaGetLastError();
        *st = rt_fail(TK_ERR_CUDA, "%s.%s: loading the variant %s: %s", d->family, d->op, config,
                      cudaGetErrorString(e));
        rt_variant_free(v, d);
        v = NULL;
        goto done;
    }
    v->next = k->variants;
    k->variants = v;
    *st = TK_OK;
done:
    rt_compiled_clear(&x);
    return v;
}

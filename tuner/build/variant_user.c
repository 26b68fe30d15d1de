/* variant_user.c: the variant builder of a user kernel (variant.h). A variant whose geometry
 * exceeds the device is unsupported before anything is compiled; any other is compiled by the
 * pool (pool.h) with the space's compiler (compiler.h): one compilation per variant holds every
 * launch of a pipeline and looks up the variables the arguments fill. Each compiled module is
 * then held against what variant_user_checks.c checks: a block past its kernel's
 * __launch_bounds__ makes the variant unsupported without running; a `symbol:` buffer larger
 * than its variable, a define the source overrides, or arguments that do not match the
 * kernel's parameters stop the run (the arguments checked before anything is measured). The
 * task's reference (the kernel at the reference config, or a reference kernel) and check
 * kernels are compiled once per binding, with parameters out of scope. */
#include "variant.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler.h"
#include "core/files.h"
#include "core/module_meta.h"
#include "pool.h"
#include "space/space_user.h"
#include "variant_user_checks.h"

typedef struct user_builder {
    variant_builder base;
    const space *sp;
    device_info dev;
    const char *space_path;
    char arch[32];
    compiler_info cc;
    pool *pool;              /* NULL: nothing is compiled (replay) */
    char *digest;            /* sha256 of the tuned kernel's files */
    char *ref_digest;        /* of the reference kernel's, or NULL */
    char **check_digest;     /* per argument: of its check kernel's, or NULL */
} user_builder;

/* The digest of a kernel's files (the source and what it includes, cache_digest), as hex;
 * malloc'd. */
static char *digest_files(const su_kernel *k, char *err, size_t len)
{
    char **files = NULL;
    int n = su_kernel_files(k, &files, err, len);
    if (n == 0)
        return NULL;
    cache_text *texts = calloc((size_t)n, sizeof *texts);
    char *hex = malloc(65);
    int ok = texts && hex;
    for (int i = 0; i < n && ok; i++) {
        size_t got = 0;
        char *buf = file_read(files[i], &got);
        if (!buf) {
            snprintf(err, len, "%s: %s", files[i], strerror(errno));
            ok = 0;
            break;
        }
        texts[i] = (cache_text){buf, got};
    }
    if (ok)
        cache_digest(texts, n, hex);
    else if (!err[0])
        snprintf(err, len, "out of memory");
    for (int i = 0; i < n; i++) {
        if (texts)
            free((char *)texts[i].text);
        free(files[i]);
    }
    free(files);
    free(texts);
    if (!ok) {
        free(hex);
        return NULL;
    }
    return hex;
}

/* The compilation of kernel k (with digest) for a binding and a config. */
static int describe(user_builder *ub, const space_binding *bind, const int *choice,
                    const su_kernel *k, const char *digest, int with_symbols, su_compile *sc,
                    pool_compile *pc, char *err, size_t len)
{
    if (space_user_compile(ub->sp, bind, choice, k, with_symbols, sc, err, len) != 0)
        return -1;
    *pc = (pool_compile){
        .compiler = ub->cc.kind, .version = ub->cc.version, .tool = ub->cc.tool,
        .arch = ub->arch, .source = k->source, .digest = digest,
        .n_options = sc->n_options, .options = sc->options,
        .n_kernels = sc->n_kernels, .kernels = sc->kernels,
        .n_symbols = sc->n_symbols, .symbols = sc->symbols,
    };
    return 0;
}

/* Compiles kernel k now: 0 with *cubin, 1 refused (log), -1 err. keep (may be NULL): the
 * compilation's description, for the checks of its module; the caller clears it (every
 * answer). */
static int compile_now(user_builder *ub, const space_binding *bind, const int *choice,
                       const su_kernel *k, const char *digest, int with_symbols,
                       const char **cubin, char *log, size_t loglen, char *err, size_t len,
                       su_compile *keep)
{
    su_compile sc;
    pool_compile pc;
    if (keep)
        memset(keep, 0, sizeof *keep);
    if (describe(ub, bind, choice, k, digest, with_symbols, &sc, &pc, err, len) != 0)
        return -1;
    int rc = pool_get(ub->pool, &pc, cubin, log, loglen, err, len);
    if (keep)
        *keep = sc;
    else
        su_compile_clear(&sc);
    return rc;
}

static int user_variant(variant_builder *b, const space_binding *bind, const int *choice,
                        vb_variant *out, char *err, size_t len)
{
    user_builder *ub = (user_builder *)b;
    out->module = NULL;
    out->why[0] = 0;
    int fits = space_user_fits(ub->sp, bind, choice, out->why, sizeof out->why, err, len);
    if (fits < 0)
        return -1;
    if (!fits) {
        out->state = VB_UNSUPPORTED;
        return 0;
    }
    out->state = VB_READY;
    if (!ub->pool)
        return 0;
    su_compile sc;
    int got = compile_now(ub, bind, choice, &ub->sp->user->kernel, ub->digest, 1, &out->module,
                          out->why, sizeof out->why, err, len, &sc);
    int within = got != 0 ? 1
                          : vu_module_checks(ub->sp, bind, choice, &ub->sp->user->kernel, &sc,
                                             out->module, 1, out->why, sizeof out->why, err, len);
    su_compile_clear(&sc);
    if (got < 0)
        return -1;
    if (got == 1) {
        out->state = VB_REFUSED;
        out->module = NULL;
        return 0;
    }
    if (within < 0)
        return -1;
    if (!within) {
        out->state = VB_UNSUPPORTED;
        out->module = NULL;
    }
    return 0;
}

/* The reference kernel's and check kernels' modules of a binding. */
static int task_modules(user_builder *ub, const space_binding *bind, vb_task *task, char *err,
                        size_t len)
{
    const space *sp = ub->sp;
    const space_user *u = sp->user;
    char log[8192], head[1024];
    if (u->ref == SU_REF_CONFIG || u->ref == SU_REF_KERNEL) {
        su_compile sc;
        int got = u->ref == SU_REF_CONFIG
                      ? compile_now(ub, bind, u->ref_choice, &u->kernel, ub->digest, 1,
                                    &task->ref_module, log, sizeof log, err, len, &sc)
                      : compile_now(ub, bind, NULL, &u->ref_kernel, ub->ref_digest, 1,
                                    &task->ref_module, log, sizeof log, err, len, &sc);
        /* it must run: its variables hold its buffers, its blocks keep within its bounds */
        const int *choice = u->ref == SU_REF_CONFIG ? u->ref_choice : NULL;
        const su_kernel *k = u->ref == SU_REF_CONFIG ? &u->kernel : &u->ref_kernel;
        int within = got != 0 ? 1
                              : vu_module_checks(ub->sp, bind, choice, k, &sc, task->ref_module,
                                                 0, head, sizeof head, err, len);
        su_compile_clear(&sc);
        /* a reference kernel of its own takes kernel.args too: held against its parameters as
         * the tuned kernel is (a mismatch would read garbage and fail every variant) */
        if (got == 0 && within >= 0 && u->ref == SU_REF_KERNEL) {
            module_meta rm;
            int bad = module_meta_read(task->ref_module, &rm, err, len) != 0 ||
                      vu_check_params(sp, bind, NULL, &u->ref_kernel, task->ref_module, &rm, err,
                                      len) != 0;
            module_meta_clear(&rm);
            if (bad)
                return -1;
        }
        if (got < 0)
            return -1;
        if (got == 1) {
            vb_log_head(log, head, sizeof head);
            snprintf(err, len, "%s:%d:%d: error: the reference does not compile for %s %s: %s",
                     sp->path, u->ref_line, u->ref_col, bind->dtype, bind->problem->text, head);
            return -1;
        }
        if (within < 0)
            return -1;
        if (!within) {
            snprintf(err, len, "%s:%d:%d: error: the reference cannot run for %s %s: %s",
                     sp->path, u->ref_line, u->ref_col, bind->dtype, bind->problem->text, head);
            return -1;
        }
    }
    size_t at = 0, cap = 0;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        if (a->compare != SU_CMP_CHECK)
            continue;
        const char *cubin = NULL;
        int got = compile_now(ub, bind, NULL, &a->check->kernel, ub->check_digest[i], 0, &cubin,
                              log, sizeof log, err, len, NULL);
        if (got < 0)
            return -1;
        if (got == 1) {
            vb_log_head(log, head, sizeof head);
            snprintf(err, len, "%s:%d:%d: error: the check kernel of %s does not compile for %s "
                     "%s: %s", sp->path, a->cmp_line, a->cmp_col, a->name, bind->dtype,
                     bind->problem->text, head);
            return -1;
        }
        size_t need = at + strlen(cubin) + 2;
        if (need > cap) {
            char *p = realloc(task->checks, need * 2);
            if (!p) {
                snprintf(err, len, "out of memory");
                return -1;
            }
            task->checks = p;
            cap = need * 2;
        }
        at += (size_t)snprintf(task->checks + at, cap - at, "%s%s", at ? "\n" : "", cubin);
    }
    return 0;
}

/* Queues the first `ahead` variants of a binding that fit the device (< 0: all). */
static int prefetch(user_builder *ub, const space_binding *bind, int ahead, char *err,
                    size_t len)
{
    const space *sp = ub->sp;
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    space_iter it;
    space_iter_init(&it, sp, bind);
    int r = 0, rc = 0;
    int64_t seen = 0;
    while (rc == 0 && (ahead < 0 || seen < ahead) && (r = space_iter_next(&it, choice)) == 1) {
        char why[512];
        int fits = space_user_fits(sp, bind, choice, why, sizeof why, err, len);
        if (fits < 0) {
            rc = -1;
            break;
        }
        if (!fits)
            continue;
        seen++;
        su_compile sc;
        pool_compile pc;
        if (describe(ub, bind, choice, &sp->user->kernel, ub->digest, 1, &sc, &pc, err, len) != 0) {
            rc = -1;
            break;
        }
        rc = pool_prefetch(ub->pool, &pc, err, len);
        su_compile_clear(&sc);
    }
    if (rc == 0 && r < 0) {
        snprintf(err, len, "%s", it.err.message);
        rc = -1;
    }
    space_iter_free(&it);
    free(choice);
    return rc;
}

static int user_begin(variant_builder *b, const space_binding *bind, int ahead, vb_task *task,
                      char *err, size_t len)
{
    user_builder *ub = (user_builder *)b;
    task->space_path = ub->space_path;
    if (!ub->pool)
        return 0;
    if (ahead != 0 && prefetch(ub, bind, ahead, err, len) != 0)
        return -1;
    return task_modules(ub, bind, task, err, len);
}

static void user_stats(const variant_builder *b, vb_stats *out)
{
    const user_builder *ub = (const user_builder *)b;
    memset(out, 0, sizeof *out);
    if (!ub->pool)
        return;
    pool_stats ps;
    pool_get_stats(ub->pool, &ps);
    out->compiles = 1;
    out->compiled = ps.compiled;
    out->failed = ps.failed;
    out->cached = ps.cached;
    out->cpu_s = ps.cpu_s;
    out->jobs = ps.jobs;
}

static void user_close(variant_builder *b)
{
    user_builder *ub = (user_builder *)b;
    if (!ub)
        return;
    pool_close(ub->pool);
    free(ub->digest);
    free(ub->ref_digest);
    for (int i = 0; ub->check_digest && i < ub->sp->user->n_args; i++)
        free(ub->check_digest[i]);
    free(ub->check_digest);
    free(ub);
}

static const vb_vtable user_vt = {user_begin, user_variant, user_stats, user_close};

/* Before anything is measured: the first problem's variants until one compiles, its
 * parameters against the args (and those of the first variant of every other dtype that
 * compiles), and the first problem's reference and check kernels. */
static int precheck(user_builder *ub, char *err, size_t len)
{
    const space *sp = ub->sp;
    const space_user *u = sp->user;
    space_binding bind = {sp->ops[0], sp->dtypes[0], &sp->problems[0], &ub->dev};
    vb_task task;
    /* a window ahead, not the whole space: a large space must not keep the compilers busy with
     * variants a search will never ask for */
    pool_stats ps;
    pool_get_stats(ub->pool, &ps);
    if (prefetch(ub, &bind, 4 * ps.jobs, err, len) != 0)
        return -1;
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    char *first_log = NULL;
    char first_error[1024] = "";
    const char *cubin = NULL;
    int r = 0, rc = -1, tried = 0, same = 0, unsupported = 0;
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    char log[65536];
    space_iter it;
    space_iter_init(&it, sp, &bind);
    while ((r = space_iter_next(&it, choice)) == 1) {
        char why[512];
        int fits = space_user_fits(sp, &bind, choice, why, sizeof why, err, len);
        if (fits < 0)
            goto done;
        if (!fits) {
            unsupported++;
            continue;
        }
        tried++;
        int got = compile_now(ub, &bind, choice, &u->kernel, ub->digest, 1, &cubin, log,
                              sizeof log, err, len, NULL);
        if (got < 0)
            goto done;
        if (got == 0)
            break;
        cubin = NULL;
        char this_error[1024];
        vb_first_error(log, this_error, sizeof this_error);
        if (!first_log) {
            first_log = strdup(log);
            snprintf(first_error, sizeof first_error, "%s", this_error);
        }
        same = strcmp(this_error, first_error) == 0 ? same + 1 : 0;
        if (same >= VB_SAME_ERROR_STOP && same == tried)
            break;
    }
    if (r < 0) {
        snprintf(err, len, "%s", it.err.message);
        goto done;
    }
    if (!cubin) {
        char head[1024 + 512];
        vb_log_head(first_log ? first_log : "no log", head, 1024);
        vu_default_defines_hint(sp, &u->kernel, first_log, head + strlen(head),
                                sizeof head - strlen(head));
        /* the space asks for nvcc and --compiler nvrtc overrode it: the hint to set
         * kernel.compiler: nvcc means leaving the override out */
        if (strcmp(u->compiler, "nvcc") == 0 && strcmp(ub->cc.kind, "nvrtc") == 0 &&
            strstr(head, "set kernel.compiler: nvcc"))
            snprintf(head + strlen(head), sizeof head - strlen(head), " (the space sets it: "
                     "leave out --compiler nvrtc)");
        pool_drop_queue(ub->pool);
        char inst[512];
        const su_launch_spec *l0 = &u->kernel.launches[0];
        if (tried == 0)
            snprintf(err, len, "%s:%d:%d: error: none of the %d variants of %s %s fits the "
                     "device (%s): nothing to compile", sp->path, u->kernel.line, u->kernel.col,
                     unsupported, sp->dtypes[0], sp->problems[0].text, ub->dev.name);
        else if (first_log && l0->n_template && vu_template_mismatch(first_log, inst, sizeof inst))
            snprintf(err, len, "%s:%d:%d: error: kernel.template: %s is no instance of the "
                     "template %s: its arguments do not match the template's parameters in "
                     "number, order or kind (%s)", sp->path, l0->templ[0].line,
                     l0->templ[0].col, inst, l0->function, ub->cc.kind);
        else if (same >= VB_SAME_ERROR_STOP && same == tried && r == 1)
            snprintf(err, len, "%s:%d:%d: error: the first %d variants of %s %s all fail to "
                     "compile with the same error (stopped there; %s): %s", sp->path,
                     u->kernel.line, u->kernel.col, tried, sp->dtypes[0], sp->problems[0].text,
                     ub->cc.kind, head);
        else
            snprintf(err, len, "%s:%d:%d: error: none of the %d variants of %s %s compiles (%s); "
                     "the first one's log: %s", sp->path, u->kernel.line, u->kernel.col, tried,
                     sp->dtypes[0], sp->problems[0].text, ub->cc.kind, head);
        goto done;
    }
    module_meta mm;
    if (module_meta_read(cubin, &mm, err, len) != 0)
        goto done;
    int failed = vu_check_params(ub->sp, &bind, choice, &ub->sp->user->kernel, cubin, &mm, err, len) != 0 ||
                 vu_defines_reach(ub->sp, &mm, err, len) != 0;
    module_meta_clear(&mm);
    if (failed)
        goto done;
    /* the other dtypes' parameters too: a dtype-typed scalar or struct field changes their
     * sizes (the first variant of each that compiles; one that never does is left to the run,
     * which records it) */
    for (int d = 1; d < sp->n_dtypes; d++) {
        space_binding bd = bind;
        bd.dtype = sp->dtypes[d];
        space_iter di;
        space_iter_init(&di, sp, &bd);
        int tries = 0, bad = 0;
        while (!bad && tries < VB_SAME_ERROR_STOP && space_iter_next(&di, choice) == 1) {
            char why[512];
            int fits = space_user_fits(sp, &bd, choice, why, sizeof why, err, len);
            if (fits <= 0) {
                bad = fits < 0;
                continue;
            }
            tries++;
            const char *dc = NULL;
            int got = compile_now(ub, &bd, choice, &u->kernel, ub->digest, 1, &dc, log,
                                  sizeof log, err, len, NULL);
            if (got == 0) {
                module_meta dm;
                bad = module_meta_read(dc, &dm, err, len) != 0 ||
                      vu_check_params(ub->sp, &bd, choice, &u->kernel, dc, &dm, err, len) != 0 ? 1 : 2;
                module_meta_clear(&dm);
            } else if (got < 0)
                bad = 1;
        }
        space_iter_free(&di);
        if (bad == 1)
            goto done;
    }
    memset(&task, 0, sizeof task);
    rc = task_modules(ub, &bind, &task, err, len);
    vb_task_clear(&task);
done:
    space_iter_free(&it);
    free(choice);
    free(first_log);
    return rc;
}

int variant_builder_open_user(const space *sp, const device_info *dev, const vb_options *o,
                              variant_builder **out, char *err, size_t len)
{
    *out = NULL;
    const space_user *u = sp->user;
    user_builder *ub = calloc(1, sizeof *ub);
    if (!ub || !(ub->check_digest = calloc((size_t)u->n_args, sizeof *ub->check_digest))) {
        free(ub);
        snprintf(err, len, "out of memory");
        return -1;
    }
    ub->base.vt = &user_vt;
    ub->sp = sp;
    ub->dev = *dev;
    ub->space_path = o->space_path;
    int cc = dev->cc_major * 10 + dev->cc_minor;
    /* sm_90, or sm_90a where the space asks for the architecture's own features */
    if (space_user_arch(u, sp->path, cc, ub->arch, sizeof ub->arch, err, len) != 0) {
        user_close(&ub->base);
        return -1;
    }
    if (!o->modules) {
        *out = &ub->base;
        return 0;
    }
    const char *kind = o->compiler ? o->compiler : u->compiler;
    if (compiler_probe(kind, cc, &ub->cc, err, len) != 0 ||
        !(ub->digest = digest_files(&u->kernel, err, len)) ||
        (u->ref == SU_REF_KERNEL && !(ub->ref_digest = digest_files(&u->ref_kernel, err, len))))
        goto fail;
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].compare == SU_CMP_CHECK &&
            !(ub->check_digest[i] = digest_files(&u->args[i].check->kernel, err, len)))
            goto fail;
    if (pool_open(o->cache_dir, o->jobs, NULL, &ub->pool, err, len) != 0)
        goto fail;
    if (!o->quiet_precheck && precheck(ub, err, len) != 0)
        goto fail;
    *out = &ub->base;
    return 0;
fail:
    user_close(&ub->base);
    return -1;
}

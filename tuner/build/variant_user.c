/* variant_user.c: the variant builder of a user kernel (variant.h). A variant whose geometry
 * exceeds the device is unsupported before anything is compiled; any other is compiled by the
 * pool (pool.h) with the space's compiler (compiler.h): one compilation per variant holds every
 * launch of a pipeline and looks up the variables the arguments fill. A compiled variant whose
 * block has more threads than its kernel's __launch_bounds__ allow (module_meta.max_threads) is
 * unsupported too, without running; one whose `symbol:` buffer is larger than the variable it
 * fills (its size read from the cubin, cubin.h) stops the run, as do arguments that do not match
 * the kernel's parameters (checked before anything is measured). The task's reference (the
 * kernel at the reference config, or a reference kernel) and check kernels are compiled once
 * per binding, with parameters out of scope. */
#include "variant.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler.h"
#include "core/files.h"
#include "core/module_meta.h"
#include "cubin.h"
#include "kernel_signature.h"
#include "pool.h"
#include "space/space_user.h"

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

/* Compiles kernel k now: 0 with *cubin, 1 refused (log), -1 err. */
static int compile_now(user_builder *ub, const space_binding *bind, const int *choice,
                       const su_kernel *k, const char *digest, int with_symbols,
                       const char **cubin, char *log, size_t loglen, char *err, size_t len)
{
    su_compile sc;
    pool_compile pc;
    if (describe(ub, bind, choice, k, digest, with_symbols, &sc, &pc, err, len) != 0)
        return -1;
    int rc = pool_get(ub->pool, &pc, cubin, log, loglen, err, len);
    su_compile_clear(&sc);
    return rc;
}

/* A macro of the space's defines that the source #defines again, from the log of a compile that
 * went through: NVRTC (and nvcc's front end) warn "incompatible redefinition of macro "TILE"",
 * the host preprocessor nvcc runs first ""TILE" redefined". The compile then used the source's
 * value, not the space's, so every config of that macro would measure the same kernel. -1 with
 * err naming the define, where the source defines it, and what to do; 0 when none. */
static int check_defines_reach(const user_builder *ub, const module_meta *mm, char *err,
                               size_t len)
{
    const space *sp = ub->sp;
    const su_kernel *k = &sp->user->kernel;
    if (!k->n_defines)
        return 0;
    int rc = 0;
    for (const char *line = mm->log ? mm->log : ""; *line && rc == 0;) {
        size_t n = strcspn(line, "\n");
        const char *name = NULL, *warn = NULL;
        size_t name_n = 0;
        const char *a = strstr(line, "incompatible redefinition of macro \"");
        const char *b = strstr(line, "\" redefined");
        if (a && a < line + n) {
            name = a + 36;
            name_n = strcspn(name, "\"\n");
            warn = strstr(line, ": warning");
        } else if (b && b < line + n && (warn = strstr(line, ": warning: \"")) && warn < b) {
            name = warn + 12;
            name_n = (size_t)(b - name);
        }
        for (int i = 0; name && warn && warn < line + n && i < k->n_defines; i++) {
            if (strlen(k->define_names[i]) != name_n ||
                strncmp(k->define_names[i], name, name_n) != 0)
                continue;
            const char *where = line;
            const char *slash = NULL;
            for (const char *q = line; q < warn; q++)
                if (*q == '/')
                    slash = q;
            if (slash)
                where = slash + 1;
            const su_expr *x = k->define_values[i].text || !k->define_conds
                                   ? &k->define_values[i] : &k->define_conds[i];
            snprintf(err, len, "%s:%d:%d: error: kernel.defines %s does not reach the kernel: "
                     "%.*s #defines %s itself, and its value wins over -D%s=... (the "
                     "compiler warns of the redefinition), so every config would compile the "
                     "same kernel; leave %s out of the defines, or guard the source's #define "
                     "with #ifndef %s", sp->path, x->line, x->col, k->define_names[i],
                     (int)(warn - where), where, k->define_names[i], k->define_names[i],
                     k->define_names[i], k->define_names[i]);
            rc = -1;
            break;
        }
        line += n + (line[n] == '\n');
    }
    return rc;
}

/* Each buffer that fills a module variable (`symbol:`) against the variable's size in the
 * cubin's symbol table, at config choice (NULL: parameters out of scope, a reference kernel): a
 * buffer larger than its variable stops the run; a smaller one fills the variable's first
 * bytes, as a partial cudaMemcpyToSymbol does (a table of MAX_TAPS filled up to the taps in
 * use). A variable the table does not have is left to the worker, which names it. */
static int check_symbols(const user_builder *ub, const space_binding *bind, const int *choice,
                         const char *cubin, const module_meta *mm, char *err, size_t len)
{
    const space *sp = ub->sp;
    const space_user *u = sp->user;
    if (!u->n_symbols)
        return 0;
    const char **names = calloc((size_t)u->n_args, sizeof *names);
    int *arg = calloc((size_t)u->n_args, sizeof *arg);
    int64_t *sizes = calloc((size_t)u->n_args, sizeof *sizes);
    int n = 0, rc = -1;
    if (!names || !arg || !sizes) {
        snprintf(err, len, "out of memory");
        goto done;
    }
    /* the meta file lists the variables in the order of the arguments that fill them */
    for (int i = 0; i < u->n_args && n < mm->n_symbols; i++)
        if (u->args[i].symbol) {
            names[n] = mm->symbols[n];
            arg[n++] = i;
        }
    if (cubin_file_symbol_sizes(cubin, n, names, sizes, err, len) != 0)
        goto done;
    for (int j = 0; j < n; j++) {
        const su_arg *a = &u->args[arg[j]];
        int64_t count, bytes;
        if (sizes[j] < 0)
            continue;
        if (space_user_arg_bytes(sp, bind, choice, a, &count, &bytes, err, len) != 0)
            goto done;
        if (bytes > sizes[j]) {
            char cfg[400] = "";
            if (choice && sp->n_params) {
                memcpy(cfg, ", config ", 9);
                space_config_text(sp, choice, cfg + 9, sizeof cfg - 9);
            }
            int t = a->type == SU_DTYPE ? su_type_parse(bind->dtype) : a->type;
            snprintf(err, len, "%s:%d:%d: error: kernel.args %s: %" PRId64 " elements of %s (%"
                     PRId64 " bytes) for variable %s, which holds %" PRId64 " bytes (%s %s%s)",
                     sp->path, a->count.line, a->count.col, a->name, count, su_type_name(t),
                     bytes, a->symbol, sizes[j], bind->dtype, bind->problem->text, cfg);
            goto done;
        }
    }
    rc = 0;
done:
    free(names);
    free(arg);
    free(sizes);
    return rc;
}

/* Whether each launch of kernel k at config choice (NULL: parameters out of scope) has no more
 * threads a block than its compiled kernel's __launch_bounds__ allow (module_meta.max_threads,
 * the .maxntid of its PTX): 1; 0 with why, where the GPU would refuse the launch (the variant
 * is unsupported); -1 with err. with_symbols as k was compiled. */
static int within_launch_bounds(const user_builder *ub, const space_binding *bind,
                                const int *choice, const su_kernel *k, int with_symbols,
                                const module_meta *mm, char *why, size_t why_len, char *err,
                                size_t len)
{
    const space *sp = ub->sp;
    int any = 0;
    for (int i = 0; i < mm->n_kernels; i++)
        any |= mm->max_threads[i] > 0;
    if (!any)
        return 1;
    su_compile sc;
    if (space_user_compile(sp, bind, choice, k, with_symbols, &sc, err, len) != 0)
        return -1;
    int rc = 1;
    for (int li = 0; li < k->n_launches && rc == 1; li++) {
        const su_launch_spec *l = &k->launches[li];
        int ki = su_compile_kernel_index(sp, bind, choice, k, &sc, li, err, len);
        su_geometry g;
        if (ki < 0 || space_user_geometry(sp, bind, choice, l, &g, err, len) != 0) {
            rc = -1;
            break;
        }
        char w[400];
        if (ki < mm->n_kernels &&
            module_meta_beyond_bounds(mm->max_threads[ki], l->function,
                                      (long long)(g.block[0] * g.block[1] * g.block[2]), w,
                                      sizeof w)) {
            if (k->n_launches > 1)
                snprintf(why, why_len, "launch %d (%s): %s", li, l->function, w);
            else
                snprintf(why, why_len, "%s", w);
            rc = 0;
        }
    }
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
    int got = compile_now(ub, bind, choice, &ub->sp->user->kernel, ub->digest, 1, &out->module,
                          out->why, sizeof out->why, err, len);
    if (got < 0)
        return -1;
    if (got == 1) {
        out->state = VB_REFUSED;
        out->module = NULL;
        return 0;
    }
    module_meta mm;
    if (module_meta_read(out->module, &mm, err, len) != 0)
        return -1;
    int within = 1;
    if (check_defines_reach(ub, &mm, err, len) != 0 ||
        check_symbols(ub, bind, choice, out->module, &mm, err, len) != 0 ||
        (within = within_launch_bounds(ub, bind, choice, &ub->sp->user->kernel, 1, &mm,
                                       out->why, sizeof out->why, err, len)) < 0) {
        module_meta_clear(&mm);
        return -1;
    }
    module_meta_clear(&mm);
    if (!within) {
        out->state = VB_UNSUPPORTED;
        out->module = NULL;
    }
    return 0;
}

/* The first lines of a log, on one line. */
static void log_head(const char *log, char *out, size_t len)
{
    size_t o = 0;
    int lines = 0;
    for (const char *p = log; *p && o + 1 < len && lines < 3; p++) {
        if (*p == '\n') {
            lines++;
            if (p[1] && lines < 3 && o + 3 < len) {
                out[o++] = ' ';
                out[o++] = '|';
                out[o++] = ' ';
            }
            continue;
        }
        out[o++] = *p;
    }
    out[o] = 0;
}

/* The reference kernel's and check kernels' modules of a binding. */
static int task_modules(user_builder *ub, const space_binding *bind, vb_task *task, char *err,
                        size_t len)
{
    const space *sp = ub->sp;
    const space_user *u = sp->user;
    char log[8192], head[1024];
    if (u->ref == SU_REF_CONFIG || u->ref == SU_REF_KERNEL) {
        int got = u->ref == SU_REF_CONFIG
                      ? compile_now(ub, bind, u->ref_choice, &u->kernel, ub->digest, 1,
                                    &task->ref_module, log, sizeof log, err, len)
                      : compile_now(ub, bind, NULL, &u->ref_kernel, ub->ref_digest, 1,
                                    &task->ref_module, log, sizeof log, err, len);
        if (got < 0)
            return -1;
        if (got == 1) {
            log_head(log, head, sizeof head);
            snprintf(err, len, "%s:%d:%d: error: the reference does not compile for %s %s: %s",
                     sp->path, u->ref_line, u->ref_col, bind->dtype, bind->problem->text, head);
            return -1;
        }
        /* it must run: its variables hold its buffers, its blocks keep within its bounds */
        const int *choice = u->ref == SU_REF_CONFIG ? u->ref_choice : NULL;
        const su_kernel *k = u->ref == SU_REF_CONFIG ? &u->kernel : &u->ref_kernel;
        module_meta mm;
        if (module_meta_read(task->ref_module, &mm, err, len) != 0)
            return -1;
        int within = 1;
        if (check_symbols(ub, bind, choice, task->ref_module, &mm, err, len) != 0 ||
            (within = within_launch_bounds(ub, bind, choice, k, 1, &mm, head, sizeof head, err,
                                           len)) < 0) {
            module_meta_clear(&mm);
            return -1;
        }
        module_meta_clear(&mm);
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
                              log, sizeof log, err, len);
        if (got < 0)
            return -1;
        if (got == 1) {
            log_head(log, head, sizeof head);
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

/* A launch's buffers against the pointers its kernel takes, where the kernel's lowered name
 * says their types (C++ linkage): a buffer passed, or passed again (`pointer:`), to a pointer
 * to an arithmetic type of another kind or size stops the run. */
static int check_pointees(const space *sp, const space_binding *bind, const su_launch_spec *l,
                          const char *lowered, const char *who, char *err, size_t len)
{
    const space_user *u = sp->user;
    char **types = NULL;
    int n = 0, rc = kernel_signature_params(lowered, &types, &n);
    if (rc != 0) {
        if (rc < 0)
            snprintf(err, len, "out of memory");
        return rc < 0 ? -1 : 0;
    }
    for (int i = 0; i < n && i < l->n_args && rc == 0; i++) {
        const su_arg *a = &u->args[l->args[i]];
        int b = a->is_buffer ? l->args[i]
                : a->is_pointer && a->record && a->record->n == 1 ? a->record->members[0].buffer
                : -1;
        if (b < 0)
            continue;
        const su_arg *buf = &u->args[b];
        const char *elem = buf->type == SU_DTYPE ? bind->dtype : su_type_name(buf->type);
        char pointee[128];
        if (elem && !kernel_pointer_takes(types[i], elem, pointee, sizeof pointee)) {
            char of_dtype[80] = "";
            if (sp->n_dtypes > 1)
                snprintf(of_dtype, sizeof of_dtype, " (dtype %s)", bind->dtype);
            snprintf(err, len, "%s:%d:%d: error: %s %s: a buffer of %s%s, but parameter %d of %s "
                     "points to %s as compiled (%s): a macro or template argument that picks "
                     "the type?", sp->path, a->line, a->col, who, a->name, elem, of_dtype, i + 1,
                     l->function, pointee, types[i]);
            rc = -1;
        }
    }
    kernel_signature_free(types, n);
    return rc;
}

/* Each launch's arguments against its kernel's parameters in the compiled module (mm, the
 * meta file of cubin), and the buffers that fill its variables against their sizes. */
static int check_params(user_builder *ub, const space_binding *bind, const int *choice,
                        const char *cubin, const module_meta *mm, char *err, size_t len)
{
    const space *sp = ub->sp;
    const space_user *u = sp->user;
    const su_kernel *k = &u->kernel;
    su_compile sc;
    int rc = -1;
    if (space_user_compile(sp, bind, choice, k, 1, &sc, err, len) != 0)
        return -1;
    for (int li = 0; li < k->n_launches; li++) {
        const su_launch_spec *l = &k->launches[li];
        int ki = su_compile_kernel_index(sp, bind, choice, k, &sc, li, err, len);
        if (ki < 0 || ki >= mm->n_kernels) {
            if (ki >= 0)
                snprintf(err, len, "%s: the compiler recorded %d kernels", cubin, mm->n_kernels);
            goto done;
        }
        int n = mm->n_params[ki];
        const su_arg *first = l->n_args ? &u->args[l->args[0]] : NULL;
        int line = first ? first->line : l->line, col = first ? first->col : l->col;
        char who[300];
        if (k->n_launches > 1)
            snprintf(who, sizeof who, "kernel.launches[%d].args", li);
        else
            snprintf(who, sizeof who, "kernel.args");
        if (n != l->n_args) {
            snprintf(err, len, "%s:%d:%d: error: %s lists %d argument%s%s, but %s takes %d "
                     "parameter%s", sp->path, line, col, who, l->n_args,
                     l->n_args == 1 ? "" : "s", u->n_symbols && k->n_launches == 1
                                                    ? " (besides the variables it fills)" : "",
                     l->function, n, n == 1 ? "" : "s");
            goto done;
        }
        for (int i = 0; i < n; i++) {
            const su_arg *a = &u->args[l->args[i]];
            size_t want;
            if (space_user_value_size(sp, bind, a, &want, err, len) != 0)
                goto done;
            if (mm->params[ki][i] != (int)want) {
                int t = a->type == SU_DTYPE ? su_type_parse(bind->dtype) : a->type;
                char of_dtype[80] = "";
                if (sp->n_dtypes > 1)
                    snprintf(of_dtype, sizeof of_dtype, " for dtype %s", bind->dtype);
                snprintf(err, len, "%s:%d:%d: error: %s %s: %s (%zu bytes%s), but parameter %d "
                         "of %s takes %d bytes%s", sp->path, a->line, a->col, who, a->name,
                         a->is_buffer || a->is_pointer ? "a pointer"
                         : a->texture ? "a texture object" : a->tensor_map ? "a tensor map"
                         : a->record ? "a struct"
                         : su_type_name(t),
                         want, of_dtype, i + 1, l->function, mm->params[ki][i],
                         a->record && !a->is_pointer
                             ? " (`tuner space` shows the struct's layout, field by field)" : "");
                goto done;
            }
        }
        if (check_pointees(sp, bind, l, mm->lowered[ki], who, err, len) != 0)
            goto done;
    }
    rc = check_symbols(ub, bind, choice, cubin, mm, err, len);
done:
    su_compile_clear(&sc);
    return rc;
}

/* When the defines are the default (every parameter the source names), what the compile was
 * given, as a hint appended to a refusal: a parameter named like a variable of the code
 * (block_size in a launcher, width) becomes a macro that breaks it. */
static void default_defines_hint(const su_kernel *k, char *out, size_t len)
{
    if (!k->defines_default || len < 2)
        return;
    if (!k->n_defines) {
        snprintf(out, len, " (kernel.defines is not given and the kernel's files name no "
                 "parameter, so none was passed as a macro: one the kernel reads through a "
                 "header the tuner does not find, or a pasted name, goes in kernel.defines)");
        return;
    }
    size_t o = (size_t)snprintf(out, len, " (kernel.defines is not given, so each parameter "
                                "the source names is passed as a macro:");
    for (int i = 0; i < k->n_defines && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, " -D%s=...", k->define_names[i]);
    if (o < len)
        snprintf(out + o, len - o, "; where one is also a name in the code, list the macros in "
                 "kernel.defines, or write defines: {} for none)");
}

/* Whether a refusal's log says the kernel's template arguments fit no instance of its template
 * (NVRTC: "cannot determine which instance of function template" at the name expression; nvcc:
 * the wrapper's `auto` of &K<...> that nothing deduces), with the instance written, into inst;
 * 1 when it does. */
static int template_mismatch(const char *log, char *inst, size_t len)
{
    const char *at = NULL, *from = NULL;
    if (strstr(log, "cannot determine which instance of function template") &&
        (at = strstr(log, "nv_mangled_name ")))
        from = at + 16;
    else if (strstr(log, "cannot deduce \"auto\" type") && (at = strstr(log, "tunekit_instance_")) &&
             (at = strstr(at, "= &")))
        from = at + 3;
    if (!from)
        return 0;
    size_t n = strcspn(from, ";\n");
    snprintf(inst, len, "%.*s", (int)n, from);
    return 1;
}

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
                              sizeof log, err, len);
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
        log_head(first_log ? first_log : "no log", head, 1024);
        default_defines_hint(&u->kernel, head + strlen(head), sizeof head - strlen(head));
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
        else if (first_log && l0->n_template && template_mismatch(first_log, inst, sizeof inst))
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
    int failed = check_params(ub, &bind, choice, cubin, &mm, err, len) != 0 ||
                 check_defines_reach(ub, &mm, err, len) != 0;
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
                                  sizeof log, err, len);
            if (got == 0) {
                module_meta dm;
                bad = module_meta_read(dc, &dm, err, len) != 0 ||
                      check_params(ub, &bd, choice, dc, &dm, err, len) != 0 ? 1 : 2;
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

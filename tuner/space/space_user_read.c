/* space_user_read.c: reading a space file's user kernel (docs/user-kernels.md) with positioned
 * errors: the entry points the space loader calls (the family, op and dtypes before problems and
 * params; the kernel, its arguments and the reference after them) and the `reference:`. The
 * `kernel:` mapping's kernels and launches are space_user_kernel.c, the arguments and their
 * comparison plans space_user_args.c, the expressions and lists every part of it reads
 * space_user_nodes.c; space_user_eval.c evaluates what is read. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "measure/device_settings.h"
#include "build/compiler.h"
#include "ops/ops.h"
#include "space_user_internal.h"

/* ---- loading: the parts that come before problems and params ---- */

static const char *const kernel_keys[] = {"source", "function", "template", "defines", "options",
                                          "include_dirs", "family", "args", "grid", "block",
                                          "shared_bytes", "bytes", "elements", "flops", "peer",
                                          "compiler", "launches", "name", "cluster",
                                          "cooperative", "arch_suffix"};

int su_load_head(loader *L, const ynode *kernel, const ynode *dtypes)
{
    space *sp = L->sp;
    space_user *u = calloc(1, sizeof *u);
    if (!u)
        return sl_fail_at(L, kernel, "out of memory");
    sp->user = u;
    if (sl_check_keys(L, kernel, "kernel", kernel_keys,
                      (int)(sizeof kernel_keys / sizeof *kernel_keys)) != 0)
        return -1;
    /* a space that extends another takes the other's folder for the kernel's relative paths
     * and its default family */
    const char *home = L->base_path ? L->base_path : sp->path;
    if (!(u->dir = su_dir_of(home)) || (L->base_path && !(u->base = strdup(L->base_path))))
        return sl_fail_at(L, kernel, "out of memory");
    /* the op: `name`, else the function's (the first launch's) */
    const ynode *v = ynode_get(kernel, "name");
    const char *fn, *what = "kernel.name";
    if (!v) {
        const ynode *ls = ynode_get(kernel, "launches");
        v = ynode_get(kernel, "function");
        what = "kernel.function";
        if (!v && ls && ls->kind == YNODE_SEQ && ls->n > 0 && ls->items[0]->kind == YNODE_MAP) {
            v = ynode_get(ls->items[0], "function");
            what = "kernel.launches[0].function";
        }
    }
    if (!v)
        return sl_fail_at(L, kernel, "kernel: missing required key 'function' (or launches:)");
    if (sl_get_string(L, v, what, &fn) != 0)
        return -1;
    if (!(u->op = su_base_name(fn)))
        return sl_fail_at(L, v, "out of memory");
    if (!su_is_identifier(u->op))
        return sl_fail_at(L, v, "%s: '%.60s' is not a name", what, fn);
    if ((v = ynode_get(kernel, "family"))) {
        const char *name;
        if (sl_get_string(L, v, "kernel.family", &name) != 0)
            return -1;
        if (!su_is_identifier(name))
            return sl_fail_at(L, v, "kernel.family: '%.60s' is not a name", name);
        if (!(u->family = strdup(name)))
            return sl_fail_at(L, v, "out of memory");
    } else {
        /* the space file's folder, as a name: the folder itself, however the path was given
         * (`tuner run saxpy.yaml` inside it, and the worker's absolute path, name the same) */
        char *abs = realpath(home, NULL);
        char *dir = su_dir_of(abs ? abs : home);
        free(abs);
        const char *base = dir && strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        if (!base || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
            base = "user";
        u->family = strdup(base);
        free(dir);
        if (!u->family)
            return sl_fail_at(L, kernel, "out of memory");
        for (char *p = u->family; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_')
                *p = '_';
        if (isdigit((unsigned char)u->family[0]))
            u->family[0] = '_';
        v = kernel;
    }
    if (op_family_find(u->family))
        return sl_fail_at(L, v, "kernel.family: '%s' is a built-in family; give this kernel a "
                                "family of its own (kernel.family)", u->family);
    if (!(sp->kernel = strdup(u->family)) || !(sp->ops = calloc(1, sizeof *sp->ops)) ||
        !(sp->ops[0] = strdup(u->op)))
        return sl_fail_at(L, kernel, "out of memory");
    sp->n_ops = 1;
    /* dtypes: as given, else the first output buffer's type */
    if (dtypes) {
        if (sl_expect_kind(L, dtypes, YNODE_SEQ, "dtypes") != 0)
            return -1;
        if (dtypes->n == 0)
            return sl_fail_at(L, dtypes, "dtypes: the list is empty");
        if (!(sp->dtypes = calloc((size_t)dtypes->n, sizeof *sp->dtypes)))
            return sl_fail_at(L, dtypes, "out of memory");
        for (int i = 0; i < dtypes->n; i++) {
            const char *name;
            if (sl_get_string(L, dtypes->items[i], "dtypes", &name) != 0)
                return -1;
            if (su_type_parse(name) < 0)
                return sl_fail_at(L, dtypes->items[i], "dtypes: unknown type '%.60s'", name);
            for (int j = 0; j < i; j++)
                if (strcmp(sp->dtypes[j], name) == 0)
                    return sl_fail_at(L, dtypes->items[i], "dtypes: '%s' is listed twice", name);
            if (!(sp->dtypes[i] = strdup(name)))
                return sl_fail_at(L, dtypes, "out of memory");
            sp->n_dtypes = i + 1;
        }
        return 0;
    }
    const ynode *args = ynode_get(kernel, "args");
    const char *type = NULL;
    for (int i = 0; args && args->kind == YNODE_SEQ && i < args->n && !type; i++) {
        const ynode *a = args->items[i], *b, *o;
        int out = 0;
        if (a->kind == YNODE_MAP && (b = ynode_get(a, "buffer")) && b->kind == YNODE_SCALAR &&
            (o = ynode_get(a, "output")) && o->kind == YNODE_SCALAR &&
            strcmp(o->text, "true") == 0)
            out = 1;
        if (out) {
            type = b->text;
            if (strcmp(type, "dtype") == 0)
                return sl_fail_at(L, b, "kernel.args: 'buffer: dtype' needs a dtypes: list");
        }
    }
    if (!type)
        type = "f32";   /* the body reports the missing output */
    if (!(sp->dtypes = calloc(1, sizeof *sp->dtypes)) || !(sp->dtypes[0] = strdup(type)))
        return sl_fail_at(L, kernel, "out of memory");
    sp->n_dtypes = 1;
    return 0;
}

/* A user kernel's problem fields: the keys of its first problem, every one an integer that
 * every problem gives. */
int su_load_fields(loader *L, const ynode *problems)
{
    space *sp = L->sp;
    if (sl_expect_kind(L, problems, YNODE_SEQ, "problems") != 0)
        return -1;
    if (problems->n == 0)
        return sl_fail_at(L, problems, "problems: the list is empty");
    const ynode *first = problems->items[0];
    if (sl_expect_kind(L, first, YNODE_MAP, "problems") != 0)
        return -1;
    if (first->n == 0)
        return sl_fail_at(L, first, "problems: a problem needs at least one field");
    if (first->n > 64)
        return sl_fail_at(L, first, "problems: more than 64 fields");
    problem_field *f = calloc((size_t)first->n, sizeof *f);
    if (!f)
        return sl_fail_at(L, first, "out of memory");
    sp->fields = f;
    for (int k = 0; k < first->n; k++) {
        const ynode *key = first->items[2 * k];
        if (!su_is_identifier(key->text))
            return sl_fail_at(L, key, "problems: '%.60s' is not a name expressions can read",
                              key->text);
        if (space_is_given_name(key->text))
            return sl_fail_at(L, key, "problems: '%s' is a name the tuner gives (dtype, "
                                      "dtype_size, ctype, op or a device attribute)", key->text);
        if (!(f[k].name = strdup(key->text)))
            return sl_fail_at(L, key, "out of memory");
        f[k].required = 1;
        f[k].min = INT64_MIN;
        f[k].max = INT64_MAX;
        sp->n_fields = k + 1;
    }
    return 0;
}

/* ---- loading: the parts bound to parameters ---- */

static int read_reference(su_ctx *c, const ynode *ref)
{
    static const char *const keys[] = {"config", "kernel", "file"};
    static const char *const ref_kernel_keys[] = {"source", "function", "template", "defines",
                                                  "options", "include_dirs", "grid", "block",
                                                  "shared_bytes", "cluster", "cooperative"};
    loader *L = c->L;
    space *sp = L->sp;
    space_user *u = c->u;
    u->ref_line = ref->line;
    u->ref_col = ref->col;
    if (sl_expect_kind(L, ref, YNODE_MAP, "reference") != 0 ||
        sl_check_keys(L, ref, "reference", keys, 3) != 0)
        return -1;
    if (ref->n != 1)
        return sl_fail_at(L, ref, "reference: give one of config, kernel or file");
    const char *kind = ref->items[0]->text;
    const ynode *v = ref->items[1];
    if (strcmp(kind, "config") == 0) {
        u->ref = SU_REF_CONFIG;
        if (sl_expect_kind(L, v, YNODE_MAP, "reference.config") != 0)
            return -1;
        if (!(u->ref_choice = calloc((size_t)sp->n_params + 1, sizeof *u->ref_choice)))
            return sl_fail_at(L, v, "out of memory");
        for (int p = 0; p < sp->n_params; p++) {
            const ynode *x = ynode_get(v, sp->params[p].name);
            if (!x && devset_param_index(sp->params[p].name) >= 0) {
                /* a device setting: the reference runs as the driver has the GPU */
                u->ref_choice[p] = 0;
                for (int k = 0; k < sp->params[p].n_values; k++)
                    if (value_equal(sp->params[p].values[k], value_int(0))) u->ref_choice[p] = k;
                continue;
            }
            if (!x)
                return sl_fail_at(L, v, "reference.config: missing parameter '%s'",
                                  sp->params[p].name);
            int64_t i;
            value want = sl_is_int_scalar(x, &i) ? value_int(i) : value_string(x->text);
            int found = -1;
            for (int k = 0; k < sp->params[p].n_values && found < 0; k++)
                if (value_equal(sp->params[p].values[k], want))
                    found = k;
            if (found < 0)
                return sl_fail_at(L, x, "reference.config: %s = %.60s is not one of the "
                                        "parameter's values", sp->params[p].name, x->text);
            u->ref_choice[p] = found;
        }
        for (int k = 0; k < v->n; k++) {
            const ynode *key = v->items[2 * k];
            int known = 0;
            for (int p = 0; p < sp->n_params && !known; p++)
                known = strcmp(sp->params[p].name, key->text) == 0;
            if (!known)
                return sl_fail_at(L, key, "reference.config: unknown parameter '%.60s'",
                                  key->text);
        }
        return 0;
    }
    if (strcmp(kind, "kernel") == 0) {
        u->ref = SU_REF_KERNEL;
        if (sl_expect_kind(L, v, YNODE_MAP, "reference.kernel") != 0 ||
            sl_check_keys(L, v, "reference.kernel", ref_kernel_keys, 11) != 0)
            return -1;
        if (u->kernel.n_launches > 1)
            return sl_fail_at(L, v, "reference.kernel: a pipeline's reference is a config of "
                                    "its own (reference: config:) or files");
        su_ctx rc = *c;
        rc.allow_params = 0;
        rc.where = "a reference kernel's expressions see the problem, dtype and device only";
        return su_read_kernel(&rc, v, &u->ref_kernel, "reference.kernel", KK_REFERENCE);
    }
    u->ref = SU_REF_FILE;
    if (sl_expect_kind(L, v, YNODE_MAP, "reference.file") != 0)
        return -1;
    if (!(u->ref_files = calloc((size_t)u->n_args + 1, sizeof *u->ref_files)))
        return sl_fail_at(L, v, "out of memory");
    for (int k = 0; k < v->n; k++) {
        const ynode *key = v->items[2 * k];
        int i;
        for (i = 0; i < u->n_args; i++)
            if (strcmp(u->args[i].name, key->text) == 0)
                break;
        if (i == u->n_args || !u->args[i].output)
            return sl_fail_at(L, key, "reference.file: '%.60s' is not an output buffer",
                              key->text);
        const char *f;
        if (sl_get_string(L, v->items[2 * k + 1], "reference.file", &f) != 0)
            return -1;
        if (!(u->ref_files[i] = su_path_join(u->dir, f)))
            return sl_fail_at(L, key, "out of memory");
    }
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].output && !u->ref_files[i])
            return sl_fail_at(L, v, "reference.file: no file for output '%s'", u->args[i].name);
    return 0;
}

/* `inputs:` of a space that extends another: per argument, a buffer's contents from a file
 * ({ file: PATH }, relative to this space's own folder) or a scalar's value ({ value: EXPR }).
 * Read after the kernel's hash: the kernel is the base's, its inputs are the capture's. */
static int read_inputs(loader *L, space_user *u)
{
    static const char *const keys[] = {"file", "value"};
    const ynode *in = L->inputs;
    char *own = su_dir_of(L->sp->path);
    if (!own)
        return sl_fail_at(L, in, "out of memory");
    int rc = 0;
    for (int k = 0; k < in->n && rc == 0; k++) {
        const ynode *key = in->items[2 * k], *v = in->items[2 * k + 1];
        char w[160];
        snprintf(w, sizeof w, "inputs.%.60s", key->text);
        su_arg *a = NULL;
        for (int i = 0; i < u->n_args && !a; i++)
            if (strcmp(u->args[i].name, key->text) == 0)
                a = &u->args[i];
        if (!a) {
            rc = sl_fail_at(L, key, "%s: the kernel has no argument '%.60s'", w, key->text);
            break;
        }
        if (sl_expect_kind(L, v, YNODE_MAP, w) != 0 || sl_check_keys(L, v, w, keys, 2) != 0) {
            rc = -1;
            break;
        }
        const ynode *file = ynode_get(v, "file"), *value = ynode_get(v, "value");
        const char *f;
        if (a->is_buffer && file && !value) {
            if (sl_get_string(L, file, w, &f) != 0) {
                rc = -1;
                break;
            }
            if (!su_arg_reads(a)) {
                rc = sl_fail_at(L, file, "%s: %s is a pure output (nothing is read from it)", w,
                                a->name);
                break;
            }
            free(a->file);
            a->init = SU_INIT_FILE;
            struct stat st;
            if (!(a->file = su_path_join(own, f)))
                rc = sl_fail_at(L, file, "out of memory");
            else if (!strchr(a->file, '{') && stat(a->file, &st) != 0)
                rc = sl_fail_at(L, file, "%s: %s: %s", w, a->file, strerror(errno));
        } else if ((a->record || a->texture || a->tensor_map) && value) {
            rc = sl_fail_at(L, value, "%s: %s is a %s: a capture gives no value for it", w,
                            a->name, a->is_pointer ? "pointer" : a->texture ? "texture"
                                     : a->tensor_map ? "tensor map" : "struct");
            break;
        } else if (!a->is_buffer && value && !file) {
            su_ctx c = {L, u, 0, "a captured value is a number"};
            su_expr x = {0};
            if (su_read_expr(&c, value, w, 0, &x) != 0) {
                rc = -1;
                break;
            }
            su_expr_clear(&a->value);
            a->value = x;
        } else {
            rc = sl_fail_at(L, v, "%s: give { file: PATH } for a buffer, { value: NUMBER } for a "
                                  "scalar", w);
        }
    }
    free(own);
    return rc;
}

/* Every parameter the kernel's files name as -D name=value: the default when neither defines
 * nor template is given. A parameter the code never names cannot change it, and as a macro it
 * could only break a toolkit header that uses the word (a parameter `width` against
 * `unsigned int width;` in CUDA's own headers): it is left launch-only. */
static int default_defines(loader *L, const ynode *kernel, su_kernel *k)
{
    space *sp = L->sp;
    k->define_names = calloc((size_t)sp->n_params, sizeof *k->define_names);
    k->define_values = calloc((size_t)sp->n_params, sizeof *k->define_values);
    const char **names = calloc((size_t)sp->n_params, sizeof *names);
    int *named = calloc((size_t)sp->n_params, sizeof *named);
    if (!k->define_names || !k->define_values || !names || !named) {
        free(names);
        free(named);
        return sl_fail_at(L, kernel, "out of memory");
    }
    k->defines_default = 1;
    for (int p = 0; p < sp->n_params; p++)
        names[p] = sp->params[p].name;
    char err[512];
    int rc = su_kernel_names(k, names, sp->n_params, named, err, sizeof err);
    free(names);
    if (rc != 0) {
        free(named);
        return sl_fail_at(L, kernel, "%s", err);
    }
    for (int p = 0, n = 0; p < sp->n_params; p++) {
        /* a device setting (gpu_clock_mhz, ...) is the worker's, not the kernel's */
        if (devset_param_index(sp->params[p].name) >= 0 || !named[p]) continue;
        k->n_defines = n + 1;
        if (!(k->define_names[n] = strdup(sp->params[p].name)) ||
            !(k->define_values[n].text = strdup(sp->params[p].name))) {
            free(named);
            return sl_fail_at(L, kernel, "out of memory");
        }
        expr_error e;
        su_bind_ctx b = {sp, 1, NULL};
        k->define_values[n].line = sp->params[p].line;
        k->define_values[n].col = sp->params[p].col;
        if (!(k->define_values[n].e = expr_parse(sp->params[p].name, &e)) ||
            expr_bind(k->define_values[n].e, su_resolve_name, &b, &e) != 0) {
            free(named);
            return sl_fail_at(L, kernel, "parameter %s: %s", sp->params[p].name, e.message);
        }
        n++;
    }
    free(named);
    return 0;
}

int su_load_body(loader *L, const ynode *kernel, const ynode *reference)
{
    space *sp = L->sp;
    space_user *u = sp->user;
    su_ctx c = {L, u, 1, NULL};
    const ynode *v;
    /* the compiler */
    const char *cc = "nvrtc";
    if ((v = ynode_get(kernel, "compiler"))) {
        if (sl_get_string(L, v, "kernel.compiler", &cc) != 0)
            return -1;
        if (!compiler_kind_known(cc))
            return sl_fail_at(L, v, "kernel.compiler: '%.60s' (expected nvrtc or nvcc)", cc);
    }
    if (!(u->compiler = strdup(cc)))
        return sl_fail_at(L, kernel, "out of memory");
    /* sm_90a's architecture-specific instructions (wgmma, setmaxnreg), or a family's */
    if ((v = ynode_get(kernel, "arch_suffix"))) {
        const char *sfx;
        if (sl_get_string(L, v, "kernel.arch_suffix", &sfx) != 0)
            return -1;
        if (strcmp(sfx, "a") != 0 && strcmp(sfx, "f") != 0)
            return sl_fail_at(L, v, "kernel.arch_suffix: '%.60s' (expected a, for the GPU's "
                                    "architecture-specific features as in sm_90a, or f, for its "
                                    "family's as in sm_100f)", sfx);
        u->arch_suffix[0] = sfx[0];
        u->arch_suffix_line = v->line;
        u->arch_suffix_col = v->col;
    }
    /* the arguments first: launches name them */
    const ynode *args = ynode_get(kernel, "args");
    if (!args)
        return sl_fail_at(L, kernel, "kernel: missing required key 'args'");
    if (sl_expect_kind(L, args, YNODE_SEQ, "kernel.args") != 0)
        return -1;
    if (args->n == 0)
        return sl_fail_at(L, args, "kernel.args: the list is empty");
    if (!(u->args = calloc((size_t)args->n, sizeof *u->args)))
        return sl_fail_at(L, args, "out of memory");
    int outputs = 0;
    for (int i = 0; i < args->n; i++) {
        u->n_args = i + 1;
        if (su_read_arg(&c, args->items[i], &u->args[i], i) != 0)
            return -1;
        outputs += u->args[i].is_buffer && u->args[i].output;
    }
    if (outputs == 0)
        return sl_fail_at(L, args, "kernel.args: no buffer is an output (output: true)");
    if (su_resolve_pointers(L, u) != 0 || su_resolve_views(L, u) != 0)
        return -1;
    if (su_read_kernel(&c, kernel, &u->kernel, "kernel", KK_TUNED) != 0 ||
        su_check_views(L, u) != 0)
        return -1;
    su_kernel *k = &u->kernel;
    int templated = 0;
    for (int i = 0; i < k->n_launches; i++)
        templated |= k->launches[i].n_template > 0;
    if (!k->defines_given && !templated && sp->n_params > 0 &&
        default_defines(L, kernel, k) != 0)
        return -1;
    /* the outputs' comparison plans (a check kernel defaults to the kernel's source) */
    for (int i = 0; i < args->n; i++)
        if ((v = ynode_get(args->items[i], "compare")) && su_read_compare(&c, v, &u->args[i]) != 0)
            return -1;
    c.allow_params = 0;
    c.where = "bytes, elements and flops are per problem";
    if ((v = ynode_get(kernel, "bytes"))) {
        if (su_read_expr(&c, v, "kernel.bytes", 0, &u->bytes) != 0)
            return -1;
        u->has_bytes = 1;
    }
    if ((v = ynode_get(kernel, "elements"))) {
        if (su_read_expr(&c, v, "kernel.elements", 0, &u->elements) != 0)
            return -1;
        u->has_elements = 1;
    }
    if ((v = ynode_get(kernel, "flops"))) {
        if (su_read_expr(&c, v, "kernel.flops", 0, &u->flops) != 0)
            return -1;
        u->has_flops = 1;
    }
    if ((v = ynode_get(kernel, "peer"))) {
        const char *p;
        if (sl_get_string(L, v, "kernel.peer", &p) != 0)
            return -1;
        if (!(u->peer = su_path_join(u->dir, p)))
            return sl_fail_at(L, v, "out of memory");
        if (!su_is_file(u->peer))
            return sl_fail_at(L, v, "kernel.peer: no file %s", u->peer);
    }
    if (reference) {
        c.allow_params = 1;
        c.where = NULL;
        if (read_reference(&c, reference) != 0)
            return -1;
        if (u->ref == SU_REF_KERNEL || u->ref == SU_REF_FILE)
            for (int i = 0; i < u->n_args; i++) {
                /* the reference's launch (or files) shares the buffers: their sizes, and what an
                 * output reduces to, may not hang on a parameter the reference does not have */
                const su_arg *a = &u->args[i];
                const su_expr *x = a->is_buffer ? &a->count : &a->value;
                const char *which = NULL;
                if ((u->ref == SU_REF_FILE && !a->is_buffer) || a->texture ||
                    (a->tensor_map && u->ref == SU_REF_FILE))
                    continue;   /* a view's size is the problem's */
                if (a->tensor_map) {   /* the reference kernel copies with this box too */
                    x = &a->tensor_map->box[0];
                    for (int d = 0; d < a->tensor_map->rank; d++)
                        if (su_reads_params(sp, &a->tensor_map->box[d], &which))
                            x = &a->tensor_map->box[d];
                }
                if (a->record && !(x = su_record_reads_params(sp, a->record, &which)))
                    continue;
                if (!su_reads_params(sp, x, &which) && a->has_cmp_count)
                    x = &a->cmp_count;
                if (su_reads_params(sp, x, &which)) {
                    space_errorf(L->err, L->len, L->path, x->line, x->col,
                                 "kernel.args %s: reads parameter '%s', but the reference %s "
                                 "has no parameters (use reference: config: instead)", a->name,
                                 which, u->ref == SU_REF_KERNEL ? "kernel" : "file");
                    return -1;
                }
            }
    }
    if (su_compute_hash(L, u) != 0)
        return -1;
    return L->inputs ? read_inputs(L, u) : 0;
}

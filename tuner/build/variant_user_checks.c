/* variant_user_checks.c: what a compiled user-kernel module is held against before it runs
 * (variant_user_checks.h): the defines that reach it, the arguments against its parameters
 * (number, sizes, the pointers' element types from its C++ name, kernel_signature.h), the
 * variables its buffers fill (their sizes from the cubin, cubin.h), its __launch_bounds__; and
 * the hints of a space whose variants do not compile. */
#include "variant_user_checks.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/files.h"
#include "cubin.h"
#include "kernel_signature.h"

/* The directive of a source line ("ifdef", "else", ...: its word after '#'), into word; the
 * rest of the line after it in *rest. 0 when the line is no directive. */
static int directive(const char *line, size_t n, char *word, size_t wlen, const char **rest)
{
    const char *p = line, *e = line + n;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= e || *p++ != '#')
        return 0;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    size_t w = 0;
    while (p + w < e && isalpha((unsigned char)p[w]) && w + 1 < wlen)
        w++;
    memcpy(word, p, w);
    word[w] = 0;
    *rest = p + w;
    return w > 0;
}

/* The macro a conditional tests ("#ifdef X", "#if defined(X)", "#if defined X"), into m. */
static int tested_macro(const char *word, const char *rest, const char *end, char *m, size_t len)
{
    const char *p = rest;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (strcmp(word, "if") == 0 || strcmp(word, "elif") == 0) {
        if (end - p < 7 || strncmp(p, "defined", 7) != 0)
            return 0;
        p += 7;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '('))
            p++;
    } else if (strcmp(word, "ifdef") != 0) {
        return 0;
    }
    size_t n = 0;
    while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_'))
        n++;
    if (!n || n >= len)
        return 0;
    memcpy(m, p, n);
    m[n] = 0;
    return 1;
}

/* Where the source's #define of `name` at line `at` (1-based) of text sits in the #else of a
 * conditional that #defines it from another macro (Rodinia's "#ifdef RD_WG_SIZE_0_0 / #define
 * BLOCK_SIZE RD_WG_SIZE_0_0 / ... / #else / #define BLOCK_SIZE 16"): that macro into m, the
 * conditional's line into *if_line. 1 when so. */
static int else_of_ifdef(const char *text, int at, const char *name, char *m, size_t mlen,
                         int *if_line)
{
    const char *lines[8192];
    size_t lens[8192];
    int n = 0;
    for (const char *p = text; *p && n < 8192;) {
        size_t l = strcspn(p, "\n");
        lines[n] = p, lens[n++] = l;
        p += l + (p[l] == '\n');
    }
    if (at < 2 || at > n)
        return 0;
    char word[16];
    const char *rest;
    int depth = 0, first = 1, open = -1;
    for (int i = at - 2; i >= 0 && open < 0; i--) {
        if (!directive(lines[i], lens[i], word, sizeof word, &rest))
            continue;
        if (strcmp(word, "endif") == 0) {
            depth++;
        } else if (!strncmp(word, "if", 2)) {
            if (depth == 0)
                open = i;
            else
                depth--;
        } else if (depth == 0 && (strcmp(word, "else") == 0 || strcmp(word, "elif") == 0)) {
            if (first && strcmp(word, "else") != 0)
                return 0; /* the #define is in an #elif branch, not the #else */
            first = 0;
        }
    }
    if (open < 0 || first ||
        !directive(lines[open], lens[open], word, sizeof word, &rest) ||
        !tested_macro(word, rest, lines[open] + lens[open], m, mlen))
        return 0;
    /* the conditional's first branch #defines the name */
    for (int i = open + 1; i < n; i++) {
        if (!directive(lines[i], lens[i], word, sizeof word, &rest))
            continue;
        if (strcmp(word, "define") != 0)
            break;
        const char *p = rest, *e = lines[i] + lens[i];
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        size_t nl = strlen(name);
        if ((size_t)(e - p) > nl && strncmp(p, name, nl) == 0 &&
            !(isalnum((unsigned char)p[nl]) || p[nl] == '_')) {
            *if_line = open + 1;
            return 1;
        }
    }
    return 0;
}

/* A macro of the space's defines that the source #defines again, from the log of a compile that
 * went through: NVRTC (and nvcc's front end) warn "file(8): warning ... incompatible
 * redefinition of macro "TILE"", the host preprocessor nvcc runs first "file:8: warning: "TILE"
 * redefined". The compile then used the source's value, not the space's, so every config of that
 * macro would measure the same kernel. -1 with err naming every such define with where the
 * source defines it (file:line), and what to do: where the #define is the #else of an #ifdef
 * that takes the value from another macro, defining that one; 0 when none. */
int vu_defines_reach(const space *sp, const module_meta *mm, char *err, size_t len)
{
    const su_kernel *k = &sp->user->kernel;
    if (!k->n_defines)
        return 0;
    int hit[64] = {0}, hit_line[64] = {0}, n_hit = 0;
    char hit_file[64][256];
    for (const char *line = mm->log ? mm->log : ""; *line;) {
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
        for (int i = 0; name && warn && warn < line + n && i < k->n_defines && i < 64; i++) {
            if (hit[i] || strlen(k->define_names[i]) != name_n ||
                strncmp(k->define_names[i], name, name_n) != 0)
                continue;
            /* "dir/k.cu(8)" or "dir/k.cu:8[:col]": the file's name and the line */
            const char *where = line;
            for (const char *q = line; q < warn; q++)
                if (*q == '/')
                    where = q + 1;
            size_t f = strcspn(where, "(:");
            if (where + f > warn)
                f = (size_t)(warn - where);
            hit[i] = 1;
            hit_line[i] = atoi(where + f + (where + f < warn));
            snprintf(hit_file[i], sizeof hit_file[i], "%.*s", (int)f, where);
            n_hit++;
        }
        line += n + (line[n] == '\n');
    }
    if (!n_hit)
        return 0;
    int first = -1;
    char names[512] = "", places[1024] = "";
    size_t o = 0, w = 0;
    for (int i = 0, c = 0; i < k->n_defines && i < 64; i++) {
        if (!hit[i])
            continue;
        if (first < 0)
            first = i;
        c++;
        const char *sep = c == 1 ? "" : c == n_hit ? " and " : ", ";
        o += (size_t)snprintf(names + o, o < sizeof names ? sizeof names - o : 0, "%s%s", sep,
                              k->define_names[i]);
        if (n_hit > 1)
            w += (size_t)snprintf(places + w, w < sizeof places ? sizeof places - w : 0,
                                  "%s%s %s:%d", c == 1 ? "" : ", ", k->define_names[i],
                                  hit_file[i], hit_line[i]);
        else
            w += (size_t)snprintf(places + w, sizeof places - w, "%s:%d", hit_file[i],
                                  hit_line[i]);
    }
    /* the #else of an #ifdef that sets the first one from another macro */
    char instead[700] = "";
    char **files = NULL, why[256];
    int nf = su_kernel_files(k, &files, why, sizeof why);
    for (int j = 0; j < nf; j++) {
        const char *base = strrchr(files[j], '/') ? strrchr(files[j], '/') + 1 : files[j];
        char macro[128];
        int if_line = 0;
        char *text = !instead[0] && strcmp(base, hit_file[first]) == 0 ? file_read(files[j], NULL)
                                                                     : NULL;
        if (text && else_of_ifdef(text, hit_line[first], k->define_names[first], macro,
                                  sizeof macro, &if_line))
            snprintf(instead, sizeof instead, "; %s:%d is the #else of %s:%d's #if on %s, whose "
                     "branch sets %s from it: defining %s instead (kernel.defines) sets %s",
                     hit_file[first], hit_line[first], base, if_line, macro,
                     k->define_names[first], macro, k->define_names[first]);
        free(text);
        free(files[j]);
    }
    free(files);
    const su_expr *x = k->define_values[first].text || !k->define_conds
                           ? &k->define_values[first] : &k->define_conds[first];
    snprintf(err, len, "%s:%d:%d: error: kernel.defines %s %s not reach the kernel: the source "
             "#defines %s itself (%s), and its value wins over -D%s=... (the compiler warns of "
             "the redefinition), so every config would compile the same kernel%s; leave %s out "
             "of the defines, or guard the source's #define%s with #ifndef", sp->path, x->line,
             x->col, names, n_hit > 1 ? "do" : "does", n_hit > 1 ? "each" : "it", places,
             k->define_names[first], instead, n_hit > 1 ? "them" : k->define_names[first],
             n_hit > 1 ? "s" : "");
    return -1;
}

/* Each buffer that fills a module variable (`symbol:`) against the variable's size in the
 * cubin's symbol table, at config choice (NULL: parameters out of scope, a reference kernel): a
 * buffer larger than its variable stops the run; a smaller one fills the variable's first
 * bytes, as a partial cudaMemcpyToSymbol does (a table of MAX_TAPS filled up to the taps in
 * use). A variable the table does not have is left to the worker, which names it. */
static int check_symbols(const space *sp, const space_binding *bind, const int *choice,
                         const char *cubin, const module_meta *mm, char *err, size_t len)
{
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
 * is unsupported); -1 with err. sc: the compilation k was compiled with. */
static int within_launch_bounds(const space *sp, const space_binding *bind,
                                const int *choice, const su_kernel *k, const su_compile *sc,
                                const module_meta *mm, char *why, size_t why_len, char *err,
                                size_t len)
{
    int any = 0;
    for (int i = 0; i < mm->n_kernels; i++)
        any |= mm->max_threads[i] > 0;
    if (!any)
        return 1;
    for (int li = 0; li < k->n_launches; li++) {
        const su_launch_spec *l = &k->launches[li];
        int ki = su_compile_kernel_index(sp, bind, choice, k, sc, li, err, len);
        su_geometry g;
        if (ki < 0 || space_user_geometry(sp, bind, choice, l, &g, err, len) != 0)
            return -1;
        char w[400];
        if (ki < mm->n_kernels &&
            module_meta_beyond_bounds(mm->max_threads[ki], l->function,
                                      (long long)(g.block[0] * g.block[1] * g.block[2]), w,
                                      sizeof w)) {
            if (k->n_launches > 1)
                snprintf(why, why_len, "launch %d (%s): %s", li, l->function, w);
            else
                snprintf(why, why_len, "%s", w);
            return 0;
        }
    }
    return 1;
}

int vu_module_checks(const space *sp, const space_binding *bind, const int *choice,
                     const su_kernel *k, const su_compile *sc, const char *module,
                     int with_defines, char *why, size_t why_len, char *err, size_t len)
{
    module_meta mm;
    if (module_meta_read(module, &mm, err, len) != 0)
        return -1;
    int rc = (with_defines && vu_defines_reach(sp, &mm, err, len) != 0) ||
                     check_symbols(sp, bind, choice, module, &mm, err, len) != 0
                 ? -1
                 : within_launch_bounds(sp, bind, choice, k, sc, &mm, why, why_len, err, len);
    module_meta_clear(&mm);
    return rc;
}

/* A launch's buffers against the pointers its kernel takes, where the kernel's lowered name
 * says their types (C++ linkage): a buffer passed, or passed again (`pointer:`), to a pointer
 * to a scalar of another floating format stops the run (kernel_pointer_takes). */
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
int vu_check_params(const space *sp, const space_binding *bind, const int *choice,
                    const su_kernel *k, const char *cubin, const module_meta *mm, char *err,
                    size_t len)
{
    const space_user *u = sp->user;
    /* a reference or check kernel takes the listed arguments too: said at its own key */
    const char *role = k == &u->kernel ? NULL : k == &u->ref_kernel ? "reference.kernel"
                                                                     : "a check kernel";
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
        if (role && k == &u->ref_kernel)
            line = u->ref_line, col = u->ref_col;
        if (role)
            snprintf(who, sizeof who, "%s (given the arguments of kernel.args)", role);
        else if (k->n_launches > 1)
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
    rc = role ? 0 : check_symbols(sp, bind, choice, cubin, mm, err, len);
done:
    su_compile_clear(&sc);
    return rc;
}

/* Whether `word` appears in text as a whole identifier. */
static int names_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; n && (p = strstr(p, word)); p += n)
        if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return 1;
    return 0;
}

/* When the defines are the default (every parameter the source names), what the compile was
 * given, as a hint appended to a refusal whose log could be about it: with no macro passed, a
 * parameter the compiler calls an undefined identifier (the kernel reads it through a header
 * the tuner does not find, or a pasted name); with macros passed, a log that names one of them
 * (a parameter named like a variable of the code, block_size in a launcher or width, becomes a
 * macro that breaks it). Other refusals get none. */
void vu_default_defines_hint(const space *sp, const su_kernel *k, const char *log, char *out,
                             size_t len)
{
    if (!k->defines_default || len < 2 || !log)
        return;
    if (!k->n_defines) {
        int undefined = 0;
        for (int i = 0; i < sp->n_params && !undefined; i++) {
            char pat[200];
            snprintf(pat, sizeof pat, "identifier \"%s\" is undefined", sp->params[i].name);
            undefined = strstr(log, pat) != NULL;
        }
        if (undefined)
            snprintf(out, len, " (kernel.defines is not given and the kernel's files name no "
                     "parameter, so none was passed as a macro: one the kernel reads through a "
                     "header the tuner does not find, or a pasted name, goes in kernel.defines)");
        return;
    }
    int named = 0;
    for (int i = 0; i < k->n_defines && !named; i++)
        named = names_word(log, k->define_names[i]);
    if (!named)
        return;
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
int vu_template_mismatch(const char *log, char *inst, size_t len)
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

/* header_user.c: the header a user kernel's program includes (header.h, docs/user-kernels.md):
 * per device model, dtype and problem, the winner among the evaluations of the kernel as its
 * source is now (its kernel hash), as parameter values, as the -D options and the name
 * expression for run-time compilation, with a lookup by the running device and the nearest
 * problem, and per device the winner of its largest problem as compile-time #defines. Each
 * entry's comment gives its time and throughput: TFLOP/s and the share of the GPU's peak where
 * the problem has flops (stored with it, or else given by the space's kernel.flops), else GB/s
 * and the share of the copy rate. The winner is the fastest, or under --objective energy or edp
 * the least energy or energy-delay product (db_objective_sql ranks the rows), which the header
 * then names. A space that tunes the GPU's clocks or power limit (device settings) has its
 * winners taken among the rows measured as the driver has the GPU (those settings 0), since the
 * program runs that way. Last, the descriptor of libtunekit's run-time API
 * (header_desc.c), for a program that includes tunekit_runtime.h first. The text needs nothing
 * but the C library; it is C99 and C++. Deterministic for the same inputs. */
#include "header.h"
#include "measure/device_settings.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "core/throughput.h"
#include "db/db.h"
#include "space/space.h"
#include "space/space_user.h"

typedef struct winner {
    char *device, *dtype, *shape, *config;
    int cc_major, cc_minor, sm_count;
    device_info dev;
    double us;
    double joules;           /* per run, 0: not measured */
    throughput rate;         /* for the entry's comment */
    int64_t size;            /* the problem's element count: largest per device for #defines */
    int *choice;
    su_compile compile;
} winner;

typedef struct devs {
    device_info *v;
    int n, cap;
} devs;

static int add_device(void *ctx, int64_t id, const device_info *d)
{
    (void)id;
    devs *s = ctx;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        device_info *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return 1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = *d;
    return 0;
}

static void winner_clear(winner *w)
{
    free(w->device);
    free(w->dtype);
    free(w->shape);
    free(w->config);
    free(w->choice);
    su_compile_clear(&w->compile);
}

/* "vector.saxpy" -> "vector_saxpy" (lower) or "VECTOR_SAXPY" (upper). */
static void c_name(const char *s, int upper, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 1 < len; s++)
        out[o++] = isalnum((unsigned char)*s) ? (char)(upper ? toupper((unsigned char)*s)
                                                              : tolower((unsigned char)*s))
                                              : '_';
    out[o] = 0;
}

/* The options that reach the code: -D and the user's own (not -I or -std). */
static void put_options(FILE *f, const su_compile *c)
{
    fputc('"', f);
    int first = 1;
    for (int i = 0; i < c->n_options; i++) {
        const char *o = c->options[i];
        if (strncmp(o, "-I", 2) == 0 || strncmp(o, "-std=", 5) == 0)
            continue;
        if (!first)
            fputc(' ', f);
        first = 0;
        for (; *o; o++) {
            if (*o == '"' || *o == '\\')
                fputc('\\', f);
            fputc(*o, f);
        }
    }
    fputc('"', f);
}

int header_user_generate(const space *sp, const char *const *inputs, int n_inputs,
                         objective o, const char *out_name, char **out, int64_t *no_energy,
                         char *err, size_t len)
{
    const space_user *u = sp->user;
    int rc = -1;
    db *d = NULL;
    devs ds = {0};
    winner *w = NULL;
    int nw = 0, capw = 0, skipped = 0;
    sqlite3_stmt *st = NULL;
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = NULL;
    char opfull[512], *sql = NULL;
    char no_energy_key[3072] = "";   /* the last (model, dtype, problem) without energy */
    snprintf(opfull, sizeof opfull, "%s.%s", sp->kernel, sp->ops[0]);
    *out = NULL;
    if (no_energy)
        *no_energy = 0;
    if (n_inputs > 0) {
        if (db_open_dumps_summary(inputs, n_inputs, sp->kernel, &d, err, len) != 0)
            goto done;
        if (db_each_device(d, add_device, &ds) != 0) {
            snprintf(err, len, "reading the devices failed");
            goto done;
        }
        /* per (model, dtype, problem) its rows by the objective's score (db_objective_sql),
         * those it cannot rank (no energy) last */
        const char *score = db_objective_sql(o);
        sql = sqlite3_mprintf(
            "SELECT d.name, d.uuid, d.cc_major, d.cc_minor, d.sm_count, p.dtype, p.shape,"
            " c.text, e.median_us, p.elements, p.bytes, p.flops, r.copy_gbps, e.energy_j,"
            " %s IS NULL "
            "FROM evaluations e JOIN devices d ON d.id = e.device_id "
            "JOIN problems p ON p.id = e.problem_id JOIN configs c ON c.id = e.config_id "
            "JOIN runs r ON r.id = e.run_id "
            "WHERE p.op = ?1 AND e.kernel_hash = ?2 AND e.status = 'ok' "
            /* a program runs at the clocks and power limit the driver gives it: rows measured
             * with the GPU's settings changed (device settings not 0) are not its winners */
            "AND (',' || c.text || ',') NOT GLOB '*,%s=[1-9]*' "
            "AND (',' || c.text || ',') NOT GLOB '*,%s=[1-9]*' "
            "AND (',' || c.text || ',') NOT GLOB '*,%s=[1-9]*' "
            "ORDER BY d.name, p.dtype, p.shape, %s IS NULL, %s, c.text", score,
            devset_names[0], devset_names[1], devset_names[2], score, score);
        if (!sql)
            goto oom;
        if (sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL) != SQLITE_OK) {
            snprintf(err, len, "reading the winners: %s", sqlite3_errmsg(db_handle(d)));
            goto done;
        }
        sqlite3_bind_text(st, 1, opfull, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, space_user_hash(u), -1, SQLITE_STATIC);
        int r;
        while ((r = sqlite3_step(st)) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            const char *uuid = (const char *)sqlite3_column_text(st, 1);
            const char *dtype = (const char *)sqlite3_column_text(st, 5);
            const char *shape = (const char *)sqlite3_column_text(st, 6);
            const char *config = (const char *)sqlite3_column_text(st, 7);
            if (nw > 0 && strcmp(w[nw - 1].device, name) == 0 &&
                strcmp(w[nw - 1].dtype, dtype) == 0 && strcmp(w[nw - 1].shape, shape) == 0)
                continue;   /* the first row of a (model, dtype, problem) is its winner */
            if (sqlite3_column_int(st, 14)) {
                /* no winner under the objective: nothing of it has energy (counted once) */
                char key[sizeof no_energy_key];
                snprintf(key, sizeof key, "%s\n%s\n%s", name, dtype, shape);
                if (strcmp(key, no_energy_key) != 0 && no_energy)
                    ++*no_energy;
                snprintf(no_energy_key, sizeof no_energy_key, "%s", key);
                continue;
            }
            if (nw == capw) {
                capw = capw ? capw * 2 : 32;
                winner *g = realloc(w, (size_t)capw * sizeof *g);
                if (!g)
                    goto oom;
                w = g;
            }
            winner *x = &w[nw];
            memset(x, 0, sizeof *x);
            x->device = strdup(name);
            x->dtype = strdup(dtype);
            x->shape = strdup(shape);
            x->config = strdup(config);
            x->choice = calloc((size_t)sp->n_params + 1, sizeof *x->choice);
            nw++;
            if (!x->device || !x->dtype || !x->shape || !x->config || !x->choice)
                goto oom;
            x->cc_major = sqlite3_column_int(st, 2);
            x->cc_minor = sqlite3_column_int(st, 3);
            x->sm_count = sqlite3_column_int(st, 4);
            x->us = sqlite3_column_double(st, 8);
            x->joules = sqlite3_column_double(st, 13);
            x->size = sqlite3_column_int64(st, 9);
            for (int k = 0; k < ds.n; k++)
                if (strcmp(ds.v[k].uuid, uuid) == 0)
                    x->dev = ds.v[k];
            problem p;
            int bad = space_config_parse(sp, config, x->choice) != 0 ||
                      su_type_parse(dtype) < 0 || problem_parse(&p, shape) != 0;
            if (!bad) {
                space_binding b = {sp->ops[0], dtype, &p, &x->dev};
                char why[512];
                /* flops as stored with the problem, else as the space gives them now (results
                 * measured before the space said) */
                int64_t flops = sqlite3_column_int64(st, 11);
                if (sqlite3_column_type(st, 11) == SQLITE_NULL &&
                    (flops = space_user_flops(sp, &b, why, sizeof why)) < 0)
                    flops = 0;
                x->rate = throughput_of(sqlite3_column_int64(st, 10), flops, x->us,
                                        sqlite3_column_double(st, 12), &x->dev, dtype);
                bad = space_user_compile(sp, &b, x->choice, &u->kernel, 0, &x->compile, why,
                                         sizeof why) != 0;
                problem_clear(&p);
            }
            if (bad) {
                /* a winner whose config the space no longer has */
                winner_clear(x);
                nw--;
                skipped++;
            }
        }
        if (r != SQLITE_DONE) {
            snprintf(err, len, "reading the winners: %s", sqlite3_errmsg(db_handle(d)));
            goto done;
        }
    }
    if (nw == 0) {
        snprintf(err, len, "no validated measurement%s of %s (kernel hash %s) in %s%s: tune it "
                 "first (tuner run %s%s)", o == OBJECTIVE_TIME ? "" : " with energy", opfull,
                 space_user_hash(u), n_inputs ? inputs[0] : "no input",
                 n_inputs > 1 ? " and the other inputs" : "", sp->path,
                 o == OBJECTIVE_TIME ? "" : ", with measure.energy on");
        goto done;
    }
    char lower[256], upper[256], base[256];
    c_name(opfull, 0, lower, sizeof lower);
    c_name(opfull, 1, upper, sizeof upper);
    c_name(strrchr(out_name, '/') ? strrchr(out_name, '/') + 1 : out_name, 1, base,
           sizeof base);
    f = open_memstream(&text, &text_len);
    if (!f)
        goto oom;
    fprintf(f, "/* %s: generated by `tuner header --space %s`; do not edit.\n", out_name,
            sp->path);
    fprintf(f, " * The tuned configs of %s (%s in %s, kernel hash %s) from:", opfull,
            u->kernel.launches[0].function, u->kernel.source, space_user_hash(u));
    for (int i = 0; i < n_inputs; i++)
        fprintf(f, " %s", inputs[i]);
    fprintf(f, ".\n");
    if (skipped)
        fprintf(f, " * %d winner%s of configs the space no longer has left out.\n", skipped,
                skipped == 1 ? "" : "s");
    if (o != OBJECTIVE_TIME)
        fprintf(f, " * Winners by objective %s (`tuner header --objective %s`): per problem the "
                "config with\n * the least %s; problems without energy measured have no "
                "entry.\n", objective_name(o), objective_name(o),
                o == OBJECTIVE_ENERGY ? "energy per run" : "energy x time per run");
    fprintf(f, " *\n * Run time: %s_lookup(device name, cc major, cc minor, SM count, dtype, "
            "problem fields)\n * gives the entry for the running GPU (its name, else the same "
            "compute capability with the\n * nearest SM count, else the nearest compute "
            "capability) and the nearest problem (the\n * smallest sum over the fields of "
            "|log2(a) - log2(b)|); NULL when nothing matches the dtype.\n * Its options (-D "
            "macros) and name_expr are what NVRTC compiles the winner with.\n * Compile time: "
            "define %s_DEVICE_<DEVICE NAME> (capitals, other characters as _)\n * before "
            "including this header to get %s_TUNED_<param> (and _OPTIONS): the winner\n * of "
            "that device's largest problem in the first dtype, per dtype as "
            "%s_TUNED_<DTYPE>_<param>. */\n", lower, upper, upper, upper);
    fprintf(f, "#ifndef %s_\n#define %s_\n\n#include <math.h>\n#include <string.h>\n\n", base,
            base);
    fprintf(f, "#define %s_N_FIELDS %d\n#define %s_N_ENTRIES %d\n", upper, sp->n_fields, upper,
            nw);
    if (o != OBJECTIVE_TIME)   /* what the winners were chosen by (time: not defined) */
        fprintf(f, "#define %s_OBJECTIVE \"%s\"\n", upper, objective_name(o));
    fprintf(f, "\n");
    fprintf(f, "typedef struct %s_tuned {\n    const char *device;    /* cudaDeviceProp.name */\n"
            "    int cc_major, cc_minor, sm_count;\n    const char *dtype;\n"
            "    long long problem[%s_N_FIELDS];   /* %s_fields */\n", lower, upper, lower);
    for (int p = 0; p < sp->n_params; p++) {
        int is_string = sp->params[p].values[0].kind == VALUE_STRING;
        fprintf(f, "    %s%s;\n", is_string ? "const char *" : "long long ", sp->params[p].name);
    }
    fprintf(f, "    const char *options;    /* the -D options that reach the code */\n"
            "    const char *name_expr;  /* the function with its template arguments */\n"
            "    const char *config;     /* canonical text, as the tuner stores it */\n"
            "    double median_us;       /* measured, L2 cold */\n} %s_tuned;\n\n", lower);
    fprintf(f, "static const char *const %s_fields[%s_N_FIELDS] = {", lower, upper);
    for (int k = 0; k < sp->n_fields; k++)
        fprintf(f, "%s\"%s\"", k ? ", " : " ", sp->fields[k].name);
    fprintf(f, " };\n\n");
    fprintf(f, "static const %s_tuned %s_table[%s_N_ENTRIES] = {\n", lower, lower, upper);
    for (int i = 0; i < nw; i++) {
        winner *x = &w[i];
        problem p;
        if (problem_parse(&p, x->shape) != 0)
            goto oom;
        if (i == 0 || strcmp(x->device, w[i - 1].device) != 0)
            fprintf(f, "    /* %s */\n", x->device);
        fprintf(f, "    { ");
        header_put_string(f, x->device);
        fprintf(f, ", %d, %d, %d, \"%s\", {", x->cc_major, x->cc_minor, x->sm_count, x->dtype);
        for (int k = 0; k < sp->n_fields; k++)
            fprintf(f, "%s%" PRId64 "LL", k ? ", " : " ", problem_int(&p, sp->fields[k].name, 0));
        fprintf(f, " },");
        problem_clear(&p);
        for (int q = 0; q < sp->n_params; q++) {
            value v = sp->params[q].values[x->choice[q]];
            if (v.kind == VALUE_STRING) {
                fputc(' ', f);
                header_put_string(f, v.s);
                fputc(',', f);
            } else {
                fprintf(f, " %" PRId64 "LL,", v.i);
            }
        }
        fprintf(f, "\n      ");
        put_options(f, &x->compile);
        fprintf(f, ", ");
        /* a pipeline's kernels, in launch order, separated by "; " */
        char names[4096] = "";
        for (int k = 0, at = 0; k < x->compile.n_kernels; k++)
            at += snprintf(names + at, sizeof names - (size_t)at, "%s%s", k ? "; " : "",
                           x->compile.kernels[k]);
        header_put_string(f, names);
        fprintf(f, ", ");
        header_put_string(f, x->config);
        char rate[96];
        fprintf(f, ", %.17g }, /* %.2f us, %s", x->us, x->us,
                throughput_text(&x->rate, THROUGHPUT_PROSE, rate, sizeof rate));
        if (o != OBJECTIVE_TIME)
            fprintf(f, ", %.4g J", x->joules);
        fprintf(f, " */\n");
    }
    fprintf(f, "};\n\n");
    /* the lookup */
    fprintf(f,
            "static inline double %s_distance_(const long long *a, const long long *b)\n{\n"
            "    double d = 0;\n    for (int k = 0; k < %s_N_FIELDS; k++) {\n"
            "        double x = a[k] > 1 ? log2((double)a[k]) : 0, y = b[k] > 1 ? log2((double)b[k]) "
            ": 0;\n        d += x > y ? x - y : y - x;\n    }\n    return d;\n}\n\n",
            lower, upper);
    fprintf(f,
            "static inline const %s_tuned *%s_lookup(const char *device, int cc_major, int "
            "cc_minor,\n        int sm_count, const char *dtype, const long long *problem)\n{\n"
            "    /* the device: its name, else the nearest compute capability and SM count */\n"
            "    const char *model = NULL;\n    long best = -1;\n"
            "    for (int i = 0; i < %s_N_ENTRIES; i++) {\n"
            "        const %s_tuned *e = &%s_table[i];\n"
            "        if (strcmp(e->dtype, dtype) != 0) continue;\n"
            "        long cc = (long)(e->cc_major - cc_major) * 10 + (e->cc_minor - cc_minor);\n"
            "        long sm = e->sm_count - sm_count;\n"
            "        long score = strcmp(e->device, device) == 0 ? 0\n"
            "                   : 1 + (cc < 0 ? -cc : cc) * 100000 + (sm < 0 ? -sm : sm);\n"
            "        if (best < 0 || score < best) { best = score; model = e->device; }\n"
            "    }\n    if (!model) return NULL;\n"
            "    /* the problem: the nearest of that model's */\n"
            "    const %s_tuned *pick = NULL;\n    double pick_d = 0;\n"
            "    for (int i = 0; i < %s_N_ENTRIES; i++) {\n"
            "        const %s_tuned *e = &%s_table[i];\n"
            "        if (strcmp(e->device, model) != 0 || strcmp(e->dtype, dtype) != 0) continue;\n"
            "        double d = %s_distance_(e->problem, problem);\n"
            "        if (!pick || d < pick_d) { pick = e; pick_d = d; }\n"
            "    }\n    return pick;\n}\n\n",
            lower, lower, upper, lower, lower, lower, upper, lower, lower, lower);
    /* compile time: per device, the largest problem's winner */
    for (int i = 0; i < nw;) {
        int j = i;
        while (j < nw && strcmp(w[j].device, w[i].device) == 0)
            j++;
        char dev[300];
        c_name(w[i].device, 1, dev, sizeof dev);
        fprintf(f, "#if defined(%s_DEVICE_%s)\n", upper, dev);
        const char *first_dtype = NULL;
        for (int k = i; k < j;) {
            int m = k;
            int big = k;
            while (m < j && strcmp(w[m].dtype, w[k].dtype) == 0) {
                if (w[m].size > w[big].size)
                    big = m;
                m++;
            }
            const winner *x = &w[big];
            char dt[64];
            c_name(x->dtype, 1, dt, sizeof dt);
            for (int pass = first_dtype ? 1 : 0; pass < 2; pass++) {
                for (int q = 0; q < sp->n_params; q++) {
                    char v[256];
                    value val = sp->params[q].values[x->choice[q]];
                    value_format(val, v, sizeof v);
                    fprintf(f, "#  define %s_TUNED_%s%s%s %s%s%s\n", upper, pass ? dt : "",
                            pass ? "_" : "", sp->params[q].name,
                            val.kind == VALUE_STRING ? "\"" : "", v,
                            val.kind == VALUE_STRING ? "\"" : "");
                }
                fprintf(f, "#  define %s_TUNED_%s%sOPTIONS ", upper, pass ? dt : "",
                        pass ? "_" : "");
                put_options(f, &x->compile);
                fprintf(f, "   /* %s %s */\n", x->dtype, x->shape);
            }
            if (!first_dtype)
                first_dtype = x->dtype;
            k = m;
        }
        fprintf(f, "#endif\n");
        i = j;
    }
    /* the run-time API's descriptor */
    size_t n_hw = nw > 0 ? (size_t)nw : 0;     /* (the sanitized build cannot prove nw >= 0) */
    header_winner *hw = calloc(n_hw + 1, sizeof *hw);
    if (!hw)
        goto oom;
    for (int i = 0; i < nw; i++)
        hw[i] = (header_winner){w[i].device, w[i].dtype, w[i].config, w[i].cc_major,
                                w[i].cc_minor, w[i].sm_count, w[i].us};
    int bad = header_put_descriptor(f, sp, lower, nw, hw, err, len);
    free(hw);
    if (bad)
        goto done;
    fprintf(f, "\n#endif /* %s_ */\n", base);
    if (fclose(f) != 0) {
        f = NULL;
        goto oom;
    }
    f = NULL;
    *out = text;
    text = NULL;
    rc = 0;
    goto done;
oom:
    snprintf(err, len, "out of memory");
done:
    if (f)
        fclose(f);
    free(text);
    sqlite3_finalize(st);
    sqlite3_free(sql);
    for (int i = 0; i < nw; i++)
        winner_clear(&w[i]);
    free(w);
    free(ds.v);
    db_close(d);
    return rc;
}

/* cmd_results.c: the commands that read and publish what was measured: `tuner best`, `tuner
 * header` (kernels/tuned_configs.h, or a user kernel's own header), `tuner db` (export, import,
 * merge, check, info), `tuner devices` and `tuner report`. best, header and report choose each
 * problem's winner by --objective (time, energy or edp; docs/energy.md). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/backend.h"
#include "cli.h"
#include "core/files.h"
#include "core/objective.h"
#include "core/throughput.h"
#include "db/db.h"
#include "db/db_peers.h"
#include "db/db_xz.h"
#include "header/header.h"
#include "ops/user_kernel.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "space/space.h"
#include "space/space_user.h"

/* The objective of --objective (time when not given). */
static objective cli_objective(void)
{
    int o = opt.objective ? objective_parse(opt.objective) : OBJECTIVE_TIME;
    return o < 0 ? OBJECTIVE_TIME : (objective)o;
}

/* The one line that says how many problems have no winner under an energy objective. */
static void say_no_energy(const char *cmd, objective o, int64_t n)
{
    if (n > 0)
        fprintf(stderr, "tuner %s: %lld problem%s without energy measured, no winner under "
                "--objective %s\n", cmd, (long long)n, n == 1 ? "" : "s", objective_name(o));
}

/* ---- best ---- */
typedef struct best_ctx {
    const char *format;
    int n;
    db *d;
    int with_flops;   /* the table: some row has flops, so every row names its unit */
    int with_energy;  /* the table: some row has energy, so it has the energy columns */
} best_ctx;

static int best_count_columns(void *ctx, const best_row *r)
{
    best_ctx *b = ctx;
    b->with_flops |= r->flops > 0;
    b->with_energy |= r->energy_j > 0;
    return 0;
}

/* A reading for csv (empty when not measured) or json (null). */
static void put_reading(double v, const char *fmt, int json)
{
    if (v > 0) printf(fmt, v);
    else if (json) printf("null");
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

static int best_print(void *ctx, const best_row *r)
{
    best_ctx *b = ctx;
    winner_comparison c;
    memset(&c, 0, sizeof c);
    if (opt.compare) winner_compare(b->d, r, &c);
    double gain = opt.compare && c.default_us > 0 ? c.default_us / r->median_us : 0;
    double vs_peer = opt.compare && c.peer_us > 0 ? c.peer_us / r->median_us : 0;
    throughput t = db_best_throughput(r);
    if (strcmp(b->format, "csv") == 0) {
        if (b->n == 0)
            printf("device,op,dtype,shape,config,median_us,gbps,frac_copy,tflops,frac_peak,"
                   "energy_j,power_w%s\n",
                   opt.compare ? ",default_us,gain_over_default,peer,peer_us,speedup_over_peer" : "");
        printf("\"%s\",%s,%s,\"%s\",\"%s\",%.4f,%.2f,%.4f,", r->device, r->op, r->dtype, r->shape,
               r->config, r->median_us, r->gbps, r->frac_copy);
        if (t.flops) printf("%.4f,%.4f", t.rate, t.frac); else printf(",");
        printf(",");
        put_reading(r->energy_j, "%.6g", 0);
        printf(",");
        put_reading(r->power_w, "%.2f", 0);
        if (opt.compare)
            printf(",%.4f,%.4f,\"%s\",%.4f,%.4f", c.default_us, gain, c.peer, c.peer_us, vs_peer);
        printf("\n");
    } else if (strcmp(b->format, "json") == 0) {
        printf("%s\n  {\"device\": ", b->n ? "," : "[");
        json_string(r->device);
        printf(", \"op\": "); json_string(r->op);
        printf(", \"dtype\": "); json_string(r->dtype);
        printf(", \"shape\": "); json_string(r->shape);
        printf(", \"config\": "); json_string(r->config);
        printf(", \"median_us\": %.4f, \"gbps\": %.2f, \"frac_copy\": %.4f", r->median_us, r->gbps, r->frac_copy);
        if (t.flops) printf(", \"tflops\": %.4f, \"frac_peak\": %.4f", t.rate, t.frac);
        else printf(", \"tflops\": null, \"frac_peak\": null");
        printf(", \"energy_j\": ");
        put_reading(r->energy_j, "%.6g", 1);
        printf(", \"power_w\": ");
        put_reading(r->power_w, "%.2f", 1);
        if (opt.compare) {
            printf(", \"default_us\": %.4f, \"gain_over_default\": %.4f, \"peer\": ", c.default_us, gain);
            json_string(c.peer);
            printf(", \"peer_us\": %.4f, \"speedup_over_peer\": %.4f", c.peer_us, vs_peer);
        }
        printf("}");
    } else {
        /* GB/s and the share of copy as columns; where some row has flops, each row says its
         * unit and what its share is of */
        if (b->n == 0) {
            printf("%-24s %-18s %-5s %-22s %10s", "device", "op", "dtype", "shape", "median_us");
            if (b->with_flops) printf(" %16s %-16s", "throughput", " share");
            else printf(" %8s %6s", "GB/s", "%copy");
            if (b->with_energy) printf(" %10s %7s", "J/run", "W");
            if (opt.compare) printf(" %10s %6s %10s %6s", "default_us", "gain", "peer_us", "vs_peer");
            printf("  config\n");
        }
        printf("%-24.24s %-18s %-5s %-22s %10.2f", r->device, r->op, r->dtype, r->shape, r->median_us);
        if (b->with_flops && t.frac > 0) printf(" %8.*f %-7s %5.1f%% %-9s", t.digits, t.rate, t.unit, 100.0 * t.frac, t.ceiling);
        else if (b->with_flops) printf(" %8.*f %-7s %6s %-9s", t.digits, t.rate, t.unit, "-", "");   /* peak or copy rate unknown */
        else printf(" %8.1f %6.1f", t.rate, 100.0 * t.frac);
        if (b->with_energy && r->energy_j > 0) printf(" %10.4g %7.1f", r->energy_j, r->power_w);
        else if (b->with_energy) printf(" %10s %7s", "-", "-");
        if (opt.compare) {
            if (c.default_us > 0) printf(" %10.2f %5.2fx", c.default_us, gain); else printf(" %10s %6s", "-", "-");
            if (c.peer_us > 0) printf(" %10.2f %5.2fx", c.peer_us, vs_peer); else printf(" %10s %6s", "-", "-");
        }
        printf("  %s\n", r->config);
    }
    b->n++;
    return 0;
}

int cmd_best(void)
{
    if (opt.n_args) { cmdline_error("best", "unexpected argument '%s'", opt.args[0]); return EXIT_BAD_INPUT; }
    const char *path = opt.db ? opt.db : "tunekit.db";
    char err[1024];
    db *d;
    if (db_open_readonly(path, &d, err, sizeof err) != 0) return fail(err);
    best_ctx b = { opt.format ? opt.format : "table", 0, d, 0, 0 };
    objective o = cli_objective();
    int64_t no_energy = 0;
    int rc = strcmp(b.format, "table") == 0
                 ? db_each_best_by(d, o, opt.device, opt.op, opt.dtype, best_count_columns, &b, NULL)
                 : 0;
    if (rc == 0) rc = db_each_best_by(d, o, opt.device, opt.op, opt.dtype, best_print, &b, &no_energy);
    if (strcmp(b.format, "json") == 0) printf(b.n ? "\n]\n" : "[]\n");
    db_close(d);
    if (rc != 0) return fail("reading the best view failed");
    say_no_energy("best", o, no_energy);
    if (b.n == 0 && no_energy == 0 && strcmp(b.format, "table") == 0) fprintf(stderr, "tuner best: no ok evaluation matches\n");
    return EXIT_OK;
}

/* The dumps (.sql.xz or .sql) among the files pattern matches, in name order, appended to inputs
 * while n < max; g holds the names until globfree. Returns the new n, or -1 when pattern matches
 * no file (g then holds nothing). */
int add_dumps(glob_t *g, const char *pattern, const char **inputs, int n, int max)
{
    if (glob(pattern, 0, NULL, g) != 0) {
        memset(g, 0, sizeof *g);
        return -1;
    }
    for (size_t i = 0; i < g->gl_pathc && n < max; i++)
        if (db_path_is_dump(g->gl_pathv[i])) inputs[n++] = g->gl_pathv[i];
    return n;
}

/* The committed dumps, db/results/<gpu-model>.sql.xz (or .sql), as add_dumps; returns the new n. */
int add_committed_dumps(glob_t *g, const char **inputs, int n, int max)
{
    int got = add_dumps(g, "db/results/*.sql*", inputs, n, max);
    return got < 0 ? n : got;
}

/* ---- header ---- */
static int write_file_atomic(const char *path, const char *text, size_t n, char *err, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) { snprintf(err, len, "cannot write %s (as %s.tmp)", path, path); return -1; }
    int ok = fwrite(text, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        snprintf(err, len, "cannot write %s", path);
        return -1;
    }
    return 0;
}

int cmd_header(void)
{
    char user_out[4096], results[4096];
    space *sp = NULL;
    const char *out = opt.out ? opt.out : "kernels/tuned_configs.h";
    const char *inputs[64];
    int n = 0;
    glob_t g;
    memset(&g, 0, sizeof g);
    char err[2048], *text = NULL;
    if (opt.space) {
        /* a user kernel: its header beside its space, from the dumps beside it */
        sp = user_space_load(opt.space, NULL, err, sizeof err);
        if (!sp) { fprintf(stderr, "%s\n", err); return EXIT_BAD_INPUT; }
        if (!sp->user) {
            fprintf(stderr, "tuner header: %s tunes the built-in family %s, whose configs go in "
                    "kernels/tuned_configs.h (tuner header without --space)\n", sp->path, sp->kernel);
            user_space_free(sp);
            return EXIT_BAD_INPUT;
        }
        const char *dot = strrchr(sp->path, '.');
        int stem = dot && strchr(dot, '/') == NULL ? (int)(dot - sp->path) : (int)strlen(sp->path);
        snprintf(user_out, sizeof user_out, "%.*s_tuned.h", stem, sp->path);
        if (!opt.out) out = user_out;
        snprintf(results, sizeof results, "%s%sresults/*.sql*", sp->user->dir,
                 *sp->user->dir ? "/" : "");
    }
    if (opt.db) inputs[n++] = opt.db;
    for (int i = 0; i < opt.n_args && n < 64; i++) inputs[n++] = opt.args[i];
    if (n == 0) {
        /* a user kernel's results beside its space, else the committed dumps */
        int got = sp ? add_dumps(&g, results, inputs, 0, 64) : -1;
        n = got >= 0 ? got : add_committed_dumps(&g, inputs, 0, 64);
    }
    objective o = cli_objective();
    int64_t no_energy = 0;
    int rc = sp ? header_user_generate(sp, inputs, n, o, out, &text, &no_energy, err, sizeof err)
                : header_generate(inputs, n, o, &text, &no_energy, err, sizeof err);
    globfree(&g);
    user_space_free(sp);
    if (rc != 0) return fail(err);
    say_no_energy("header", o, no_energy);
    if (opt.check) {
        char *have = file_read(out, NULL);
        int same = have && strcmp(have, text) == 0;
        free(have);
        free(text);
        if (!same) {
            fprintf(stderr, "tuner header --check: %s is stale; regenerate it with 'tuner header -o %s'\n", out, out);
            return EXIT_FAIL;
        }
        if (!opt.quiet) printf("tuner header --check: %s is up to date\n", out);
        return EXIT_OK;
    }
    rc = write_file_atomic(out, text, strlen(text), err, sizeof err);
    free(text);
    if (rc != 0) return fail(err);
    if (!opt.quiet) printf("tuner header: wrote %s from %d input%s\n", out, n, n == 1 ? "" : "s");
    return EXIT_OK;
}

/* ---- db ---- */
int cmd_db(void)
{
    if (opt.n_args < 1) { cmdline_error("db", "expected a subcommand (export, import, merge, check, info)%s", ""); return EXIT_BAD_INPUT; }
    const char *sub = opt.args[0], *path = opt.db ? opt.db : "tunekit.db";
    char err[2048];
    db *d = NULL;
    int rc = EXIT_OK;
    if (strcmp(sub, "export") == 0) {
        if (opt.n_args != 1) { cmdline_error("db", "export takes no argument ('%s')", opt.args[1]); return EXIT_BAD_INPUT; }
        if (db_open_readonly(path, &d, err, sizeof err) != 0) return fail(err);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f || db_export(d, f, err, sizeof err) != 0) {
            if (f) fclose(f);
            free(text);
            db_close(d);
            return fail(f ? err : "out of memory");
        }
        fclose(f);
        db_close(d);
        if (opt.out && strcmp(opt.out, "-") != 0) {
            /* -o X.sql.xz: the same text, compressed (db_xz.h) */
            char *z = NULL;
            size_t zn = 0;
            if (db_xz_path(opt.out) && db_xz_compress(text, len, &z, &zn, err, sizeof err) != 0)
                rc = fail(err);
            else if (write_file_atomic(opt.out, z ? z : text, z ? zn : len, err, sizeof err) != 0)
                rc = fail(err);
            free(z);
        } else {
            fwrite(text, 1, len, stdout);
        }
        free(text);
        return rc;
    }
    if (strcmp(sub, "import") == 0 || strcmp(sub, "merge") == 0) {
        if (opt.n_args < 2) { cmdline_error("db", "%s needs a file", sub); return EXIT_BAD_INPUT; }
        for (int i = 1; i < opt.n_args; i++)
            if (access(opt.args[i], R_OK) != 0) {
                fprintf(stderr, "tuner: error: %s: cannot read\n", opt.args[i]);
                return EXIT_BAD_INPUT;
            }
        if (db_open(path, 1, &d, err, sizeof err) != 0) return fail(err);
        for (int i = 1; i < opt.n_args && rc == EXIT_OK; i++) {
            db_merge_stats ms;
            memset(&ms, 0, sizeof ms);
            int r = sub[0] == 'i' ? db_import(d, opt.args[i], err, sizeof err)
                                  : db_merge_report(d, opt.args[i], &ms, err, sizeof err);
            if (r != 0) rc = fail(err);
            else if (!opt.quiet) printf("tuner db %s: %s into %s\n", sub, opt.args[i], path);
            if (r == 0 && ms.conflicts)
                fprintf(stderr, "tuner db merge: %s: %lld evaluation%s measured again with other "
                        "results; kept as %s had them (first: %s)\n", opt.args[i],
                        (long long)ms.conflicts, ms.conflicts == 1 ? "" : "s", path,
                        ms.first_conflict);
        }
        db_close(d);
        return rc;
    }
    if (strcmp(sub, "check") == 0 || strcmp(sub, "info") == 0) {
        if (access(path, R_OK) != 0) { fprintf(stderr, "tuner: error: %s: no such database\n", path); return EXIT_FAIL; }
        if (db_open_readonly(path, &d, err, sizeof err) != 0) return fail(err);
        if (sub[0] == 'c') {
            int r = db_check(d, err, sizeof err);
            if (r != 0) rc = fail(r < 0 ? err : err);
            else if (!opt.quiet) printf("tuner db check: %s is clean (schema version %d)\n", path, DB_SCHEMA_VERSION);
        } else {
            static const char *const tables[] = { "devices", "runs", "problems", "configs", "evaluations", "samples", "peers" };
            printf("%s:\n", path);
            for (int i = 0; i < 7; i++) {
                int64_t n = 0;
                db_count(d, tables[i], &n);
                printf("  %-12s %lld\n", tables[i], (long long)n);
            }
        }
        db_close(d);
        return rc;
    }
    cmdline_error("db", "unknown subcommand '%s'", sub);
    return EXIT_BAD_INPUT;
}

/* ---- devices ---- */
static int print_recorded(void *ctx, int64_t id, const device_info *dv)
{
    (void)ctx; (void)id;
    printf("  %-28s %s  cc %d.%d  %d SMs  L2 %lld MB  %lld GB\n", dv->name, dv->uuid, dv->cc_major,
           dv->cc_minor, dv->sm_count, (long long)(dv->l2_bytes >> 20), (long long)(dv->mem_bytes >> 30));
    return 0;
}

int cmd_devices(void)
{
    char err[1024];
    int found = 0;
    printf("CUDA devices on this machine:\n");
    for (int ord = 0; ord < 64; ord++) {
        backend *be = backend_cuda_open(ord, NULL, err, sizeof err);
        device_info dv;
        int ok = be && be->vt->device(be, &dv, err, sizeof err) == 0;
        if (be) be->vt->close(be);
        if (!ok) {
            if (ord == 0) printf("  none (%s)\n", err);
            break;
        }
        printf("  [%d] ", ord);
        print_recorded(NULL, 0, &dv);
        found++;
    }
    const char *path = opt.db;
    glob_t g;
    memset(&g, 0, sizeof g);
    const char *inputs[64];
    int n = 0;
    if (path) inputs[n++] = path;
    else n = add_committed_dumps(&g, inputs, n, 64);
    if (n) {
        db *d;
        if (db_open_dumps(inputs, n, &d, err, sizeof err) == 0) {
            printf("recorded in %s%s:\n", inputs[0], n > 1 ? " and others" : "");
            db_each_device(d, print_recorded, NULL);
            db_close(d);
        } else {
            fprintf(stderr, "tuner devices: %s\n", err);
        }
    }
    globfree(&g);
    (void)found;
    return EXIT_OK;
}

/* ---- report ---- */
int cmd_report(void)
{
    const char *inputs[64];
    int n = 0;
    glob_t g;
    memset(&g, 0, sizeof g);
    if (opt.db) inputs[n++] = opt.db;
    for (int i = 0; i < opt.n_args && n < 64; i++) inputs[n++] = opt.args[i];
    if (n == 0) n = add_committed_dumps(&g, inputs, n, 64);
    int64_t no_energy = 0;
    report_options o = { inputs, n, opt.device, opt.out ? opt.out : "reports", opt.quiet ? NULL : stdout,
                         opt.all_problems, cli_objective(), &no_energy };
    char err[4096];
    int rc = report_generate(&o, err, sizeof err);
    globfree(&g);
    if (rc == 0) say_no_energy("report", o.objective, no_energy);
    if (rc == 2) { fprintf(stderr, "tuner report: %s\n", err); return EXIT_BAD_INPUT; }
    return rc == 0 ? EXIT_OK : fail(err);
}


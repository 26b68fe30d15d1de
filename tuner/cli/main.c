/* main.c: the `tuner` command line. One options struct, a command table, usage texts, and the
 * only place where errors become messages ("tuner: error: ...") and exit codes. Commands:
 * run, space, best, header, db (export, import, merge, check, info), devices, report, strategies,
 * the hidden `__worker ORDINAL` that backend_cuda re-executes to own a GPU, and the hidden
 * `__compile` that the user-kernel compile pool re-executes for one NVRTC compilation. */
#include <glob.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "db/db.h"
#include "db/db_peers.h"
#include "db/db_xz.h"
#include "ops/ops.h"
#include "header/header.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "run/run.h"
#include "space/space.h"
#include "search/strategies_cmd.h"
#include "worker/worker.h"
#include "build/pool.h"
#include "build/variant.h"
#include "ops/user_kernel.h"
#include "space/space_user.h"

enum exit_code { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_BAD_INPUT = 2 };

/* The one global: options as parsed from the command line. */
static struct options {
    const char *db;              /* --db */
    const char *backend;         /* --backend */
    const char *strategy;        /* --strategy */
    int64_t budget_evals;        /* --budget-evals */
    double budget_seconds;       /* --budget-seconds */
    double race;                 /* --race (< 0: the space's) */
    int64_t seed;                /* --seed */
    const char *out;             /* -o */
    const char *op, *dtype, *device;
    const char *format;          /* table | csv | json */
    int check;                   /* --check */
    int compare;                 /* --compare */
    int quiet;                   /* -q */
    int warm_start;              /* --warm-start */
    int all_problems;            /* --all-problems (report) */
    int64_t jobs;                /* --jobs */
    const char *cache;           /* --cache */
    const char *compiler;        /* --compiler */
    const char *cc;              /* --cc */
    const char *space;           /* --space */
    const char *backends[64];    /* every --backend, in order */
    int n_backends;
    const char *devices;         /* --devices */
    const char *against;         /* --against */
    const char *transfer[64];    /* every --transfer-from */
    int n_transfer;
    const char *shard;           /* --shard K/N */
    int64_t repeat, rounds;      /* --repeat, --rounds (retime) */
    int shard_k, shard_n;
    int argc;                    /* the command's raw arguments, for commands that parse their own */
    char **argv;
    int n_args;
    const char *args[64];        /* positional arguments after the command */
} opt;

static void cmdline_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "tuner %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "; see 'tuner %s --help'\n", cmd);
}

typedef struct command {
    const char *name;
    int (*fn)(void);
    const char *usage;
} command;

static int parse_i64(const char *s, int64_t *v)
{
    char *end;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end) return -1;
    *v = x;
    return 0;
}

static int parse_f64(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end) return -1;
    *v = x;
    return 0;
}

/* Parses options common to all commands; returns 0, 1 for --help, or -1 after an error line. */
static int parse_args(const char *cmd, int argc, char **argv, const char *allowed)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return 1;
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (opt.n_args == 64) { cmdline_error(cmd, "too many arguments (%s)", a); return -1; }
            opt.args[opt.n_args++] = a;
            continue;
        }
        /* every option takes a value except these flags */
        if (strcmp(a, "--check") == 0 && strstr(allowed, " check ")) { opt.check = 1; continue; }
        if (strcmp(a, "--compare") == 0 && strstr(allowed, " compare ")) { opt.compare = 1; continue; }
        if (strcmp(a, "-q") == 0 && strstr(allowed, " q ")) { opt.quiet = 1; continue; }
        if (strcmp(a, "--warm-start") == 0 && strstr(allowed, " warm-start ")) { opt.warm_start = 1; continue; }
        if (strcmp(a, "--all-problems") == 0 && strstr(allowed, " all-problems ")) { opt.all_problems = 1; continue; }
        char key[64];
        snprintf(key, sizeof key, " %s ", a[1] == '-' ? a + 2 : a + 1);
        if (!strstr(allowed, key)) { cmdline_error(cmd, "unknown option '%s'", a); return -1; }
        if (i + 1 >= argc) { cmdline_error(cmd, "option '%s' needs a value", a); return -1; }
        const char *v = argv[++i];
        int bad = 0;
        if (strcmp(a, "--db") == 0) opt.db = v;
        else if (strcmp(a, "--backend") == 0) {
            opt.backend = v;
            if (opt.n_backends == 64) { cmdline_error(cmd, "more than 64 backends (%s)", v); return -1; }
            opt.backends[opt.n_backends++] = v;
        }
        else if (strcmp(a, "--devices") == 0) opt.devices = v;
        else if (strcmp(a, "--transfer-from") == 0) {
            if (opt.n_transfer == 64) { cmdline_error(cmd, "more than 64 inputs (%s)", v); return -1; }
            opt.transfer[opt.n_transfer++] = v;
        }
        else if (strcmp(a, "--shard") == 0) {
            opt.shard = v;
            bad = run_parse_shard(v, &opt.shard_k, &opt.shard_n) != 0;
        }
        else if (strcmp(a, "--strategy") == 0) opt.strategy = v;
        else if (strcmp(a, "--budget-evals") == 0) bad = parse_i64(v, &opt.budget_evals) || opt.budget_evals < 0;
        else if (strcmp(a, "--budget-seconds") == 0) bad = parse_f64(v, &opt.budget_seconds) || opt.budget_seconds < 0;
        else if (strcmp(a, "--race") == 0) bad = parse_f64(v, &opt.race) || !(opt.race >= 0 && opt.race < 1);
        else if (strcmp(a, "--seed") == 0) bad = parse_i64(v, &opt.seed) || opt.seed < 0;
        else if (strcmp(a, "--jobs") == 0) bad = parse_i64(v, &opt.jobs) || opt.jobs < 1 || opt.jobs > 256;
        else if (strcmp(a, "--cache") == 0) opt.cache = v;
        else if (strcmp(a, "--compiler") == 0) {
            opt.compiler = v;
            bad = strcmp(v, "nvrtc") != 0 && strcmp(v, "nvcc") != 0;
        }
        else if (strcmp(a, "--cc") == 0) opt.cc = v;
        else if (strcmp(a, "--space") == 0) opt.space = v;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) opt.out = v;
        else if (strcmp(a, "--op") == 0) opt.op = v;
        else if (strcmp(a, "--dtype") == 0) opt.dtype = v;
        else if (strcmp(a, "--device") == 0) opt.device = v;
        else if (strcmp(a, "--against") == 0) opt.against = v;
        else if (strcmp(a, "--repeat") == 0)
            bad = parse_i64(v, &opt.repeat) || opt.repeat < 1 || opt.repeat > RETIME_REPEAT_MAX;
        else if (strcmp(a, "--rounds") == 0)
            bad = parse_i64(v, &opt.rounds) || opt.rounds < STATS_RACE_MIN_RUNS ||
                  opt.rounds > RETIME_ROUNDS_MAX;
        else if (strcmp(a, "--format") == 0) {
            opt.format = v;
            bad = strcmp(v, "table") && strcmp(v, "csv") && strcmp(v, "json");
        }
        if (bad) {
            fprintf(stderr, "tuner %s: bad value '%s' for %s; see 'tuner %s --help'\n", cmd, v, a, cmd);
            return -1;
        }
    }
    return 0;
}

static int fail(const char *msg)
{
    fprintf(stderr, "tuner: error: %s\n", msg);
    return EXIT_FAIL;
}

/* ---- run ---- */
static int cmd_run(void)
{
    if (opt.n_args != 1) { cmdline_error("run", "expected one space file%s", ""); return EXIT_BAD_INPUT; }
    char err[2048];
    char **specs = NULL;
    int n_specs = 0;
    if (opt.devices) {
        /* --devices: one backend per device; with replay, as many copies of the recorded device
         * (to exercise the queue without a GPU) */
        const char *base = opt.n_backends ? opt.backends[0] : "cuda";
        int is_replay = strncmp(base, "replay:", 7) == 0;
        if (opt.n_backends > 1 || (!is_replay && strcmp(base, "cuda") != 0)) {
            cmdline_error("run", "--devices takes the cuda backend or one replay backend, not %s", base);
            return EXIT_BAD_INPUT;
        }
        int count_all = 1;
        if (strcmp(opt.devices, "all") == 0 && !is_replay) {
            backend *be = backend_open("cuda", err, sizeof err);
            device_info dev;
            int bad = !be || be->vt->device(be, &dev, err, sizeof err) != 0;
            if (be) be->vt->close(be);
            if (bad) return fail(err);
            count_all = dev.device_count;
        }
        if (run_devices_specs(opt.devices, count_all, &specs, &n_specs, err, sizeof err) != 0) {
            fprintf(stderr, "tuner run: %s\n", err);
            return EXIT_BAD_INPUT;
        }
        if (is_replay)
            for (int i = 0; i < n_specs; i++) {
                free(specs[i]);
                specs[i] = strdup(base);
                if (!specs[i]) return fail("out of memory");
            }
    }
    run_options o = { opt.args[0], opt.db ? opt.db : "tunekit.db",
                      specs ? (const char *const *)specs : opt.backends,
                      specs ? n_specs : opt.n_backends,
                      opt.strategy, opt.budget_evals, opt.budget_seconds, opt.seed,
                      !opt.quiet && isatty(2), opt.quiet ? NULL : stdout, opt.warm_start,
                      (int)opt.jobs, opt.cache, opt.compiler, opt.shard_k, opt.shard_n,
                      opt.transfer, opt.n_transfer, opt.race };
    run_summary sum;
    int rc = run_space(&o, &sum, err, sizeof err);
    for (int i = 0; specs && i < n_specs; i++) free(specs[i]);
    free(specs);
    if (rc == 2) { fprintf(stderr, "%s\n", err); return EXIT_BAD_INPUT; }
    if (rc != 0) return fail(err);
    if (!opt.quiet) {
        printf("tuner: %lld evaluated (", (long long)sum.evaluated);
        int first = 1;
        for (int s = 0; s < EVAL_STATUS_COUNT; s++)
            if (sum.by_status[s]) {
                printf("%s%lld %s", first ? "" : ", ", (long long)sum.by_status[s], eval_status_name((eval_status)s));
                first = 0;
            }
        printf("%s), %lld already in %s", first ? "none" : "", (long long)sum.resumed, o.db_path);
        if (strcmp(sum.strategy, "exhaustive") != 0)
            printf("; %s searched %lld of %lld configs (%.1f%%)%s%s", sum.strategy,
                   (long long)(sum.evaluated + sum.resumed), (long long)sum.configs,
                   sum.configs ? 100.0 * (double)(sum.evaluated + sum.resumed) / (double)sum.configs : 0.0,
                   sum.transfer_from[0] ? ", starting from the winners in " : "", sum.transfer_from);
        if (sum.unrecorded) printf(", %lld not recorded in the replay source", (long long)sum.unrecorded);
        printf("\n");
        if (sum.race_margin > 0)
            printf("tuner: racing at %g%%: %lld evaluation%s stopped early; %lld playoff%s "
                   "(%lld changed the winner)\n", 100.0 * sum.race_margin, (long long)sum.raced,
                   sum.raced == 1 ? "" : "s", (long long)sum.playoffs, sum.playoffs == 1 ? "" : "s",
                   (long long)sum.playoff_changed);
        if (sum.n_devices > 1)
            for (int i = 0; i < sum.n_devices; i++)
                printf("tuner: device %d (%s, %s): %lld evaluated, %.1f s in its backend%s%s\n", i,
                       sum.devices[i].spec, sum.devices[i].name, (long long)sum.devices[i].evaluated,
                       sum.devices[i].busy_s, sum.devices[i].failed ? "; failed: " : "",
                       sum.devices[i].failed ? sum.devices[i].why : "");
        if (sum.user_kernel)
            printf("tuner: compiled %lld variant%s (%lld refused) in %.1f s of CPU on up to %d "
                   "processes, %lld from the cache; %.1f s in the backend, %.1f s in all\n",
                   (long long)sum.compiled, sum.compiled == 1 ? "" : "s",
                   (long long)sum.compile_failed, sum.compile_cpu_s, sum.jobs,
                   (long long)sum.compile_cached, sum.backend_s, sum.wall_s);
        if (sum.setup_n > 0)
            printf("tuner: set-up: %lld problem%s prepared by the workers (inputs and reference), "
                   "median %.1f ms, max %.1f ms\n", (long long)sum.setup_n,
                   sum.setup_n == 1 ? "" : "s", sum.setup_median_ms, sum.setup_max_ms);
        if (sum.user_kernel || sum.wall_s > 0)
            printf("tuner: time: %.1f s starting (backends, compilers, copy ceiling), %.1f s in "
                   "the backend, %.1f s waiting for the compiler, %.1f s storing results, "
                   "%.1f s in all\n", sum.start_s, sum.backend_s, sum.compile_wait_s, sum.store_s,
                   sum.wall_s);
    }
    return EXIT_OK;
}

static int device_from_cc(const char *cc, device_info *d);

/* ---- space ---- */
static int cmd_space(void)
{
    if (opt.n_args != 1) { cmdline_error("space", "expected one space file%s", ""); return EXIT_BAD_INPUT; }
    char err[2048];
    space *sp = user_space_load(opt.args[0], NULL, err, sizeof err);
    if (!sp) { fprintf(stderr, "%s\n", err); return EXIT_BAD_INPUT; }
    device_info dev, *devp = NULL;
    backend *be = NULL;
    if (opt.backend) {
        be = backend_open(opt.backend, err, sizeof err);
        if (!be || be->vt->device(be, &dev, err, sizeof err) != 0) {
            if (be) be->vt->close(be);
            user_space_free(sp);
            return fail(err);
        }
        devp = &dev;
    }
    printf("space:       %s (kernel %s, sha256 %.16s)\n", sp->path, sp->kernel, sp->sha256);
    if (sp->user) {
        const space_user *u = sp->user;
        printf("user kernel: %s in %s (kernel hash %s, compiler %s), %d argument%s\n",
               u->kernel.launches[0].function, u->kernel.source, space_user_hash(u), u->compiler,
               u->n_args, u->n_args == 1 ? "" : "s");
        static const char *const reduce_names[] = {"sum", "min", "max"};
        for (int i = 0; i < u->n_args; i++) {
            const su_arg *a = &u->args[i];
            printf("  %-12s %s %s %s%s", a->name, a->is_buffer ? "buffer" : "scalar",
                   a->type == SU_DTYPE ? "dtype" : su_type_name(a->type),
                   a->is_buffer ? a->count.text : a->value.text, a->output ? "  (output)" : "");
            if (a->symbol) printf("  (fills the variable %s)", a->symbol);
            if (a->output && a->compare == SU_CMP_REDUCE)
                printf("  (compared by its %s)", reduce_names[a->reduce]);
            if (a->output && a->compare == SU_CMP_CHECK)
                printf("  (compared by the check kernel %s)", a->check->kernel.launches[0].function);
            printf("\n");
        }
        if (u->kernel.n_launches > 1) {
            printf("launches:    %d, in order, timed as one\n", u->kernel.n_launches);
            for (int l = 0; l < u->kernel.n_launches; l++) {
                const su_launch_spec *ls = &u->kernel.launches[l];
                printf("  %-12s (", ls->function);
                for (int j = 0; j < ls->n_args; j++)
                    printf("%s%s", j ? ", " : "", u->args[ls->args[j]].name);
                printf(")\n");
            }
        }
        if (devp && space_user_check(sp, devp, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            if (be) be->vt->close(be);
            user_space_free(sp);
            return EXIT_BAD_INPUT;
        }
    }
    printf("ops:        ");
    for (int i = 0; i < sp->n_ops; i++) printf(" %s", sp->ops[i]);
    printf("\ndtypes:     ");
    for (int i = 0; i < sp->n_dtypes; i++) printf(" %s", sp->dtypes[i]);
    printf("\nproblems:    %d\n", sp->n_problems);
    for (int i = 0; i < sp->n_problems; i++) printf("  %s\n", sp->problems[i].text);
    printf("params:      %d\n", sp->n_params);
    for (int i = 0; i < sp->n_params; i++) {
        printf("  %-12s %3d values:", sp->params[i].name, sp->params[i].n_values);
        for (int k = 0; k < sp->params[i].n_values && k < 12; k++) {
            char v[128];
            value_format(sp->params[i].values[k], v, sizeof v);
            printf(" %s", v);
        }
        printf("%s\n", sp->params[i].n_values > 12 ? " ..." : "");
    }
    int dev_constraints = 0;
    printf("constraints: %d\n", sp->n_constraints);
    for (int i = 0; i < sp->n_constraints; i++) {
        printf("  %s%s\n", sp->constraints[i].text, sp->constraints[i].uses_device && !devp ? "   (reads the device: not applied without --backend)" : "");
        dev_constraints += sp->constraints[i].uses_device;
    }
    int64_t total = 0, lo = -1, hi = 0, tasks = 0;
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = { sp->ops[a], sp->dtypes[b], &sp->problems[c], devp };
                int64_t n = space_count(sp, &bind, err, sizeof err);
                if (n < 0) { fprintf(stderr, "%s\n", err); user_space_free(sp); if (be) be->vt->close(be); return EXIT_BAD_INPUT; }
                total += n; tasks++;
                if (lo < 0 || n < lo) lo = n;
                if (n > hi) hi = n;
            }
    printf("raw points:  %lld per problem\n", (long long)space_raw_size(sp));
    printf("size:        %lld configs to evaluate over %lld (op, dtype, problem); %lld to %lld each%s%s\n",
           (long long)total, (long long)tasks, (long long)lo, (long long)hi,
           devp ? " on " : "", devp ? dev.name : (dev_constraints ? " (device constraints not applied)" : ""));
    if (sp->user) {
        /* geometry beyond the device: recorded unsupported, never compiled or run */
        device_info limits;
        const device_info *dl = devp;
        if (!dl && device_from_cc(opt.cc ? opt.cc : "9.0", &limits) == 0) dl = &limits;
        int64_t excluded = 0, all = 0;
        char why[600];
        if (dl && space_user_excluded(sp, dl, &excluded, &all, why, sizeof why, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            user_space_free(sp);
            if (be) be->vt->close(be);
            return EXIT_BAD_INPUT;
        }
        if (dl && excluded > 0)
            printf("device:      %lld of the %lld configs exceed the limits of %s (recorded unsupported, not run); the first: %s\n",
                   (long long)excluded, (long long)all, devp ? dev.name : "a compute capability 9.0 GPU (--cc, --backend)", why);
        else if (dl)
            printf("device:      every config fits the limits of %s\n",
                   devp ? dev.name : "a compute capability 9.0 GPU (--cc, --backend)");
    }
    space_binding bind = { sp->ops[0], sp->dtypes[0], &sp->problems[0], devp };
    space_iter it;
    space_iter_init(&it, sp, &bind);
    int *choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    printf("first configs (%s %s %s):\n", sp->ops[0], sp->dtypes[0], sp->problems[0].text);
    for (int k = 0; choice && k < 5 && space_iter_next(&it, choice) == 1; k++) {
        char cfg[1024];
        space_config_text(sp, choice, cfg, sizeof cfg);
        printf("  %s\n", cfg);
    }
    free(choice);
    space_iter_free(&it);
    if (be) be->vt->close(be);
    user_space_free(sp);
    return EXIT_OK;
}

/* ---- compile ---- */
/* A device for compiling without one: a compute capability, the limits every CUDA GPU since
 * Volta has, and the per-SM registers and shared memory of that architecture; what it cannot
 * know (SM count, L2, memory) is 0 and not checked. */
static int device_from_cc(const char *cc, device_info *d)
{
    int major = 0, minor = 0;
    char tail;
    if (sscanf(cc, "%d.%d%c", &major, &minor, &tail) != 2 || major < 1 || major > 99 ||
        minor < 0 || minor > 9)
        return -1;
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "compute capability %d.%d", major, minor);
    snprintf(d->uuid, sizeof d->uuid, "none");
    d->cc_major = major;
    d->cc_minor = minor;
    d->max_threads_per_block = 1024;
    int cc_num = major * 10 + minor;
    d->max_threads_per_sm = cc_num == 75 ? 1024 : cc_num == 86 || cc_num == 89 ? 1536 : 2048;
    d->regs_per_sm = 65536;
    d->smem_per_sm = cc_num >= 90 ? 233472 : cc_num == 80 || cc_num == 87 ? 167936
                   : cc_num >= 86 ? 102400 : cc_num == 75 ? 65536 : 98304;
    return 0;
}

static int cmd_compile(void)
{
    if (opt.n_args != 1) { cmdline_error("compile", "expected one space file%s", ""); return EXIT_BAD_INPUT; }
    char err[2048];
    device_info dev;
    if (opt.backend && opt.cc) { cmdline_error("compile", "give --cc or --backend, not both%s", ""); return EXIT_BAD_INPUT; }
    if (!opt.backend && device_from_cc(opt.cc ? opt.cc : "9.0", &dev) != 0) {
        fprintf(stderr, "tuner compile: bad value '%s' for --cc (expected MAJOR.MINOR, e.g. 9.0)\n", opt.cc);
        return EXIT_BAD_INPUT;
    }
    space *sp = user_space_load(opt.args[0], NULL, err, sizeof err);
    if (!sp) { fprintf(stderr, "%s\n", err); return EXIT_BAD_INPUT; }
    if (!sp->user) {
        fprintf(stderr, "tuner compile: %s tunes the built-in family %s, which is compiled with the "
                "library; compile is for user kernels\n", sp->path, sp->kernel);
        user_space_free(sp);
        return EXIT_BAD_INPUT;
    }
    if (opt.backend) {
        backend *be = backend_open(opt.backend, err, sizeof err);
        int bad = !be || be->vt->device(be, &dev, err, sizeof err) != 0;
        if (be) be->vt->close(be);
        if (bad) { user_space_free(sp); return fail(err); }
    }
    int rc = EXIT_OK;
    variant_builder *b = NULL;
    vb_variant *v = malloc(sizeof *v);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!v) { rc = fail("out of memory"); goto done; }
    if (space_user_check(sp, &dev, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    vb_options vo = { .cache_dir = opt.cache, .jobs = (int)opt.jobs, .compiler = opt.compiler,
                      .modules = 1, .space_path = sp->path };
    if (variant_builder_open(sp, &dev, &vo, &b, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        rc = strstr(err, ": error: ") ? EXIT_BAD_INPUT : EXIT_FAIL;
        goto done;
    }
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    int64_t variants = 0, refused = 0, unsupported = 0;
    for (int d = 0; choice && d < sp->n_dtypes && rc == EXIT_OK; d++)
        for (int p = 0; p < sp->n_problems && rc == EXIT_OK; p++) {
            space_binding bind = { sp->ops[0], sp->dtypes[d], &sp->problems[p], &dev };
            vb_task task;
            if (vb_begin_task(b, &bind, -1, &task, err, sizeof err) != 0) {
                fprintf(stderr, "%s\n", err);
                rc = strstr(err, ": error: ") ? EXIT_BAD_INPUT : EXIT_FAIL;
                break;
            }
            vb_task_clear(&task);
            space_iter it;
            space_iter_init(&it, sp, &bind);
            while (space_iter_next(&it, choice) == 1) {
                if (vb_get_variant(b, &bind, choice, v, err, sizeof err) != 0) { rc = fail(err); break; }
                variants++;
                if (v->state == VB_READY) continue;
                refused += v->state == VB_REFUSED;
                unsupported += v->state == VB_UNSUPPORTED;
                if (!opt.quiet) {
                    char cfg[1024];
                    space_config_text(sp, choice, cfg, sizeof cfg);
                    printf("%s: %s %s %s: %.*s\n", v->state == VB_REFUSED ? "refused" : "unsupported",
                           sp->dtypes[d], sp->problems[p].text, cfg, (int)strcspn(v->why, "\n"), v->why);
                }
            }
            space_iter_free(&it);
        }
    free(choice);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == EXIT_OK && !opt.quiet) {
        vb_stats st;
        vb_get_stats(b, &st);
        double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("tuner compile: %s for sm_%d%d (%s): %lld variants (%lld refused by the compiler",
               sp->user->kernel.launches[0].function, dev.cc_major, dev.cc_minor,
               opt.compiler ? opt.compiler : sp->user->compiler, (long long)variants, (long long)refused);
        if (unsupported) printf(", %lld beyond the device's limits", (long long)unsupported);
        printf("); %lld compiled in %.2f s (%.1f per second, %.2f s of CPU on up to %d processes), "
               "%lld from the cache\n", (long long)st.compiled, wall,
               wall > 0 ? (double)st.compiled / wall : 0.0, st.cpu_s, st.jobs,
               (long long)st.cached);
    }
done:
    variant_builder_close(b);
    free(v);
    user_space_free(sp);
    return rc;
}

/* ---- best ---- */
typedef struct best_ctx {
    const char *format;
    int n;
    db *d;
    int with_flops;   /* the table: some row has flops, so every row names its unit */
} best_ctx;

static int best_count_flops(void *ctx, const best_row *r)
{
    *(int *)ctx |= r->flops > 0;
    return 0;
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
            printf("device,op,dtype,shape,config,median_us,gbps,frac_copy,tflops,frac_peak%s\n",
                   opt.compare ? ",default_us,gain_over_default,peer,peer_us,speedup_over_peer" : "");
        printf("\"%s\",%s,%s,\"%s\",\"%s\",%.4f,%.2f,%.4f,", r->device, r->op, r->dtype, r->shape,
               r->config, r->median_us, r->gbps, r->frac_copy);
        if (t.flops) printf("%.4f,%.4f", t.rate, t.frac); else printf(",");
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
            if (opt.compare) printf(" %10s %6s %10s %6s", "default_us", "gain", "peer_us", "vs_peer");
            printf("  config\n");
        }
        printf("%-24.24s %-18s %-5s %-22s %10.2f", r->device, r->op, r->dtype, r->shape, r->median_us);
        if (b->with_flops && t.frac > 0) printf(" %8.*f %-7s %5.1f%% %-9s", t.digits, t.rate, t.unit, 100.0 * t.frac, t.ceiling);
        else if (b->with_flops) printf(" %8.*f %-7s %6s %-9s", t.digits, t.rate, t.unit, "-", "");   /* peak or copy rate unknown */
        else printf(" %8.1f %6.1f", t.rate, 100.0 * t.frac);
        if (opt.compare) {
            if (c.default_us > 0) printf(" %10.2f %5.2fx", c.default_us, gain); else printf(" %10s %6s", "-", "-");
            if (c.peer_us > 0) printf(" %10.2f %5.2fx", c.peer_us, vs_peer); else printf(" %10s %6s", "-", "-");
        }
        printf("  %s\n", r->config);
    }
    b->n++;
    return 0;
}

static int cmd_best(void)
{
    if (opt.n_args) { cmdline_error("best", "unexpected argument '%s'", opt.args[0]); return EXIT_BAD_INPUT; }
    const char *path = opt.db ? opt.db : "tunekit.db";
    char err[1024];
    db *d;
    if (db_open_readonly(path, &d, err, sizeof err) != 0) return fail(err);
    best_ctx b = { opt.format ? opt.format : "table", 0, d, 0 };
    int rc = strcmp(b.format, "table") == 0
                 ? db_each_best(d, opt.device, opt.op, opt.dtype, best_count_flops, &b.with_flops)
                 : 0;
    if (rc == 0) rc = db_each_best(d, opt.device, opt.op, opt.dtype, best_print, &b);
    if (strcmp(b.format, "json") == 0) printf(b.n ? "\n]\n" : "[]\n");
    db_close(d);
    if (rc != 0) return fail("reading the best view failed");
    if (b.n == 0 && strcmp(b.format, "table") == 0) fprintf(stderr, "tuner best: no ok evaluation matches\n");
    return EXIT_OK;
}

/* The dumps (.sql.xz or .sql) among the files pattern matches, in name order, appended to inputs
 * while n < max; g holds the names until globfree. Returns the new n, or -1 when pattern matches
 * no file (g then holds nothing). */
static int add_dumps(glob_t *g, const char *pattern, const char **inputs, int n, int max)
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
static int add_committed_dumps(glob_t *g, const char **inputs, int n, int max)
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

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *g = realloc(buf, cap);
            if (!g) { free(buf); fclose(f); return NULL; }
            buf = g;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf) buf = calloc(1, 1);
    else buf[len] = 0;
    return buf;
}

static int cmd_header(void)
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
    int rc = sp ? header_user_generate(sp, inputs, n, out, &text, err, sizeof err)
                : header_generate(inputs, n, &text, err, sizeof err);
    globfree(&g);
    user_space_free(sp);
    if (rc != 0) return fail(err);
    if (opt.check) {
        char *have = read_file(out);
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
static int cmd_db(void)
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

static int cmd_devices(void)
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
static int cmd_report(void)
{
    const char *inputs[64];
    int n = 0;
    glob_t g;
    memset(&g, 0, sizeof g);
    if (opt.db) inputs[n++] = opt.db;
    for (int i = 0; i < opt.n_args && n < 64; i++) inputs[n++] = opt.args[i];
    if (n == 0) n = add_committed_dumps(&g, inputs, n, 64);
    report_options o = { inputs, n, opt.device, opt.out ? opt.out : "reports", opt.quiet ? NULL : stdout,
                         opt.all_problems };
    char err[4096];
    int rc = report_generate(&o, err, sizeof err);
    globfree(&g);
    if (rc == 2) { fprintf(stderr, "tuner report: %s\n", err); return EXIT_BAD_INPUT; }
    return rc == 0 ? EXIT_OK : fail(err);
}

/* ---- strategies ---- */
static int cmd_strategies(void)
{
    char err[2048];
    int rc = strategies_command(opt.argc, opt.argv, err, sizeof err);
    if (rc == EXIT_BAD_INPUT) fprintf(stderr, "%s\n", err);
    else if (rc != EXIT_OK) fail(err);
    return rc;
}

static int cmd_retime(void)
{
    char err[2048];
    if (opt.n_args != 1 || !opt.db || !opt.against) {
        fprintf(stderr, "tuner retime: needs SPACE, --db A and --against B; see 'tuner retime --help'\n");
        return EXIT_BAD_INPUT;
    }
    if (opt.format && strcmp(opt.format, "json") == 0) {
        fprintf(stderr, "tuner retime: --format is table or csv\n");
        return EXIT_BAD_INPUT;
    }
    int csv = opt.format && strcmp(opt.format, "csv") == 0;
    retime_options o = { opt.args[0], opt.db, opt.against, opt.backend,
                         opt.quiet ? NULL : stdout, csv, (int)opt.repeat,
                         (int)opt.rounds, opt.cache };
    retime_summary sum;
    int rc = run_retime(&o, &sum, err, sizeof err);
    if (rc == 2) { fprintf(stderr, "%s\n", err); return EXIT_BAD_INPUT; }
    if (rc != 0) return fail(err);
    int n = sum.same + sum.timed;
    fprintf(csv ? stderr : stdout,
            "tuner retime: %d problems: %d same config, %d re-timed side by side, %d failed, %d "
            "without a winner in both; regret of a over b: median %.2f%%, p90 %.2f%%, max %.2f%%; "
            "within 1%%: %d of %d, within 2%%: %d of %d\n",
            sum.problems, sum.same, sum.timed, sum.failed, sum.missing, 100 * sum.median,
            100 * sum.p90, 100 * sum.max, sum.within1, n, sum.within2, n);
    return EXIT_OK;
}

static const command commands[] = {
    { "run", cmd_run,
      "tuner run SPACE [--db PATH] [--backend cuda|cuda:N|replay:DUMP]... [--devices all|0,2,3]\n"
      "                [--shard K/N] [--strategy NAME] [--budget-evals N] [--budget-seconds S]\n"
      "                [--race MARGIN] [--seed N] [--warm-start] [--transfer-from DUMP]...\n"
      "                [--jobs N] [--cache DIR] [--compiler nvrtc|nvcc] [-q]\n"
      "  Tunes every op, dtype and problem of SPACE on the backend's device, storing every\n"
      "  evaluation in the database (default tunekit.db). Re-running resumes: what the database\n"
      "  already holds for this device, problem, config and kernel source is skipped.\n"
      "  Strategies: exhaustive, random, anneal, genetic, local, bayes, ensemble, transfer; an\n"
      "  exhaustive space under a budget smaller than the space is searched with ensemble instead.\n"
      "  On a GPU, when db/results/ (or --transfer-from) holds other GPUs' results of the space's\n"
      "  kernel, the default is transfer: their winners first, then a local search that stops\n"
      "  when it converges (docs/time-to-tune.md); --strategy exhaustive measures everything.\n"
      "  Racing stops timing a config once it is surely slower than the problem's best so far\n"
      "  by more than the margin (the space's measure.race, default 0.05; --race overrides it,\n"
      "  0 turns it off); then the configs within the margin of the best play off, re-timed\n"
      "  interleaved, and the playoff picks the winner (docs/time-to-tune.md).\n"
      "  --warm-start tries first the winners the database holds for other GPUs (nearest\n"
      "  compute capability first).\n"
      "  --devices all|0,2,3 runs a worker per GPU: the GPUs of one model share its problems,\n"
      "  each model tunes them all; a GPU that fails gives its problem back. --backend may be\n"
      "  given several times (one device each). --shard K/N tunes only the K-th of N shares\n"
      "  of the problems, balanced by their estimated cost, for N jobs whose dumps\n"
      "  `tuner db merge` joins (docs/scaling.md).\n"
      "  replay:DUMP answers from recorded measurements (a dump, .sql.xz or .sql, or a\n"
      "  database) of one GPU model; its cards replay as that model, each problem from the card\n"
      "  with the most evaluations of it. replay:DUMP#NAME picks a model, #UUID one card.\n"
      "  A user kernel (docs/user-kernels.md) is compiled by up to --jobs compiler processes\n"
      "  (default: one per core) ahead of the GPU, into the cache --cache (default\n"
      "  $TUNEKIT_CACHE, else ~/.cache/tunekit/cubin), with the space's kernel.compiler\n"
      "  (--compiler overrides it). Variants whose geometry exceeds the GPU are recorded\n"
      "  unsupported without compiling them.\n"
      "  A progress line with ETA goes to stderr when it is a terminal." },
    { "compile", cmd_compile,
      "tuner compile SPACE [--cc MAJOR.MINOR | --backend cuda|replay:DUMP] [--jobs N]\n"
      "                    [--cache DIR] [--compiler nvrtc|nvcc] [-q]\n"
      "  Compiles every variant of a user kernel (docs/user-kernels.md) for a GPU architecture\n"
      "  (default --cc 9.0, or the backend's device) without running anything: checks sizes and\n"
      "  geometry, that the kernel compiles and takes the arguments the space lists, compiles\n"
      "  its reference and check kernels, and fills the compile cache so that a later run\n"
      "  compiles nothing. Lists the variants the compiler refuses and those beyond the\n"
      "  device's limits. --compiler overrides the space's kernel.compiler." },
    { "space", cmd_space,
      "tuner space SPACE [--backend cuda|replay:DUMP | --cc MAJOR.MINOR]\n"
      "  Checks SPACE and describes it: ops, dtypes, problems, parameters, constraints, the\n"
      "  constrained size and a few configs; for a user kernel its arguments, launches, and how\n"
      "  many configs exceed the device's limits (the backend's device, else a GPU of compute\n"
      "  capability --cc, default 9.0). Errors: 'file:line:col: error: ...', exit 2.\n"
      "  With --backend, constraints that read device attributes are applied for its device." },
    { "best", cmd_best,
      "tuner best [--db PATH|DUMP.sql] [--op OP] [--dtype DT] [--device NAME] [--format table|csv|json]\n"
      "           [--compare]\n"
      "  The winning config per device, op, dtype and problem (the database's `best` view).\n"
      "  A problem with flops (a user kernel's kernel.flops) shows TFLOP/s and the share of the\n"
      "  GPU's FP32 peak (FP64 for f64) instead of GB/s and the share of the copy rate; csv and\n"
      "  json give tflops and frac_peak beside gbps and frac_copy.\n"
      "  --compare adds the classic default config's time measured in the same run and its gain,\n"
      "  and the fastest reference library recorded by scripts/peers.py and the speedup over it." },
    { "header", cmd_header,
      "tuner header [-o FILE] [--check] [--db PATH] [DUMP...]\n"
      "tuner header --space SPACE [-o FILE] [--check] [--db PATH] [DUMP...]\n"
      "  Writes the tuned-config header (default kernels/tuned_configs.h) from the dumps\n"
      "  (default db/results/*.sql.xz and *.sql). --check exits 1 when FILE differs from what\n"
      "  would be written. With --space, the header of a user kernel's winners (default SPACE's\n"
      "  name + _tuned.h, from the dumps in results/ beside SPACE, else db/results/): self-contained,\n"
      "  with a run-time lookup and compile-time #defines (docs/user-kernels.md)." },
    { "db", cmd_db,
      "tuner db export [--db PATH] [-o FILE]    deterministic SQL text dump (default: stdout);\n"
      "                                         FILE ending in .xz: compressed (xz -9e), as the\n"
      "                                         committed db/results/<gpu-model>.sql.xz are\n"
      "tuner db import DUMP... [--db PATH]      load dumps, .sql or .sql.xz (idempotent)\n"
      "tuner db merge OTHER.db... [--db PATH]   merge other databases (idempotent)\n"
      "tuner db check [--db PATH]               integrity, foreign keys, schema version\n"
      "tuner db info [--db PATH]                row counts" },
    { "devices", cmd_devices,
      "tuner devices [--db PATH]\n"
      "  Lists the CUDA devices on this machine (asked through a worker process) and the devices\n"
      "  recorded in the database or in the committed dumps (db/results/)." },
    { "report", cmd_report,
      "tuner report [-o DIR] [--device NAME|SLUG|UUID] [--db PATH|DUMP.sql] [DUMP...]\n"
      "             [--all-problems] [-q]\n"
      "  Writes DIR/<device>/index.html, its Markdown twin README.md and SVG figures (default DIR\n"
      "  reports) from the dumps (default db/results/*.sql.xz): per op, dtype and problem the tuned\n"
      "  config, its time, GB/s, share of the copy ceiling (TFLOP/s and share of the GPU's peak\n"
      "  where the problems have flops), gain over the classic default and speedup over the\n"
      "  reference library; bandwidth against size; parameter importance;\n"
      "  two-parameter slices of each op and dtype's largest problem (--all-problems: of every\n"
      "  problem); all variants' times; strategy convergence. Same inputs, same bytes." },
    { "strategies", cmd_strategies,
      "tuner strategies SPACE --replay DUMP [--seeds N] [--budget N|P%] [--strategy A,B,...]\n"
      "                 [--op OP] [--dtype DT] [--format table|csv] [--transfer-from OTHER]\n"
      "  Replays search strategies (default: all but exhaustive) against the exhaustive recorded\n"
      "  space: per strategy, the median and 90th percentile over problems and seeds 1..N\n"
      "  (default 30) of the evaluations needed to come within 1%, 2% and 5% of the recorded\n"
      "  optimum, and the gap left at the budget (default 10% of each problem's configs).\n"
      "  --transfer-from OTHER replays the transfer search instead (OTHER's winners on other\n"
      "  GPUs first, then a local search until it converges): evaluations and regret per problem." },
    { "retime", cmd_retime,
      "tuner retime SPACE --db A --against B [--backend cuda|cuda:N|replay:DUMP]\n"
      "             [--rounds N] [--repeat N] [--format table|csv] [--cache DIR] [-q]\n"
      "  Times the winners of A and of B (databases or dumps of the backend's GPU model) side\n"
      "  by side: for every problem of SPACE where they differ, the two configs play off on the\n"
      "  GPU in one go, one run of each per round (interleaved, L2 as the space's measure sets\n"
      "  it), so the drift between the runs that chose them cancels; the regret of A's\n"
      "  winner is its median there over B's, minus one. Prints it per problem and the median,\n"
      "  90th percentile, maximum and the counts within 1% and 2% (docs/time-to-tune.md).\n"
      "  A reading is 500 rounds (--rounds N, 5-100000), or 2 s of GPU time per config:\n"
      "  with a run's own playoff settings the judge's noise was as large as the 1% it\n"
      "  judges. --repeat N (1-20) reads every pair N times, each in a new worker process,\n"
      "  and takes the median of the N regrets. A user kernel's winners are compiled as\n"
      "  `tuner run` compiles them (from the cache --cache when it has them)." },
};
#define N_COMMANDS (int)(sizeof commands / sizeof commands[0])

static const char *const allowed_options[] = {
    /* run */     " db backend devices shard strategy budget-evals budget-seconds race seed warm-start jobs cache compiler transfer-from q ",
    /* compile */ " cc backend jobs cache compiler q ",
    /* space */   " backend cc ",
    /* best */    " db op dtype device format compare ",
    /* header */  " o output check db space q ",
    /* db */      " db o output q ",
    /* devices */ " db ",
    /* report */  " o output db device all-problems q ",
    /* strategies */ " replay seeds budget strategy op dtype format transfer-from ",
    /* retime */  " db against backend rounds repeat format cache q ",
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tuner COMMAND [options]   (tuner COMMAND --help for more)\n\n");
    for (int i = 0; i < N_COMMANDS; i++) fprintf(f, "%s\n\n", commands[i].usage);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "__compile") == 0)
        return pool_compile_main();
    if (argc >= 2 && strcmp(argv[1], "__worker") == 0) {
        int64_t ord;
        if (argc != 3 || parse_i64(argv[2], &ord) || ord < 0) return EXIT_BAD_INPUT;
        return worker_main((int)ord);
    }
    if (argc < 2) { usage(stderr); return EXIT_BAD_INPUT; }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    opt.budget_evals = -1;
    opt.budget_seconds = -1;
    opt.race = -1;
    opt.seed = -1;
    for (int i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        int p = parse_args(commands[i].name, argc - 2, argv + 2, allowed_options[i]);
        if (p < 0) return EXIT_BAD_INPUT;
        if (p > 0) { printf("%s\n", commands[i].usage); return EXIT_OK; }
        opt.argc = argc - 2;
        opt.argv = argv + 2;
        return commands[i].fn();
    }
    fprintf(stderr, "tuner: unknown command '%s'; see 'tuner --help'\n", argv[1]);
    return EXIT_BAD_INPUT;
}

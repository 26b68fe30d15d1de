/* cmd_tune.c: the commands that tune and judge (`tuner run`, `tuner retime`, `tuner
 * strategies`) and those that look at a space before any GPU time is spent (`tuner space`, and
 * `tuner compile`, which compiles a user kernel's variants for an architecture without a GPU). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "backend/backend.h"
#include "build/variant.h"
#include "cli.h"
#include "core/objective.h"
#include "ops/user_kernel.h"
#include "run/run.h"
#include "search/strategies_cmd.h"
#include "space/space.h"
#include "space/space_user.h"

/* ---- run ---- */
int cmd_run(void)
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
                      opt.transfer, opt.n_transfer, opt.race,
                      opt.objective ? objective_parse(opt.objective) : -1 };
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
        if (sum.energy_s > 0 && sum.energy_top > 0)
            printf("tuner: objective %s; energy measured over %g s windows for each problem's "
                   "contenders (within %g%% of its best time, at most %d): %lld of %lld windows "
                   "with energy%s\n", objective_name((objective)sum.objective), sum.energy_s,
                   100.0 * sum.energy_within, sum.energy_top, (long long)sum.with_energy,
                   (long long)(sum.with_energy + sum.without_energy),
                   sum.without_energy ? " (the others: no NVML, or a window the energy counter "
                                        "did not move in twice; docs/energy.md)" : "");
        else if (sum.energy_s > 0)
            printf("tuner: objective %s; energy measured over %g s windows: %lld of %lld ok "
                   "evaluations%s\n", objective_name((objective)sum.objective), sum.energy_s,
                   (long long)sum.with_energy, (long long)(sum.with_energy + sum.without_energy),
                   sum.without_energy ? " (the others: no NVML, or a window the energy counter "
                                        "did not move in twice; docs/energy.md)" : "");
        if (sum.energy_s > 0)
            printf("tuner: energy: %lld window%s, %.1f s, for %lld problem%s\n",
                   (long long)sum.energy_windows, sum.energy_windows == 1 ? "" : "s",
                   sum.energy_window_s, (long long)sum.energy_problems,
                   sum.energy_problems == 1 ? "" : "s");
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

int cmd_retime(void)
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

/* ---- strategies ---- */
int cmd_strategies(void)
{
    char err[2048];
    int rc = strategies_command(opt.argc, opt.argv, err, sizeof err);
    if (rc == EXIT_BAD_INPUT) fprintf(stderr, "%s\n", err);
    else if (rc != EXIT_OK) fail(err);
    return rc;
}

/* A struct argument's layout for dtype, field by field, as `tuner space` shows it: what to hold
 * against the C struct the kernel declares. */
static int print_leaf(void *ctx, const su_field *f, int element, int type, size_t offset)
{
    (void)ctx;
    printf("      +%-4zu %-4s ", offset, type < 0 ? "ptr" : f->is_bool ? "bool" : su_type_name(type));
    if (f->name)
        printf("%s", f->name);
    if (f->is_array)
        printf("[%d]", element);
    if (f->kind == SU_FIELD_POINTER)
        printf("%s%s", f->name ? " = " : "", f->target ? f->target : "null");
    else
        printf("%s%s", f->name ? " = " : "", f->values[element].text);
    printf("\n");
    return 0;
}

static void print_struct(const su_arg *a, const char *dtype)
{
    size_t size, align;
    if (su_struct_layout(a->record, su_type_parse(dtype), &size, &align, NULL, NULL) != 0) {
        printf("  %-12s struct (its layout needs an element dtype, not %s)\n", a->name, dtype);
        return;
    }
    printf("  %-12s struct of %zu bytes, aligned to %zu (for dtype %s):\n", a->name, size,
           align, dtype);
    su_struct_layout(a->record, su_type_parse(dtype), &size, &align, print_leaf, NULL);
}

/* ---- space ---- */
int cmd_space(void)
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
        printf("user kernel: %s in %s (kernel hash %s, compiler %s%s%s), %d argument%s\n",
               u->kernel.launches[0].function, u->kernel.source, space_user_hash(u), u->compiler,
               u->arch_suffix[0] ? ", architecture suffix " : "", u->arch_suffix, u->n_args,
               u->n_args == 1 ? "" : "s");
        if (u->base)
            printf("base:        %s (this file's problems and inputs over it)\n", u->base);
        static const char *const reduce_names[] = {"sum", "min", "max"};
        for (int i = 0; i < u->n_args; i++) {
            const su_arg *a = &u->args[i];
            if (a->is_pointer) {
                const su_field *f = &a->record->members[0];
                printf("  %-12s pointer %s\n", a->name, f->target ? f->target : "null");
                continue;
            }
            if (a->record) {
                print_struct(a, sp->dtypes[0]);
                continue;
            }
            if (a->tensor_map) {
                const su_tensor_map *t = a->tensor_map;
                printf("  %-12s tensor map over %s, rank %d, dims [", a->name, t->target, t->rank);
                for (int d = 0; d < t->rank; d++)
                    printf("%s%s", d ? ", " : "", t->dims[d].text);
                printf("], box [");
                for (int d = 0; d < t->rank; d++)
                    printf("%s%s", d ? ", " : "", t->box[d].text);
                printf("]");
                if (t->n_strides) {
                    printf(", strides [");
                    for (int d = 0; d < t->n_strides; d++)
                        printf("%s%s", d ? ", " : "", t->strides[d].text);
                    printf("]");
                }
                printf(", swizzle %d, out of bounds %s\n", t->swizzle, t->oob_nan ? "NaN" : "zeros");
                continue;
            }
            if (a->texture) {
                static const char *const modes[] = {"wrap", "clamp", "mirror", "border"};
                const su_texture *t = a->texture;
                printf("  %-12s texture over %s, %d-D [", a->name, t->target, t->n_dims);
                for (int d = 0; d < t->n_dims; d++)
                    printf("%s%s", d ? ", " : "", t->dims[d].text);
                if (t->n_dims == 1)
                    printf("] (the buffer itself, tex1Dfetch)");
                else
                    printf("] (a CUDA array), %s filter, %s, %s coordinates", t->linear_filter ?
                           "linear" : "point", modes[t->address], t->normalized_coords ?
                           "normalized" : "texel");
                printf(", %d element%s a texel, read %s\n", t->channels, t->channels == 1 ? "" :
                       "s", t->read_normalized ? "normalized" : "as stored");
                continue;
            }
            printf("  %-12s %s %s %s%s", a->name, a->is_buffer ? "buffer" : "scalar",
                   a->type == SU_DTYPE ? "dtype" : a->is_bool ? "bool" : su_type_name(a->type),
                   a->is_buffer ? a->count.text : a->value.text, a->output ? "  (output)" : "");
            if (a->symbol) printf("  (fills the variable %s)", a->symbol);
            if (a->is_buffer && a->init == SU_INIT_FILE) printf("  (from %s)", a->file);
            if (a->is_buffer && (a->init == SU_INIT_RANDOM || a->init == SU_INIT_ARANGE ||
                                 a->init == SU_INIT_CONSTANT)) {
                char v[2][64];
                snprintf(v[0], sizeof v[0], "%g", a->a);
                snprintf(v[1], sizeof v[1], "%g", a->b);
                const char *lo = a->init_x[0].text ? a->init_x[0].text : v[0];
                const char *hi = a->init_x[1].text ? a->init_x[1].text : v[1];
                if (a->init == SU_INIT_CONSTANT)
                    printf("  (constant %s)", lo);
                else
                    printf("  (%s [%s, %s])", a->init == SU_INIT_RANDOM ? "random" : "arange", lo, hi);
            }
            if (a->output && a->compare == SU_CMP_REDUCE)
                printf("  (compared by its %s)", reduce_names[a->reduce]);
            if (a->output && a->compare == SU_CMP_CHECK)
                printf("  (compared by the check kernel %s)", a->check->kernel.launches[0].function);
            printf("\n");
        }
        /* what reaches the compiler: the macros, and the template arguments */
        const su_kernel *k = &u->kernel;
        printf("macros:     ");
        for (int i = 0; i < k->n_defines; i++) {
            printf(" -D%s%s%s", k->define_names[i], k->define_values[i].text ? "=" : "",
                   k->define_values[i].text ? k->define_values[i].text : "");
            if (k->define_conds && k->define_conds[i].text)
                printf(" (if %s)", k->define_conds[i].text);
        }
        printf("%s%s\n", k->n_defines ? "" : " none",
               !k->defines_default ? ""
               : k->n_defines ? "  (not given: the parameters the source names)"
                              : " (not given, and the source names no parameter)");
        for (int l = 0; l < k->n_launches; l++) {
            const su_launch_spec *ls = &k->launches[l];
            if (!ls->n_template)
                continue;
            printf("template:    %s<", ls->function);
            for (int j = 0; j < ls->n_template; j++)
                printf("%s%s", j ? ", " : "", ls->templ[j].text);
            printf(">\n");
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
    printf("search:      %s", sp->search.strategy);
    if (sp->search.objective != OBJECTIVE_TIME)
    {
        printf(", objective %s (energy over %g s windows", objective_name(sp->search.objective),
               sp->measure.energy_s > 0 ? sp->measure.energy_s : ENERGY_DEFAULT_S);
        if (sp->measure.energy_top == MEASURE_ENERGY_ALL)
            printf(" for every config)");
        else
            printf(" for each problem's contenders: within %g%% of its best time, at most %d)",
                   100.0 * sp->measure.energy_within, sp->measure.energy_top);
    }
    else if (sp->measure.energy_s > 0)
        printf(", energy measured over %g s windows", sp->measure.energy_s);
    if (sp->search.n_start > 0)
        printf(", %d start config%s (search.start)", sp->search.n_start,
               sp->search.n_start == 1 ? "" : "s");
    if (sp->search.budget_evals > 0 || sp->search.budget_seconds > 0)
        printf(", budget %lld evaluations / %g s per problem (0: none)",
               (long long)sp->search.budget_evals, sp->search.budget_seconds);
    printf("\n");
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
        char cc_text[96];
        snprintf(cc_text, sizeof cc_text, "a compute capability %s GPU (--cc, --backend)",
                 opt.cc ? opt.cc : "9.0");
        if (dl && excluded > 0)
            printf("device:      %lld of the %lld configs exceed the limits of %s (recorded unsupported, not run); the first: %s\n",
                   (long long)excluded, (long long)all, devp ? dev.name : cc_text, why);
        else if (dl)
            printf("device:      every config fits the limits of %s\n", devp ? dev.name : cc_text);
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
 * Volta has, the per-SM registers and shared memory of that architecture, and the SM count of
 * its data-centre part (so that a grid sized from sm_count, a persistent kernel's, evaluates:
 * 132 for 9.0, an H100 SXM's); what it cannot know (L2, memory) is 0 and not checked. */
int device_from_cc(const char *cc, device_info *d)
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
    /* V100, T4, A100, A40, L40S, H100 SXM, B200 */
    static const int sms[][2] = {{70, 80}, {75, 40}, {80, 108}, {86, 84}, {89, 142}, {90, 132},
                                 {100, 148}};
    for (size_t i = 0; i < sizeof sms / sizeof *sms; i++)
        if (sms[i][0] == cc_num)
            d->sm_count = sms[i][1];
    return 0;
}

int cmd_compile(void)
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
                    char head[1024];
                    if (v->state == VB_REFUSED)
                        vb_log_head(v->why, head, sizeof head);
                    else
                        snprintf(head, sizeof head, "%.*s", (int)strcspn(v->why, "\n"), v->why);
                    printf("%s: %s %s %s: %s\n", v->state == VB_REFUSED ? "refused" : "unsupported",
                           sp->dtypes[d], sp->problems[p].text, cfg, head);
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
        printf("tuner compile: %s for sm_%d%d%s (%s): %lld variants (%lld refused by the compiler",
               sp->user->kernel.launches[0].function, dev.cc_major, dev.cc_minor,
               sp->user->arch_suffix,
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


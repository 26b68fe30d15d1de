/* main.c: the `tuner` command line. The one options struct and its parsing, the command table
 * with the usage texts, and main. Commands (cmd_tune.c: run, retime, strategies, space, compile;
 * cmd_results.c: best, header, db, devices, report) are the only place where errors become
 * messages ("tuner: error: ...") and exit codes (cli.h). Also the hidden `__worker ORDINAL`
 * that backend_cuda re-executes to own a GPU, and the hidden `__compile` that the compile pool
 * (tuner/build/pool.c) re-executes for its compilations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build/pool.h"
#include "cli.h"
#include "core/objective.h"
#include "core/stats.h"
#include "run/run.h"
#include "worker/worker.h"

/* The one global: options as parsed from the command line. */
cli_options opt;

void cmdline_error(const char *cmd, const char *fmt, const char *arg)
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
        else if (strcmp(a, "--objective") == 0) {
            opt.objective = v;
            bad = objective_parse(v) < 0;
        }
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

int fail(const char *msg)
{
    /* a message that already says where ("space.yaml:4:20: error: ...") goes as it is */
    const char *e = strstr(msg, ": error: ");
    int located = e && e > msg && !memchr(msg, ' ', (size_t)(e - msg));
    fprintf(stderr, "%s%s\n", located ? "" : "tuner: error: ", msg);
    return EXIT_FAIL;
}

static const command commands[] = {
    { "run", cmd_run,
      "tuner run SPACE [--db PATH] [--backend cuda|cuda:N|replay:DUMP]... [--devices all|0,2,3]\n"
      "                [--shard K/N] [--strategy NAME] [--budget-evals N] [--budget-seconds S]\n"
      "                [--race MARGIN] [--seed N] [--warm-start] [--transfer-from DUMP]...\n"
      "                [--jobs N] [--cache DIR] [--compiler nvrtc|nvcc]\n"
      "                [--objective time|energy|edp] [-q]\n"
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
      "  --objective (the space's search.objective, default time) is what the search\n"
      "  minimises: time, energy (joules per run) or edp (energy x time); energy and edp\n"
      "  measure every config's energy (measure.energy, default 1 s windows, NVML) and\n"
      "  turn racing and the playoff off (docs/energy.md).\n"
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
      "           [--compare] [--objective time|energy|edp]\n"
      "  The winning config per device, op, dtype and problem (the database's `best` view; with\n"
      "  --objective energy or edp, the least energy per run or energy x time, docs/energy.md).\n"
      "  A problem with flops (a user kernel's kernel.flops) shows TFLOP/s and the share of the\n"
      "  GPU's FP32 peak (FP64 for f64) instead of GB/s and the share of the copy rate; csv and\n"
      "  json give tflops and frac_peak beside gbps and frac_copy.\n"
      "  --compare adds the classic default config's time measured in the same run and its gain,\n"
      "  and the fastest reference library recorded by scripts/peers.py and the speedup over it." },
    { "header", cmd_header,
      "tuner header [-o FILE] [--check] [--db PATH] [--objective time|energy|edp] [DUMP...]\n"
      "tuner header --space SPACE [-o FILE] [--check] [--db PATH] [--objective ...] [DUMP...]\n"
      "  Writes the tuned-config header (default kernels/tuned_configs.h) from the dumps\n"
      "  (default db/results/*.sql.xz and *.sql). --check exits 1 when FILE differs from what\n"
      "  would be written. With --space, the header of a user kernel's winners (default SPACE's\n"
      "  name + _tuned.h, from the dumps in results/ beside SPACE, else db/results/): self-contained,\n"
      "  with a run-time lookup and compile-time #defines (docs/user-kernels.md).\n"
      "  --objective writes the winners of that objective (default time; docs/energy.md)." },
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
      "             [--all-problems] [--objective time|energy|edp] [-q]\n"
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
    /* run */     " db backend devices shard strategy objective budget-evals budget-seconds race seed warm-start jobs cache compiler transfer-from q ",
    /* compile */ " cc backend jobs cache compiler q ",
    /* space */   " backend cc ",
    /* best */    " db op dtype device format compare objective ",
    /* header */  " o output check db space objective q ",
    /* db */      " db o output q ",
    /* devices */ " db ",
    /* report */  " o output db device all-problems objective q ",
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


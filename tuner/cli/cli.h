/* cli.h: what the command line's files share (tuner/cli): the exit codes, the one options struct
 * that main.c fills from the command line, and the helpers every command uses to turn errors into
 * messages. Nothing outside tuner/cli includes it. */
#pragma once
#include <glob.h>
#include <stddef.h>
#include <stdint.h>
#include "core/device.h"

enum exit_code { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_BAD_INPUT = 2 };

/* Options as parsed from the command line. */
typedef struct cli_options {
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
    const char *objective;       /* --objective time|energy|edp (NULL: the space's, or time) */
    const char *transfer[64];    /* every --transfer-from */
    int n_transfer;
    const char *shard;           /* --shard K/N */
    int64_t repeat, rounds;      /* --repeat, --rounds (retime) */
    int shard_k, shard_n;
    int argc;                    /* the command's raw arguments, for commands that parse their own */
    char **argv;
    int n_args;
    const char *args[64];        /* positional arguments after the command */
} cli_options;


/* The one global: main.c's. */
extern cli_options opt;

/* "tuner CMD: <fmt with arg>; see 'tuner CMD --help'" on stderr. */
void cmdline_error(const char *cmd, const char *fmt, const char *arg);
/* "tuner: error: msg" on stderr; returns EXIT_FAIL. */
int fail(const char *msg);
/* A device for compiling without one: a compute capability "MAJOR.MINOR" and the limits of that
 * architecture. 0, or -1 for a malformed value. */
int device_from_cc(const char *cc, device_info *d);
/* The dumps matching pattern, appended to inputs[n..max); the committed ones (db/results/).
 * Return the new count. */
int add_dumps(glob_t *g, const char *pattern, const char **inputs, int n, int max);
int add_committed_dumps(glob_t *g, const char **inputs, int n, int max);

/* The commands (cmd_tune.c: run, retime, strategies, space, compile; cmd_results.c: best,
 * header, db, devices, report). Each returns an exit code. */
int cmd_run(void);
int cmd_retime(void);
int cmd_strategies(void);
int cmd_space(void);
int cmd_compile(void);
int cmd_best(void);
int cmd_header(void);
int cmd_db(void);
int cmd_devices(void);
int cmd_report(void);

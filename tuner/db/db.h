/* db.h: the one database layer. SQLite, schema db/schema.sql embedded in the binary, WAL, foreign
 * keys on, busy timeout; one transaction per evaluation; forward migrations by PRAGMA
 * user_version. Also the deterministic text dump (export), import of dumps, merge of databases,
 * integrity check, and the queries the run loop, replay backend, `best` and `header` need.
 *
 * A path ending in ".sql" or ".sql.xz" (compressed, db_xz.h) given to db_open_readonly is a dump:
 * it is loaded into an in-memory database, so every reader (header, best, replay, report) takes a
 * dump or a database alike. */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "core/device.h"
#include "core/eval.h"
#include "core/throughput.h"

#define DB_SCHEMA_VERSION 7

typedef struct db db;

/* Opens (creating if missing and create != 0) a database file and brings its schema to
 * DB_SCHEMA_VERSION. Refuses a file that is not a SQLite database or has a newer schema.
 * Returns 0 or -1 with err. */
int db_open(const char *path, int create, db **out, char *err, size_t len);
/* Opens a database file read-only, or loads a .sql or .sql.xz dump (several: db_open_dumps)
 * into memory. */
int db_open_readonly(const char *path, db **out, char *err, size_t len);
int db_open_dumps(const char *const *paths, int n, db **out, char *err, size_t len);
/* The same without the runs' samples (DB_IMPORT_NO_SAMPLES) and, when kernel is not NULL, with
 * only that kernel's evaluations: for readers of the best configs (the header, the transfer
 * search), which never read a sample. Several times faster: the samples are most of a dump's
 * rows. */
int db_open_dumps_summary(const char *const *paths, int n, const char *kernel, db **out,
                          char *err, size_t len);
void db_close(db *d);
/* 1 when path ends in ".sql" or ".sql.xz" (a dump, db_xz.h, rather than a database file). */
int db_path_is_dump(const char *path);

/* ---- the run loop ---- */
typedef struct run_info {
    const char *space, *space_hash, *strategy, *backend, *tuner_version;
    uint64_t seed;
    double copy_gbps;
} run_info;

int db_put_device(db *d, const device_info *dev, int64_t *device_id, char *err, size_t len);
int db_begin_run(db *d, int64_t device_id, const run_info *info, int64_t *run_id, char *err,
                 size_t len);
int db_end_run(db *d, int64_t run_id, char *err, size_t len);
/* Stores a problem (or updates the one of the same op, dtype and shape): flops are the
 * floating-point operations one run does (op_family.flops), 0 when not given (stored NULL). */
int db_put_problem(db *d, const char *op, const char *dtype, const char *shape, int64_t elements,
                   int64_t bytes, int64_t size_key /* -1: NULL */, int64_t flops,
                   int64_t *problem_id, char *err, size_t len);
/* A problem's contenders on a device: its ok evaluations of kernel_hash whose median is within
 * (1 + margin) of the best median, fastest first (ties by config text), at most max (up to
 * DB_CONTENDERS_MAX); energy_j[i] is config i's energy per run where its row has it, else 0; played
 * 1 when each of them already has a playoff row. The playoff's (docs/time-to-tune.md):
 * db_playoff_contenders, at most EVAL_PLAYOFF_MAX; an energy search's (docs/energy.md,
 * "Contenders only"): db_energy_contenders, margin measure.energy_within, max
 * measure.energy_top. */
#define DB_CONTENDERS_MAX 32
typedef struct db_contenders {
    int n;
    int played;
    char config[DB_CONTENDERS_MAX][1024];
    double median_us[DB_CONTENDERS_MAX];
    double energy_j[DB_CONTENDERS_MAX];
} db_contenders;
int db_playoff_contenders(db *d, int64_t device_id, int64_t problem_id, const char *kernel_hash,
                          double margin, db_contenders *out, char *err, size_t len);
int db_energy_contenders(db *d, int64_t device_id, int64_t problem_id, const char *kernel_hash,
                         double within, int max, db_contenders *out, char *err, size_t len);
/* Stores the energy of an energy window alone (en, en->joules > 0) on the ok evaluation of
 * (device, problem, config, kernel_hash), as db_put_evaluation stores an evaluation's: each
 * reading the board did not give as NULL. 0, or -1 with err (no such row included). */
int db_put_energy(db *d, int64_t device_id, int64_t problem_id, const char *config,
                  const char *kernel_hash, const eval_energy *en, char *err, size_t len);
/* Stores a playoff of the contenders c (r: its ok result, r->playoff_samples[i] config i's
 * runs), replacing the problem's last playoff on the device, in one transaction. */
int db_put_playoff(db *d, int64_t run_id, int64_t device_id, int64_t problem_id,
                   const char *kernel_hash, const db_contenders *c, const eval_result *r,
                   char *err, size_t len);
/* 1 when (device, problem, config, kernel_hash) is already stored, 0 when not, -1 on error. */
int db_has_evaluation(db *d, int64_t device_id, int64_t problem_id, const char *config,
                      const char *kernel_hash);
/* Stores one evaluation and all its samples in one transaction. gbps/frac from bytes and the
 * run's copy_gbps (<= 0: NULL). seq: its order in the run. The energy measurement (r->energy,
 * schema version 7) is stored with an ok result whose energy.joules > 0, each reading the board
 * did not give (0, or throttle -1) as NULL; NULL columns otherwise. An existing row for the same
 * natural key is left as it is (returns 0). */
int db_put_evaluation(db *d, int64_t run_id, int64_t device_id, int64_t problem_id,
                      const char *config, const char *kernel_hash, const eval_result *r,
                      int64_t bytes, double copy_gbps, int64_t seq, char *err, size_t len);

/* ---- readers ---- */
/* Devices stored, in id order; callback returns non-zero to stop. */
int db_each_device(db *d, int (*fn)(void *ctx, int64_t id, const device_info *dev), void *ctx);

/* The recorded evaluation for a device (by uuid), op ("family.op"), dtype, shape and config,
 * samples and energy included (out->energy as stored: joules 0 and throttle -1 where NULL).
 * Returns 1 found, 0 not recorded, -1 error. kernel_hash: any when NULL (the newest row wins). */
int db_find_evaluation(db *d, const char *device_uuid, const char *op, const char *dtype,
                       const char *shape, const char *config, eval_result *out);

/* The card of model's GPU model (device_same_model: name, compute capability, SM count) with
 * the most evaluations of the problem (op "family.op", dtype, shape), or of any problem when op
 * is NULL; ties go to the smaller uuid. Returns 1 with the card's uuid, 0 when no card of the
 * model recorded it, -1 on error. */
int db_model_card(db *d, const device_info *model, const char *op, const char *dtype,
                  const char *shape, char *uuid, size_t uuid_len);

/* Copy bandwidth of the newest run on that device (GB/s), or 0. */
double db_device_copy_gbps(db *d, const char *device_uuid);

typedef struct best_row {
    const char *device, *device_uuid, *op, *dtype, *shape, *config;
    int64_t size_key;        /* -1 when NULL */
    int cc_major, cc_minor, sm_count;
    double median_us, gbps, frac_copy;   /* gbps/frac: 0 when NULL */
    /* db_each_best only (0 elsewhere): the problem's bytes and flops (0 when NULL), the card's
     * SM clock, and the copy rate of the run that measured the winner (0 when NULL): what
     * throughput_of (core/throughput.h) takes */
    int64_t bytes, flops;
    int sm_clock_khz;
    double copy_gbps;
    /* db_each_best and db_each_best_by: the winner's energy per run (J) and average power (W),
     * 0 when not measured; and its score under the objective it was chosen by (objective.h:
     * median_us for time) */
    double energy_j, power_w;
    double score;
} best_row;

/* A row of db_each_best's throughput (core/throughput.h): TFLOP/s and the share of its card's
 * peak when its problem has flops, else GB/s and the share of its run's copy rate. */
throughput db_best_throughput(const best_row *r);

/* The `best` view, filtered (NULL filters match all), ordered by device name, op, dtype,
 * size_key, shape. Strings live until the callback returns. */
int db_each_best(db *d, const char *device, const char *op, const char *dtype,
                 int (*fn)(void *ctx, const best_row *row), void *ctx);

/* The winners per device (card) and problem under objective o (an enum objective of
 * core/objective.h, passed as int: db.h leaves the name free for its includers; docs/energy.md),
 * filtered and ordered as db_each_best. OBJECTIVE_TIME is db_each_best, the view best (the
 * playoff's winner where there was one). OBJECTIVE_ENERGY: the ok evaluation with the lowest
 * energy_j; OBJECTIVE_EDP: the lowest energy_j x median_us; ties by config text, then kernel
 * hash; playoffs do not enter (they time, they do not read the energy counter). A problem whose
 * ok evaluations on the card have no energy has no winner under energy or edp: it is left out
 * and counted in *no_energy (may be NULL; 0 under time). */
int db_each_best_by(db *d, int o, const char *device, const char *op, const char *dtype,
                    int (*fn)(void *ctx, const best_row *row), void *ctx, int64_t *no_energy);

/* The score of objective o as an SQL expression over an evaluations row aliased e (NULL for a
 * row the objective cannot rank: no energy measured), for readers that rank evaluations with
 * SQL of their own (a user kernel's header): "e.median_us", "e.energy_j",
 * "e.energy_j * e.median_us". It orders rows as objective_score does. */
const char *db_objective_sql(int o);

/* Of several cards' winners (one model, one problem or header entry), whether the one of
 * score us (best_row.score: the median under time) and config beats the one kept so far: the
 * lower score, then the smaller config text. The header and the report pool a model's cards by
 * it. */
int db_best_beats(double us, const char *config, double kept_us, const char *kept_config);

/* The ok evaluations of one problem (op, dtype, shape) on every device whose median is within
 * `within` (0.03: 3%) of that device's fastest, by device then time (gbps, frac_copy: 0). */
int db_each_near_best(db *d, const char *op, const char *dtype, const char *shape, double within,
                      int (*fn)(void *ctx, const best_row *row), void *ctx);

/* ---- maintenance ---- */
/* Deterministic SQL text dump: devices, runs, problems, configs, evaluations, samples, peers,
 * playoffs, sorted by natural keys, with no database-local ids in it (rows refer to each other by natural
 * key through sub-selects), importable by `sqlite3 x.db < dump` onto the schema and by
 * db_import. Same database content -> same bytes. */
int db_export(db *d, FILE *out, char *err, size_t len);
/* Imports a dump, .sql or .sql.xz (idempotent: rows already present are skipped), in one
 * transaction. */
int db_import(db *d, const char *dump_path, char *err, size_t len);
/* db_import with flags: DB_IMPORT_NO_SAMPLES leaves the samples out (every other row in); a
 * kernel (not NULL) keeps only the evaluations of its ops ("KERNEL.op") from our dumps. */
enum { DB_IMPORT_NO_SAMPLES = 1 };
int db_import_flags(db *d, const char *dump_path, unsigned flags, const char *kernel, char *err,
                    size_t len);
/* The steps of SQLite's virtual machine one statement of a dump may take (20 million, ten times
 * the export's largest statement; past it the import stops with an error): the fuzz target of
 * the importer (tests/fuzz/fuzz_dump.c) lowers it so that every input stays fast. */
extern int64_t db_import_max_steps;
/* Merges another database file or dump into d (idempotent), in one transaction, linear in the
 * sizes. A dump is imported into a temporary database first, so that dumps and databases merge
 * the same way. A conflict is an evaluation of the same device, problem, config and kernel hash
 * that both hold with different results (another status or median): the rule is that the one
 * already in d stays, and the count (and the first, as text) is reported. */
typedef struct db_merge_stats {
    int64_t conflicts;
    char first_conflict[512];   /* "uuid op dtype shape config", "" when none */
} db_merge_stats;
int db_merge_report(db *d, const char *other_path, db_merge_stats *stats, char *err,
                    size_t len);
/* db_merge_report without the report. */
int db_merge(db *d, const char *other_path, char *err, size_t len);
/* integrity_check, foreign_key_check, schema version. 0 clean, 1 problems found (err), -1. */
int db_check(db *d, char *err, size_t len);

/* Counts of rows per table, for `tuner db info` and tests. */
int db_count(db *d, const char *table, int64_t *n);

/* The raw handle for the few readers that run their own SQL (report). */
struct sqlite3 *db_handle(db *d);

/* test_db.c: unit tests of the database layer (tuner/db*.c) on files in a temporary directory:
 * opening and creating, refusing garbage / foreign / newer files without touching them,
 * migrating a version-0 database, the run loop's writes (one transaction per evaluation, rolled
 * back on failure, survived by a killed writer), resume and replay lookups, the best view's
 * order and tie-break, the deterministic dump (same bytes for the same content in any insertion
 * order, export -> import -> export identity, loading with the sqlite3 shell), its compressed
 * form (.sql.xz: the same identity byte for byte, truncated or corrupt files refused), the card
 * of a GPU model that recorded a problem (replay), idempotent import and merge, db_check on a
 * clean and on a planted-inconsistent database, a problem's flops through the version-5
 * migration, dumps and merges, and an evaluation's energy (version 7) stored, read back, ranked
 * by the energy and edp winners, carried by dumps and merges and added by the migration. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "db/db.h"
#include "db/db_xz.h"
#include "core/objective.h"

static char tmpdir[256];

/* A path in the temporary directory; rotates over a few static buffers. */
static const char *tmp(const char *name)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

/* Whole file, malloc'd (caller frees), or NULL. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, len = 0, got;
    if (!f)
        return NULL;
    do {
        if (cap - len < 4096) {
            cap = cap ? 2 * cap : 65536;
            buf = realloc(buf, cap);
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    buf[len] = 0;
    if (n)
        *n = len;
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* One integer from a query, or -999 on error. */
static long long q_int(db *d, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -999;
    if (sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static double q_double(db *d, const char *sql)
{
    sqlite3_stmt *st = NULL;
    double v = -999;
    if (sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* First column of the first row as text (static buffer). */
static const char *q_text(db *d, const char *sql)
{
    static char buf[1024];
    sqlite3_stmt *st = NULL;
    snprintf(buf, sizeof buf, "(error)");
    if (sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, sizeof buf, "%s",
                 sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
    sqlite3_finalize(st);
    return buf;
}

static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open(path, &h) == SQLITE_OK &&
             sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(h);
    return rc ? 0 : -1;
}

/* The dump of d as a malloc'd string (caller frees); NULL on error. */
static char *dump_of(db *d)
{
    char *text = NULL, err[512];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = db_export(d, f, err, sizeof err);
    fclose(f);
    if (rc != 0) {
        fprintf(stderr, "export: %s\n", err);
        free(text);
        return NULL;
    }
    return text;
}

static int dump_to_file(db *d, const char *path)
{
    char *text = dump_of(d);
    if (!text)
        return -1;
    spit(path, text);
    free(text);
    return 0;
}

static int same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Occurrences of needle in text. */
static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text ? strstr(text, needle) : NULL; p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* 1 when the dump compares an id with a number ("id=3", "_id = 12", "id IN (4"): a
 * database-local id written into it. */
static int has_local_id(const char *text)
{
    for (const char *p = strstr(text, "id"); p; p = strstr(p + 1, "id")) {
        const char *q = p + 2;
        while (*q == ' ')
            q++;
        if (strncmp(q, "IN", 2) == 0)
            for (q += 2; *q == ' ' || *q == '('; q++)
                ;
        else if (*q == '=')
            for (q++; *q == ' '; q++)
                ;
        else
            continue;
        if (*q >= '0' && *q <= '9')
            return 1;
    }
    return 0;
}

static int64_t count(db *d, const char *table)
{
    int64_t n = -1;
    if (db_count(d, table, &n) != 0)
        return -1;
    return n;
}

static device_info make_device(const char *uuid, const char *name, int sm)
{
    device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.uuid, sizeof dev.uuid, "%s", uuid);
    snprintf(dev.name, sizeof dev.name, "%s", name);
    dev.cc_major = 9;
    dev.cc_minor = 0;
    dev.sm_count = sm;
    dev.max_threads_per_sm = 2048;
    dev.max_threads_per_block = 1024;
    dev.regs_per_sm = 65536;
    dev.smem_per_sm = 233472;
    dev.l2_bytes = 52428800;
    dev.mem_bytes = 85899345920LL;
    dev.sm_clock_khz = 1980000;
    dev.mem_clock_khz = 2619000;
    dev.mem_bus_bits = 5120;
    dev.driver_version = 13000;
    dev.runtime_version = 13000;
    return dev;
}

/* An ok result over samples (not owned: never eval_result_clear'd). */
static eval_result ok_result(double *samples, int n)
{
    eval_result r;
    memset(&r, 0, sizeof r);
    r.status = EVAL_OK;
    r.samples = samples;
    r.n_samples = n;
    r.stats.n = n;
    r.stats.min = r.stats.max = samples[0];
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += samples[i];
        if (samples[i] < r.stats.min)
            r.stats.min = samples[i];
        if (samples[i] > r.stats.max)
            r.stats.max = samples[i];
    }
    r.stats.mean = sum / n;
    r.stats.median = samples[n / 2];
    r.stats.stddev = 1.0 / 3.0;
    r.stats.ci_lo = r.stats.median * 0.99;
    r.stats.ci_hi = r.stats.median * 1.01;
    return r;
}

static eval_result bad_result(eval_status s, const char *msg)
{
    eval_result r;
    memset(&r, 0, sizeof r);
    r.status = s;
    snprintf(r.error, sizeof r.error, "%s", msg);
    return r;
}

/* ---- a content set written in either order (for determinism) ---- */

typedef struct ev_spec {
    const char *uuid, *op, *dtype, *shape, *config, *hash;
    eval_status status;
    double base;        /* sample base time, ok rows */
} ev_spec;

static double samples_a[] = {12.5, 12.75, 0.1 + 0.2, 12.625, 1.0 / 3.0, 13.0, 12.5};

static const ev_spec content[] = {
    {"GPU-b", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=256,waves=1", "h1", EVAL_OK, 10},
    {"GPU-b", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=128,waves=1", "h1", EVAL_OK, 11},
    {"GPU-b", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=64,waves=1", "h1", EVAL_INVALID, 0},
    {"GPU-a", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=256,waves=1", "h1", EVAL_OK, 9},
    {"GPU-a", "elementwise.relu", "f16", "n=65536,offset=0", "block_size=512,waves=2", "h2", EVAL_OK, 20},
    {"GPU-a", "elementwise.relu", "f16", "n=65536,offset=0", "block_size=512,waves=4", "h2", EVAL_FAULT, 0},
    {"GPU-a", "elementwise.relu", "f16", "n=65536,offset=0", "block_size=512,waves=2", "h1", EVAL_OK, 21},
};
#define N_CONTENT ((int)(sizeof content / sizeof content[0]))

static int64_t device_of(db *d, const char *uuid, char *err)
{
    device_info dev = make_device(uuid, strcmp(uuid, "GPU-a") == 0 ? "Model A" : "Model B", 132);
    int64_t id = -1;
    if (db_put_device(d, &dev, &id, err, 512) != 0)
        return -1;
    return id;
}

/* Writes content[] in forward or reverse order (ids differ), then pins the clock-derived
 * columns so two fills hold the same content. */
static int fill(db *d, int reverse)
{
    char err[512];
    if (reverse) {   /* shift every id: configs and problems that are later deleted */
        int64_t pid;
        db_put_problem(d, "zz.unused", "f32", "n=1", 1, 8, 1, 0, &pid, err, sizeof err);
        sqlite3_exec(db_handle(d), "INSERT INTO configs(text) VALUES ('zz=1')", NULL, NULL, NULL);
    }
    for (int k = 0; k < N_CONTENT; k++) {
        const ev_spec *e = &content[reverse ? N_CONTENT - 1 - k : k];
        int64_t dev = device_of(d, e->uuid, err), run, prob;
        run_info info = {"spaces/x.yaml", "abc", "exhaustive", "replay:x.sql", "0.1.0", 7,
                         e->uuid[4] == 'a' ? 2500.0 : 0.0};
        char sql[256];
        if (dev < 0)
            return -1;
        snprintf(sql, sizeof sql, "SELECT id FROM runs WHERE device_id = %lld", (long long)dev);
        run = q_int(d, sql);
        if (run < 0 && db_begin_run(d, dev, &info, &run, err, sizeof err) != 0)
            return -1;
        if (db_put_problem(d, e->op, e->dtype, e->shape, 1024, 12288,
                           strstr(e->shape, "offset=0") ? 1024 : -1, 0, &prob, err, sizeof err) != 0)
            return -1;
        double s[7];
        for (int i = 0; i < 7; i++)
            s[i] = e->base + samples_a[i];
        eval_result r = e->status == EVAL_OK ? ok_result(s, 7)
                                             : bad_result(e->status, "it's wrong\nline 2");
        if (db_put_evaluation(d, run, dev, prob, e->config, e->hash, &r, 12288,
                              info.copy_gbps, k, err, sizeof err) != 0) {
            fprintf(stderr, "fill: %s\n", err);
            return -1;
        }
    }
    return sqlite3_exec(db_handle(d),
                        "DELETE FROM problems WHERE op = 'zz.unused';"
                        "DELETE FROM configs WHERE text = 'zz=1';"
                        "UPDATE runs SET started_at = '2026-01-01T00:00:00.000Z', finished_at = NULL;"
                        "UPDATE evaluations SET created_at = '2026-01-01T00:00:01.000Z', seq = 0;"
                        "UPDATE evaluations SET stddev_us = 1e-40 WHERE stddev_us IS NOT NULL;",
                        NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* ---- tests ---- */

static void test_open(void)
{
    char err[512];
    db *d = NULL;
    const char *path = tmp("new.db");
    CHECK(db_open(tmp("missing.db"), 0, &d, err, sizeof err) == -1);
    CHECK(d == NULL);
    CHECK(strstr(err, "missing.db") && strstr(err, "no such file"));
    CHECK(!exists(tmp("missing.db")));

    CHECK(db_open(path, 1, &d, err, sizeof err) == 0);
    CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
    CHECK_STR(q_text(d, "PRAGMA journal_mode"), "wal");
    CHECK(q_int(d, "PRAGMA foreign_keys") == 1);
    CHECK(q_int(d, "PRAGMA busy_timeout") == 5000);
    CHECK(q_int(d, "PRAGMA synchronous") == 1);
    CHECK(count(d, "evaluations") == 0 && count(d, "peers") == 0);
    int64_t n;
    CHECK(db_count(d, "sqlite_master; DROP TABLE devices", &n) == -1);
    db_close(d);
    /* reopening an existing database, with and without create */
    CHECK(db_open(path, 0, &d, err, sizeof err) == 0);
    db_close(d);
    CHECK(db_open_readonly(path, &d, err, sizeof err) == 0);
    CHECK(count(d, "devices") == 0);
    db_close(d);
}

static void test_refusals(void)
{
    char err[512];
    db *d = NULL;
    size_t n1, n2;
    /* a random file */
    const char *garbage = tmp("garbage.db");
    spit(garbage, "this is not a database, just some text that is long enough to be a header....."
                  "..............................................................................");
    char *before = slurp(garbage, &n1);
    CHECK(db_open(garbage, 1, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "garbage.db") && strstr(err, "not a SQLite database"));
    CHECK(db_open_readonly(garbage, &d, err, sizeof err) == -1);
    char *after = slurp(garbage, &n2);
    CHECK(n1 == n2 && memcmp(before, after, n1) == 0);
    CHECK(!exists(tmp("garbage.db-wal")) && !exists(tmp("garbage.db-journal")));
    free(before);
    free(after);

    /* a foreign SQLite database */
    const char *foreign = tmp("foreign.db");
    CHECK(raw_exec(foreign, "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);"
                            "INSERT INTO notes(body) VALUES ('keep me');") == 0);
    before = slurp(foreign, &n1);
    CHECK(db_open(foreign, 1, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "foreign.db': not a tunekit database (no devices table)") != NULL);
    after = slurp(foreign, &n2);
    CHECK(n1 == n2 && memcmp(before, after, n1) == 0);
    CHECK(!exists(tmp("foreign.db-wal")));
    free(before);
    free(after);

    /* a newer schema */
    const char *newer = tmp("newer.db");
    CHECK(db_open(newer, 1, &d, err, sizeof err) == 0);
    db_close(d);
    CHECK(raw_exec(newer, "PRAGMA user_version = 99") == 0);
    CHECK(db_open(newer, 0, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "schema version 99 is newer") != NULL);
    CHECK(db_open_readonly(newer, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "newer") != NULL);
}

static void test_migration(void)
{
    char err[512];
    db *d = NULL;
    /* version 0: a database from before versioning holding only the devices table */
    const char *old = tmp("v0.db");
    CHECK(raw_exec(old, "CREATE TABLE devices (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,"
                        " name TEXT NOT NULL, cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL,"
                        " sm_count INTEGER NOT NULL, max_threads_per_sm INTEGER NOT NULL,"
                        " max_threads_per_block INTEGER NOT NULL, regs_per_sm INTEGER NOT NULL,"
                        " smem_per_sm INTEGER NOT NULL, l2_bytes INTEGER NOT NULL,"
                        " mem_bytes INTEGER NOT NULL, sm_clock_khz INTEGER NOT NULL,"
                        " mem_clock_khz INTEGER NOT NULL, mem_bus_bits INTEGER NOT NULL,"
                        " driver_version INTEGER NOT NULL, runtime_version INTEGER NOT NULL);"
                        "INSERT INTO devices VALUES (1, 'GPU-old', 'Old GPU', 8, 0, 108, 2048, 1024,"
                        " 65536, 167936, 41943040, 42949672960, 1410000, 1215000, 5120, 12000,"
                        " 12000);") == 0);
    CHECK(db_open_readonly(old, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "schema version 0 is older") != NULL);
    CHECK(db_open(old, 0, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
    CHECK(count(d, "devices") == 1);
    CHECK(count(d, "evaluations") == 0 && count(d, "samples") == 0 && count(d, "peers") == 0);
    CHECK(q_int(d, "SELECT count(*) FROM sqlite_master WHERE name = 'best'") == 1);
    CHECK(db_check(d, err, sizeof err) == 0);
    db_close(d);
    /* an empty file is a version-0 database without tables: it gets the schema */
    spit(tmp("empty.db"), "");
    CHECK(db_open(tmp("empty.db"), 0, &d, err, sizeof err) == 0);
    CHECK(d && count(d, "runs") == 0);
    db_close(d);

    /* version 1: evaluations could not hold 'compile_error'. The migration rebuilds the table
     * and keeps every row, its id and its samples; the view and the index come back. */
    const char *v1 = tmp("v1.db");
    CHECK(db_open(v1, 1, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(fill(d, 0) == 0);
    int64_t evals = count(d, "evaluations"), samples = count(d, "samples");
    long long best_rows = q_int(d, "SELECT count(*) FROM best");
    char *before = dump_of(d);
    db_close(d);
    CHECK(evals > 0 && samples > 0);
    CHECK(raw_exec(v1, "PRAGMA foreign_keys = OFF; BEGIN;"
                       "DROP VIEW best;"
                       "CREATE TABLE ev1 AS SELECT id, run_id, device_id, problem_id, config_id,"
                       " kernel_hash, status, error, median_us, min_us, max_us, mean_us, stddev_us,"
                       " ci_lo_us, ci_hi_us, n_runs, gbps, frac_copy, seq, created_at"
                       " FROM evaluations;"
                       "DROP TABLE evaluations;"
                       "CREATE TABLE evaluations (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL"
                       " REFERENCES runs(id), device_id INTEGER NOT NULL REFERENCES devices(id),"
                       " problem_id INTEGER NOT NULL REFERENCES problems(id), config_id INTEGER"
                       " NOT NULL REFERENCES configs(id), kernel_hash TEXT NOT NULL, status TEXT"
                       " NOT NULL CHECK (status IN ('ok','invalid','launch_error','fault',"
                       "'timeout','unsupported','skipped')), error TEXT, median_us REAL, min_us"
                       " REAL, max_us REAL, mean_us REAL, stddev_us REAL, ci_lo_us REAL, ci_hi_us"
                       " REAL, n_runs INTEGER NOT NULL DEFAULT 0, gbps REAL, frac_copy REAL, seq"
                       " INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, UNIQUE (device_id,"
                       " problem_id, config_id, kernel_hash), CHECK (status <> 'ok' OR (median_us"
                       " > 0 AND n_runs > 0)));"
                       "INSERT INTO evaluations SELECT * FROM ev1; DROP TABLE ev1;"
                       "PRAGMA user_version = 1; COMMIT;") == 0);
    CHECK(raw_exec(v1, "INSERT INTO evaluations(run_id,device_id,problem_id,config_id,"
                       "kernel_hash,status,created_at) SELECT run_id,device_id,problem_id,"
                       "config_id,'other','compile_error',created_at FROM evaluations LIMIT 1")
          != 0);   /* version 1 refuses the new status */
    CHECK(db_open_readonly(v1, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "schema version 1 is older") != NULL);
    CHECK(db_open(v1, 0, &d, err, sizeof err) == 0);
    if (!d) {
        free(before);
        return;
    }
    CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
    CHECK(count(d, "evaluations") == evals && count(d, "samples") == samples);
    CHECK(q_int(d, "SELECT count(*) FROM best") == best_rows);
    CHECK(q_int(d, "SELECT count(*) FROM sqlite_master WHERE name = 'evaluations_by_problem'")
          == 1);
    CHECK(q_int(d, "PRAGMA foreign_keys") == 1);
    char *after = dump_of(d);
    CHECK(before && after && same_text(before, after));
    free(before);
    free(after);
    CHECK(db_check(d, err, sizeof err) == 0);
    CHECK(sqlite3_exec(db_handle(d),
                       "INSERT INTO evaluations(run_id,device_id,problem_id,config_id,"
                       "kernel_hash,status,error,created_at) SELECT run_id,device_id,problem_id,"
                       "config_id,'other','compile_error','x.cu(3): error',created_at FROM "
                       "evaluations LIMIT 1", NULL, NULL, NULL) == SQLITE_OK);
    db_close(d);
}

static void test_writes(void)
{
    char err[512];
    db *d = NULL;
    int64_t dev, dev2, run, prob, prob2;
    CHECK(db_open(tmp("w.db"), 1, &d, err, sizeof err) == 0);
    if (!d)
        return;
    device_info di = make_device("GPU-w", "Writer GPU", 132);
    CHECK(db_put_device(d, &di, &dev, err, sizeof err) == 0);
    di.driver_version = 13010;
    CHECK(db_put_device(d, &di, &dev2, err, sizeof err) == 0);
    CHECK(dev == dev2 && count(d, "devices") == 1);
    CHECK(q_int(d, "SELECT driver_version FROM devices") == 13010);
    run_info info = {"spaces/e.yaml", "cafe", "exhaustive", "cuda", "0.1.0", 42, 3000.0};
    CHECK(db_begin_run(d, dev, &info, &run, err, sizeof err) == 0);
    int64_t run2;
    CHECK(db_begin_run(d, dev, &info, &run2, err, sizeof err) == 0);   /* same millisecond */
    CHECK(run2 != run && count(d, "runs") == 2);
    CHECK(db_put_problem(d, "elementwise.mul", "f32", "n=1024,offset=0", 1024, 12288, 1024, 0, &prob,
                         err, sizeof err) == 0);
    CHECK(db_put_problem(d, "elementwise.mul", "f32", "n=1024,offset=0", 1024, 12288, 1024, 0, &prob2,
                         err, sizeof err) == 0);
    CHECK(prob == prob2 && count(d, "problems") == 1);
    int64_t pnull;
    CHECK(db_put_problem(d, "elementwise.mul", "f32", "n=1023,offset=1", 1023, 12276, -1, 0, &pnull,
                         err, sizeof err) == 0);
    CHECK_STR(q_text(d, "SELECT size_key FROM problems WHERE shape = 'n=1023,offset=1'"), "NULL");

    double s[5] = {2.0, 2.5, 2.25, 3.0, 2.125};
    eval_result r = ok_result(s, 5);
    CHECK(db_has_evaluation(d, dev, prob, "block_size=256", "k1") == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "block_size=256", "k1", &r, 12288, 3000.0, 5, err,
                            sizeof err) == 0);
    CHECK(db_has_evaluation(d, dev, prob, "block_size=256", "k1") == 1);
    CHECK(db_has_evaluation(d, dev, prob, "block_size=256", "k2") == 0);
    CHECK(db_has_evaluation(d, dev, prob, "block_size=128", "k1") == 0);
    CHECK(db_has_evaluation(d, dev, pnull, "block_size=256", "k1") == 0);
    CHECK(count(d, "samples") == 5 && count(d, "configs") == 1);
    double gbps = 12288 / (r.stats.median * 1e3);
    CHECK(q_double(d, "SELECT gbps FROM evaluations") == gbps);
    CHECK(q_double(d, "SELECT frac_copy FROM evaluations") == gbps / 3000.0);
    CHECK(q_int(d, "SELECT seq FROM evaluations") == 5);
    CHECK(q_int(d, "SELECT n_runs FROM evaluations") == 5);
    CHECK_STR(q_text(d, "SELECT status FROM evaluations"), "ok");
    CHECK_STR(q_text(d, "SELECT error FROM evaluations"), "NULL");
    const char *created = q_text(d, "SELECT created_at FROM evaluations");
    CHECK(strlen(created) == 24 && created[10] == 'T' && created[19] == '.' && created[23] == 'Z');
    CHECK(q_int(d, "SELECT count(*) FROM samples WHERE idx = 3 AND us = 3.0") == 1);
    CHECK(q_int(d, "SELECT max(idx) FROM samples") == 4);

    /* the same natural key again: kept as it is */
    double s2[2] = {9.0, 9.5};
    eval_result again = ok_result(s2, 2);
    CHECK(db_put_evaluation(d, run, dev, prob, "block_size=256", "k1", &again, 12288, 3000.0, 6,
                            err, sizeof err) == 0);
    CHECK(count(d, "evaluations") == 1 && count(d, "samples") == 5);
    CHECK(q_double(d, "SELECT median_us FROM evaluations") == r.stats.median);

    /* non-ok: no times, no samples; no copy bandwidth: frac NULL */
    eval_result bad = bad_result(EVAL_TIMEOUT, "watchdog after 10 s");
    bad.n_samples = 2;
    bad.samples = s2;
    CHECK(db_put_evaluation(d, run, dev, prob, "block_size=1024", "k1", &bad, 12288, 0, 7, err,
                            sizeof err) == 0);
    CHECK(count(d, "samples") == 5);
    CHECK_STR(q_text(d, "SELECT coalesce(median_us, gbps, frac_copy, min_us, 'none') FROM "
                        "evaluations WHERE status = 'timeout'"), "none");
    CHECK(q_int(d, "SELECT n_runs FROM evaluations WHERE status = 'timeout'") == 0);
    eval_result ok2 = ok_result(s, 5);
    CHECK(db_put_evaluation(d, run, dev, prob, "block_size=512", "k1", &ok2, 12288, 0, 8, err,
                            sizeof err) == 0);
    CHECK_STR(q_text(d, "SELECT frac_copy FROM evaluations e JOIN configs c ON c.id = e.config_id"
                        " WHERE c.text = 'block_size=512'"), "NULL");

    /* a failure rolls the whole evaluation back: the new config is not left behind */
    int64_t configs_before = count(d, "configs");
    CHECK(db_put_evaluation(d, run + 100, dev, prob, "block_size=32", "k1", &ok2, 12288, 0, 9,
                            err, sizeof err) == -1);
    CHECK(strstr(err, "w.db") && strstr(err, "FOREIGN KEY"));
    CHECK(count(d, "configs") == configs_before);
    /* a broken ok result is an error, not silently dropped */
    eval_result broken = ok_result(s, 5);
    broken.stats.n = 0;
    CHECK(db_put_evaluation(d, run, dev, prob, "block_size=32", "k1", &broken, 12288, 0, 9, err,
                            sizeof err) == -1);
    CHECK(count(d, "configs") == configs_before);
    eval_result unrec = bad_result(EVAL_UNRECORDED, "");
    CHECK(db_put_evaluation(d, run, dev, prob, "block_size=32", "k1", &unrec, 12288, 0, 9, err,
                            sizeof err) == -1);
    CHECK(count(d, "evaluations") == 3);

    CHECK(db_end_run(d, run, err, sizeof err) == 0);
    CHECK(strcmp(q_text(d, "SELECT finished_at FROM runs ORDER BY id LIMIT 1"), "NULL") != 0);
    CHECK(db_end_run(d, run + 100, err, sizeof err) == -1);
    CHECK(db_check(d, err, sizeof err) == 0);
    db_close(d);
}

/* A writer killed inside its transaction leaves nothing behind. */
static void test_killed_writer(void)
{
    char err[512];
    db *d = NULL;
    const char *path = tmp("w.db");
    pid_t pid = fork();
    if (pid == 0) {
        db *c = NULL;
        if (db_open(path, 0, &c, err, sizeof err) != 0)
            _exit(2);
        sqlite3_exec(db_handle(c), "BEGIN IMMEDIATE; INSERT INTO configs(text) VALUES ('lost=1');",
                     NULL, NULL, NULL);
        _exit(0);   /* killed before COMMIT: no close, no rollback */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(db_open(path, 0, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(q_int(d, "SELECT count(*) FROM configs WHERE text = 'lost=1'") == 0);
    CHECK(db_check(d, err, sizeof err) == 0);
    db_close(d);
}

static void test_readers(void)
{
    char err[512];
    db *d = NULL;
    CHECK(db_open(tmp("w.db"), 0, &d, err, sizeof err) == 0);
    if (!d)
        return;
    eval_result r;
    CHECK(db_find_evaluation(d, "GPU-w", "elementwise.mul", "f32", "n=1024,offset=0",
                             "block_size=256", &r) == 1);
    CHECK(r.status == EVAL_OK && r.n_samples == 5 && r.stats.n == 5);
    CHECK(r.samples && r.samples[0] == 2.0 && r.samples[2] == 2.25 && r.samples[4] == 2.125);
    CHECK(r.stats.median == 2.25 && r.stats.min == 2.0 && r.stats.max == 3.0);
    CHECK(r.stats.stddev == 1.0 / 3.0 && r.stats.ci_lo == 2.25 * 0.99);
    CHECK(r.error[0] == 0);
    eval_result_clear(&r);
    CHECK(db_find_evaluation(d, "GPU-w", "elementwise.mul", "f32", "n=1024,offset=0",
                             "block_size=1024", &r) == 1);
    CHECK(r.status == EVAL_TIMEOUT && r.n_samples == 0 && r.samples == NULL);
    CHECK_STR(r.error, "watchdog after 10 s");
    eval_result_clear(&r);
    CHECK(db_find_evaluation(d, "GPU-w", "elementwise.mul", "f32", "n=1024,offset=0",
                             "block_size=2048", &r) == 0);
    CHECK(db_find_evaluation(d, "GPU-x", "elementwise.mul", "f32", "n=1024,offset=0",
                             "block_size=256", &r) == 0);
    CHECK(db_device_copy_gbps(d, "GPU-w") == 3000.0);
    CHECK(db_device_copy_gbps(d, "GPU-x") == 0.0);
    db_close(d);
}

typedef struct best_log {
    char rows[16][256];
    int n;
} best_log;

static int log_best(void *ctx, const best_row *row)
{
    best_log *b = ctx;
    if (b->n < 16)
        snprintf(b->rows[b->n++], 256, "%s|%s|%s|%s|%lld|%s|%s|%g|%d", row->device,
                 row->device_uuid, row->op, row->dtype, (long long)row->size_key, row->shape,
                 row->config, row->median_us, row->sm_count);
    return 0;
}

static int log_device(void *ctx, int64_t id, const device_info *dev)
{
    best_log *b = ctx;
    if (b->n < 16)
        snprintf(b->rows[b->n++], 256, "%lld %s %s %d.%d %lld", (long long)id, dev->uuid,
                 dev->name, dev->cc_major, dev->cc_minor, (long long)dev->mem_bytes);
    return 0;
}

static int stop_first(void *ctx, const best_row *row)
{
    (void)row;
    ++*(int *)ctx;
    return 1;
}

static void test_best(void)
{
    char err[512];
    db *d = NULL;
    int64_t a1, a2, b, run_a1, run_a2, run_b, p_big, p_small, p_mis, p_f16;
    CHECK(db_open(tmp("best.db"), 1, &d, err, sizeof err) == 0);
    if (!d)
        return;
    device_info da1 = make_device("GPU-a1", "Model A", 100), da2 = make_device("GPU-a2", "Model A", 100),
                dbb = make_device("GPU-b", "Another Model", 50);
    run_info info = {"s.yaml", "h", "exhaustive", "cuda", "0.1.0", 1, 0};
    db_put_device(d, &da1, &a1, err, sizeof err);
    db_put_device(d, &da2, &a2, err, sizeof err);
    db_put_device(d, &dbb, &b, err, sizeof err);
    db_begin_run(d, a1, &info, &run_a1, err, sizeof err);
    db_begin_run(d, a2, &info, &run_a2, err, sizeof err);
    db_begin_run(d, b, &info, &run_b, err, sizeof err);
    db_put_problem(d, "elementwise.mul", "f32", "n=4096", 4096, 49152, 4096, 0, &p_big, err, sizeof err);
    db_put_problem(d, "elementwise.mul", "f32", "n=512", 512, 6144, 512, 0, &p_small, err, sizeof err);
    db_put_problem(d, "elementwise.mul", "f32", "n=511,offset=1", 511, 6132, -1, 0, &p_mis, err, sizeof err);
    db_put_problem(d, "elementwise.mul", "f16", "n=512", 512, 3072, 512, 0, &p_f16, err, sizeof err);
    struct { int64_t run, dev, prob; const char *cfg, *hash; double t; eval_status st; } rows[] = {
        {run_a1, a1, p_big, "c=3", "k", 5.0, EVAL_OK},
        {run_a1, a1, p_big, "c=2", "k", 4.0, EVAL_OK},
        {run_a1, a1, p_big, "c=1", "k", 4.0, EVAL_OK},       /* ties c=2: c=1 wins by text */
        {run_a1, a1, p_big, "c=0", "k", 1.0, EVAL_INVALID},  /* never wins */
        {run_a1, a1, p_small, "c=9", "k2", 2.0, EVAL_OK},
        {run_a1, a1, p_small, "c=9", "k1", 2.0, EVAL_OK},    /* same config, tie: k1 wins */
        {run_a1, a1, p_mis, "c=1", "k", 3.0, EVAL_OK},
        {run_a1, a1, p_f16, "c=1", "k", 3.0, EVAL_OK},
        {run_a2, a2, p_big, "c=3", "k", 4.5, EVAL_OK},
        {run_b, b, p_big, "c=2", "k", 7.0, EVAL_OK},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double s[1] = {rows[i].t};
        eval_result r = rows[i].st == EVAL_OK ? ok_result(s, 1) : bad_result(rows[i].st, "x");
        CHECK(db_put_evaluation(d, rows[i].run, rows[i].dev, rows[i].prob, rows[i].cfg,
                                rows[i].hash, &r, 1000, 0, (int64_t)i, err, sizeof err) == 0);
    }
    best_log log = {0};
    CHECK(db_each_best(d, NULL, NULL, NULL, log_best, &log) == 0);
    CHECK(log.n == 6);
    CHECK_STR(log.rows[0], "Another Model|GPU-b|elementwise.mul|f32|4096|n=4096|c=2|7|50");
    CHECK_STR(log.rows[1], "Model A|GPU-a1|elementwise.mul|f16|512|n=512|c=1|3|100");
    CHECK_STR(log.rows[2], "Model A|GPU-a1|elementwise.mul|f32|-1|n=511,offset=1|c=1|3|100");
    CHECK_STR(log.rows[3], "Model A|GPU-a1|elementwise.mul|f32|512|n=512|c=9|2|100");
    CHECK_STR(log.rows[4], "Model A|GPU-a1|elementwise.mul|f32|4096|n=4096|c=1|4|100");
    CHECK_STR(log.rows[5], "Model A|GPU-a2|elementwise.mul|f32|4096|n=4096|c=3|4.5|100");
    CHECK_STR(q_text(d, "SELECT kernel_hash FROM best WHERE config = 'c=9'"), "k1");
    memset(&log, 0, sizeof log);
    CHECK(db_each_best(d, "Model A", "elementwise.mul", "f32", log_best, &log) == 0);
    CHECK(log.n == 4);
    memset(&log, 0, sizeof log);
    CHECK(db_each_best(d, "GPU-a2", NULL, NULL, log_best, &log) == 0);
    CHECK(log.n == 1 && strstr(log.rows[0], "GPU-a2"));
    memset(&log, 0, sizeof log);
    CHECK(db_each_best(d, NULL, NULL, "bf16", log_best, &log) == 0 && log.n == 0);
    int seen = 0;
    CHECK(db_each_best(d, NULL, NULL, NULL, stop_first, &seen) == 0 && seen == 1);
    memset(&log, 0, sizeof log);
    CHECK(db_each_device(d, log_device, &log) == 0);
    CHECK(log.n == 3);
    CHECK_STR(log.rows[0], "1 GPU-a1 Model A 9.0 85899345920");
    CHECK(strstr(log.rows[2], "GPU-b Another Model") != NULL);
    db_close(d);
}

static void test_dump(void)
{
    char err[512];
    db *a = NULL, *b = NULL, *c = NULL, *m = NULL;
    char *da = NULL, *db_ = NULL, *dc = NULL, *dm = NULL;
    CHECK(db_open(tmp("a.db"), 1, &a, err, sizeof err) == 0);
    CHECK(db_open(tmp("b.db"), 1, &b, err, sizeof err) == 0);
    if (!a || !b)
        goto done;
    CHECK(fill(a, 0) == 0);
    CHECK(fill(b, 1) == 0);
    CHECK(q_int(a, "SELECT min(id) FROM problems") != q_int(b, "SELECT min(id) FROM problems"));
    CHECK(db_check(a, err, sizeof err) == 0);
    da = dump_of(a);
    db_ = dump_of(b);
    CHECK(same_text(da, db_));   /* same content, other order and ids: same bytes */
    if (!da)
        goto done;
    char head[64];
    snprintf(head, sizeof head, "-- tunekit dump, schema version %d\n", DB_SCHEMA_VERSION);
    CHECK(strncmp(da, head, strlen(head)) == 0);
    CHECK(strstr(da, "CREATE TABLE IF NOT EXISTS devices") != NULL);
    snprintf(head, sizeof head, "PRAGMA user_version = %d;\nBEGIN;\n", DB_SCHEMA_VERSION);
    CHECK(strstr(da, head) != NULL);
    CHECK(strstr(da, "COMMIT;\n") != NULL && strcmp(da + strlen(da) - 8, "COMMIT;\n") == 0);
    CHECK(strstr(da, "'it''s wrong\nline 2'") != NULL);
    CHECK(strstr(da, "(SELECT id FROM devices WHERE uuid='GPU-a')") != NULL);
    CHECK(strstr(da, "CREATE TEMP TRIGGER dump_evaluations_insert") != NULL);
    CHECK(strstr(da, "DROP VIEW dump_evaluations;\n-- peers\n") != NULL);
    /* one statement per (device, problem, run, kernel hash): what they share is written once,
     * samples are indexes into the statement's sorted distinct values, the statistics JSON
     * (the 1e-40 stddev inside) */
    CHECK(count_of(da, "INSERT INTO dump_evaluations(") == 4);
    CHECK(strstr(da, "'elementwise.relu','f16','n=65536,offset=0','h1','[21.3,21.333333333333332,"
                     "33.5,33.625,33.75,34.0]','2026-01-01T00:00:01.000Z',v.* FROM (VALUES\n"
                     "('block_size=512,waves=2','ok',NULL,'[33.625,21.3,34.0,30.14404761904762,"
                     "1e-40,33.28875,33.96125,") != NULL);
    CHECK(strstr(da, ",7,0,'','[2,4,0,3,1,5,2]')\n) v;\n") != NULL);
    CHECK(strstr(da, "'fault','it''s wrong\nline 2',NULL,0,0,'',NULL)") != NULL);
    /* devices sorted by uuid, rows by config text, no ids anywhere */
    CHECK(strstr(da, "'GPU-a','Model A'") < strstr(da, "'GPU-b','Model B'"));
    CHECK(strstr(da, "('block_size=128,waves=1'") < strstr(da, "('block_size=256,waves=1','ok'"));
    CHECK(!has_local_id(da));

    /* export -> import -> export */
    CHECK(dump_to_file(a, tmp("a.sql")) == 0);
    CHECK(db_open(tmp("c.db"), 1, &c, err, sizeof err) == 0);
    if (!c)
        goto done;
    CHECK(db_import(c, tmp("a.sql"), err, sizeof err) == 0);
    dc = dump_of(c);
    CHECK(same_text(da, dc));
    CHECK(count(c, "samples") == count(a, "samples") && count(c, "samples") == 5 * 7);
    /* twice: nothing changes */
    CHECK(db_import(c, tmp("a.sql"), err, sizeof err) == 0);
    free(dc);
    dc = dump_of(c);
    CHECK(same_text(da, dc));
    CHECK(count(c, "evaluations") == N_CONTENT);
    CHECK(db_check(c, err, sizeof err) == 0);

    /* the in-memory reader takes the dump alike */
    CHECK(db_open_readonly(tmp("a.sql"), &m, err, sizeof err) == 0);
    if (m) {
        dm = dump_of(m);
        CHECK(same_text(da, dm));
        db_close(m);
        m = NULL;
    }
    /* the summary reader: every evaluation and its statistics, no sample */
    {
        const char *one[] = {tmp("a.sql")};
        /* another kernel's reader gets none of these evaluations ("element" is no kernel of
         * "elementwise.mul": the op's kernel is all of what precedes the dot) */
        setenv("TUNEKIT_DUMP_CACHE", "off", 1);   /* the kernel filter applies to imports */
        const char *others[] = {"reduce", "element", "elementwise.mul"};
        for (int k = 0; k < 3; k++) {
            CHECK(db_open_dumps_summary(one, 1, others[k], &m, err, sizeof err) == 0);
            if (m) CHECK(count(m, "evaluations") == 0 && count(m, "problems") > 0);
            db_close(m);
            m = NULL;
        }
        CHECK(db_open_dumps_summary(one, 1, "elementwise", &m, err, sizeof err) == 0);
        if (m) CHECK(count(m, "evaluations") == N_CONTENT);
        db_close(m);
        m = NULL;
        /* the summaries' cache: made on the first reading, read (not imported) on the next, made
         * again when it is not a database; off without a folder */
        char cache[600];
        snprintf(cache, sizeof cache, "%s", tmp("dump-cache"));
        setenv("TUNEKIT_DUMP_CACHE", cache, 1);
        CHECK(db_open_dumps_summary(one, 1, "reduce", &m, err, sizeof err) == 0);
        if (m) CHECK(count(m, "evaluations") == N_CONTENT);   /* a miss imports every kernel */
        db_close(m);
        m = NULL;
        char ls[700], file[1000] = "";
        snprintf(ls, sizeof ls, "ls %s/*.db 2>/dev/null", cache);
        FILE *lp = popen(ls, "r");
        if (lp) {
            if (!fgets(file, sizeof file, lp)) file[0] = 0;
            pclose(lp);
        }
        file[strcspn(file, "\n")] = 0;
        CHECK(file[0] != 0);
        CHECK(db_open_dumps_summary(one, 1, "reduce", &m, err, sizeof err) == 0);
        if (m) CHECK(count(m, "evaluations") == N_CONTENT && count(m, "samples") == 0);
        db_close(m);
        m = NULL;
        if (file[0]) {
            FILE *g = fopen(file, "w");
            if (g) { fputs("not a database", g); fclose(g); }
            CHECK(db_open_dumps_summary(one, 1, NULL, &m, err, sizeof err) == 0);
            if (m) CHECK(count(m, "evaluations") == N_CONTENT);
            db_close(m);
            m = NULL;
            db *again = NULL;
            CHECK(db_open_readonly(file, &again, err, sizeof err) == 0);   /* made again */
            db_close(again);
        }
        setenv("TUNEKIT_DUMP_CACHE", "off", 1);
        CHECK(db_open_dumps_summary(one, 1, NULL, &m, err, sizeof err) == 0);
        if (m) {
            CHECK(count(m, "evaluations") == N_CONTENT);
            CHECK(count(m, "samples") == 0);
            CHECK(count(m, "devices") == count(a, "devices") && count(m, "runs") == count(a, "runs"));
            /* the full import afterwards still brings the samples in */
            CHECK(db_import(m, tmp("a.sql"), err, sizeof err) == 0);
            CHECK(count(m, "samples") == 5 * 7);
            free(dm);
            dm = dump_of(m);
            CHECK(same_text(da, dm));
            db_close(m);
            m = NULL;
        }
    }
done:
    free(da);
    free(db_);
    free(dc);
    free(dm);
    db_close(a);
    db_close(b);
    db_close(c);
}

/* ---- the compact format at scale, exact floats, other dump shapes ---- */

/* Doubles the dump must carry exactly: ones SQLite 3.40 reads one ulp off from a REAL literal
 * (the first six, from a real H100 dump), extremes, and plain ones. */
static const double hard[] = {174.2016019, 0.1967990005399365, 1538.629540064455, 13.08960013,
                              0.2765391587842915, 0.4982009258662147, 5e-324, 1e-320,
                              1.7976931348623157e308, 1e-40, 2.5e-300, 1e22, 12.0, 0.1 + 0.2,
                              1.0 / 3.0, 8.06399994, INFINITY};
#define N_HARD ((int)(sizeof hard / sizeof hard[0]))
#define N_BULK 2500   /* evaluations of one problem: more than one statement holds */

/* One device, run and problem with N_BULK evaluations of 4 samples each, every float taken
 * from hard[], also in the run's copy_gbps and a peers row. Configs and evaluations go in in
 * ascending or descending order: other ids, same content. */
static int fill_bulk(db *d, int reverse)
{
    char err[512];
    device_info dev = make_device("GPU-bulk", "Bulk Model", 114);
    run_info info = {"spaces/bulk.yaml", "abc", "exhaustive", "cuda", "0.1.0", 1, hard[0]};
    int64_t dev_id, run, prob;
    sqlite3 *h = db_handle(d);
    sqlite3_stmt *cfg = NULL, *ev = NULL, *sm = NULL, *peer = NULL;
    int ok = db_put_device(d, &dev, &dev_id, err, sizeof err) == 0 &&
             db_begin_run(d, dev_id, &info, &run, err, sizeof err) == 0 &&
             db_put_problem(d, "elementwise.add", "f32", "n=4096,offset=0", 4096, 49152, 4096, 0,
                            &prob, err, sizeof err) == 0 &&
             sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(h, "INSERT INTO configs(text) VALUES (?1)", -1, &cfg, NULL) ==
                 SQLITE_OK &&
             sqlite3_prepare_v2(h, "INSERT INTO evaluations(run_id, device_id, problem_id, "
                                "config_id, kernel_hash, status, median_us, min_us, max_us, "
                                "mean_us, stddev_us, ci_lo_us, ci_hi_us, gbps, frac_copy, n_runs, "
                                "seq, created_at) VALUES (?1, ?2, ?3, (SELECT id FROM configs "
                                "WHERE text = ?4), 'hb', 'ok', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                                "?13, 4, ?14, ?15)", -1, &ev, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(h, "INSERT INTO samples(evaluation_id, idx, us) VALUES "
                                "(?1, ?2, ?3)", -1, &sm, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(h, "INSERT INTO peers(device_id, problem_id, library, median_us, "
                                "n_runs, gbps, copy_gbps, created_at) VALUES (?1, ?2, 'torch', "
                                "?3, 5, ?4, ?5, 'x')", -1, &peer, NULL) == SQLITE_OK;
    for (int k = 0; ok && k < N_BULK; k++) {
        int i = reverse ? N_BULK - 1 - k : k;
        char text[64], created[64];
        snprintf(text, sizeof text, "block_size=%d,waves=%d", 32 * (1 + i % 32), i / 32);
        snprintf(created, sizeof created, "2026-01-01T%02d:%02d:%02d.%03dZ", i / 3600,
                 i / 60 % 60, i % 60, i * 7 % 1000);
        sqlite3_bind_text(cfg, 1, text, -1, SQLITE_TRANSIENT);
        ok = sqlite3_step(cfg) == SQLITE_DONE;
        sqlite3_reset(cfg);
        sqlite3_bind_int64(ev, 1, run);
        sqlite3_bind_int64(ev, 2, dev_id);
        sqlite3_bind_int64(ev, 3, prob);
        sqlite3_bind_text(ev, 4, text, -1, SQLITE_TRANSIENT);
        for (int j = 0; j < 9; j++)
            sqlite3_bind_double(ev, 5 + j, hard[(i + j) % N_HARD]);
        sqlite3_bind_int64(ev, 14, i);
        sqlite3_bind_text(ev, 15, created, -1, SQLITE_TRANSIENT);
        ok = ok && sqlite3_step(ev) == SQLITE_DONE;
        sqlite3_reset(ev);
        for (int j = 0; ok && j < 4; j++) {
            sqlite3_bind_int64(sm, 1, sqlite3_last_insert_rowid(h));
            sqlite3_bind_int(sm, 2, j);
            sqlite3_bind_double(sm, 3, hard[(3 * i + j) % N_HARD]);
            ok = sqlite3_step(sm) == SQLITE_DONE;
            sqlite3_reset(sm);
        }
    }
    if (ok) {
        sqlite3_bind_int64(peer, 1, dev_id);
        sqlite3_bind_int64(peer, 2, prob);
        sqlite3_bind_double(peer, 3, hard[1]);
        sqlite3_bind_double(peer, 4, hard[2]);
        sqlite3_bind_double(peer, 5, hard[7]);
        ok = sqlite3_step(peer) == SQLITE_DONE;
    }
    sqlite3_finalize(cfg);
    sqlite3_finalize(ev);
    sqlite3_finalize(sm);
    sqlite3_finalize(peer);
    ok = ok && sqlite3_exec(h, "UPDATE runs SET started_at = '2026-01-01T00:00:00.000Z';"
                            "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    if (!ok)
        sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    return ok ? 0 : -1;
}

/* Values of d that differ from those of the database file other, rows matched by natural key
 * (config text: fill_bulk's databases have one device, run, problem and kernel hash), plus the
 * rows of either that the other lacks; -1 on error. */
static long long bulk_differences(db *d, const char *other)
{
    char sql[256];
    long long n;
    snprintf(sql, sizeof sql, "ATTACH '%s' AS o", other);
    if (sqlite3_exec(db_handle(d), sql, NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    n = q_int(d,
              "WITH a AS (SELECT c.text, e.*, s.idx, s.us FROM main.evaluations e"
              "  JOIN main.configs c ON c.id = e.config_id"
              "  LEFT JOIN main.samples s ON s.evaluation_id = e.id),"
              " b AS (SELECT c.text, e.*, s.idx, s.us FROM o.evaluations e"
              "  JOIN o.configs c ON c.id = e.config_id"
              "  LEFT JOIN o.samples s ON s.evaluation_id = e.id)"
              " SELECT (SELECT count(*) FROM a LEFT JOIN b ON b.text = a.text AND b.idx IS a.idx"
              "  WHERE b.us IS NOT a.us OR b.median_us IS NOT a.median_us"
              "  OR b.min_us IS NOT a.min_us OR b.max_us IS NOT a.max_us"
              "  OR b.mean_us IS NOT a.mean_us OR b.stddev_us IS NOT a.stddev_us"
              "  OR b.ci_lo_us IS NOT a.ci_lo_us OR b.ci_hi_us IS NOT a.ci_hi_us"
              "  OR b.gbps IS NOT a.gbps OR b.frac_copy IS NOT a.frac_copy"
              "  OR b.seq IS NOT a.seq OR b.created_at IS NOT a.created_at)"
              " + (SELECT count(*) FROM b) - (SELECT count(*) FROM a)"
              " + (SELECT count(*) FROM main.runs r, o.runs s WHERE r.copy_gbps IS NOT s.copy_gbps)"
              " + (SELECT count(*) FROM main.peers p, o.peers q WHERE p.median_us IS NOT"
              "  q.median_us OR p.gbps IS NOT q.gbps OR p.copy_gbps IS NOT q.copy_gbps)");
    if (sqlite3_exec(db_handle(d), "DETACH o", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    return n;
}

static void test_dump_bulk(void)
{
    char err[512], cmd[1024];
    db *a = NULL, *b = NULL, *c = NULL, *s = NULL;
    char *da = NULL, *db_ = NULL, *dc = NULL, *ds = NULL;
    CHECK(db_open(tmp("bulk_a.db"), 1, &a, err, sizeof err) == 0);
    CHECK(db_open(tmp("bulk_b.db"), 1, &b, err, sizeof err) == 0);
    if (!a || !b)
        goto done;
    CHECK(fill_bulk(a, 0) == 0);
    CHECK(fill_bulk(b, 1) == 0);
    CHECK(count(a, "evaluations") == N_BULK && count(a, "samples") == 4 * N_BULK);
    CHECK(q_int(a, "SELECT id FROM configs WHERE text = 'block_size=32,waves=0'") !=
          q_int(b, "SELECT id FROM configs WHERE text = 'block_size=32,waves=0'"));
    CHECK(q_double(a, "SELECT copy_gbps FROM runs") == hard[0]);
    CHECK(bulk_differences(a, tmp("bulk_b.db")) == 0);
    da = dump_of(a);
    db_ = dump_of(b);
    CHECK(same_text(da, db_));   /* other insertion order and ids: same bytes */
    if (!da)
        goto done;
    /* at most 1000 rows a statement, every float through a text that reads back exactly */
    CHECK(count_of(da, "INSERT INTO dump_evaluations(") == 3);
    CHECK(count_of(da, "INSERT OR IGNORE INTO configs(text) VALUES\n") == 3);
    CHECK(count_of(da, "\n('block_size=") == 2 * N_BULK);
    CHECK(!has_local_id(da));
    CHECK(strstr(da, ",9e999,") != NULL && strstr(da, ",5e-324,") != NULL);
    /* the run's copy_gbps: the shortest literal where SQLite reads that exactly, else a longer
     * one that it does (SQLite 3.40 reads 174.2016019 one ulp off) */
    if (q_double(a, "SELECT CAST('174.2016019' AS REAL)") == 174.2016019)
        CHECK(strstr(da, "'cuda',174.2016019,'0.1.0'") != NULL);
    else
        CHECK(strstr(da, "'cuda',174.20160189999999,'0.1.0'") != NULL);

    /* export -> import -> export, twice, and through the sqlite3 shell */
    CHECK(dump_to_file(a, tmp("bulk.sql")) == 0);
    CHECK(db_open(tmp("bulk_c.db"), 1, &c, err, sizeof err) == 0);
    if (!c)
        goto done;
    CHECK(db_import(c, tmp("bulk.sql"), err, sizeof err) == 0);
    CHECK(db_import(c, tmp("bulk.sql"), err, sizeof err) == 0);
    dc = dump_of(c);
    CHECK(same_text(da, dc));
    CHECK(count(c, "evaluations") == N_BULK && count(c, "samples") == 4 * N_BULK);
    CHECK(bulk_differences(c, tmp("bulk_a.db")) == 0);
    CHECK(q_double(c, "SELECT copy_gbps FROM runs") == hard[0]);
    CHECK(q_double(c, "SELECT median_us FROM peers") == hard[1]);
    CHECK(q_int(c, "SELECT count(*) FROM sqlite_temp_master") == 0);
    CHECK(db_check(c, err, sizeof err) == 0);
    if (system("command -v sqlite3 >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "sqlite3 '%s' < '%s'", tmp("bulk_s.db"), tmp("bulk.sql"));
        CHECK(system(cmd) == 0);
        CHECK(db_open(tmp("bulk_s.db"), 0, &s, err, sizeof err) == 0);
        if (s) {
            ds = dump_of(s);
            CHECK(same_text(da, ds));
            CHECK(bulk_differences(s, tmp("bulk_a.db")) == 0);
        }
    }
done:
    free(da);
    free(db_);
    free(dc);
    free(ds);
    db_close(a);
    db_close(b);
    db_close(c);
    db_close(s);
}

/* A dump in the earlier format: one INSERT per row, parents by sub-select, the samples of an
 * evaluation as one statement over json_each. */
static const char old_format[] =
    "-- tunekit dump, schema version 1\n"
    "PRAGMA user_version = 1;\nBEGIN;\n-- devices\n"
    "INSERT OR IGNORE INTO devices(uuid,name,cc_major,cc_minor,sm_count,max_threads_per_sm,"
    "max_threads_per_block,regs_per_sm,smem_per_sm,l2_bytes,mem_bytes,sm_clock_khz,"
    "mem_clock_khz,mem_bus_bits,driver_version,runtime_version) VALUES('GPU-old','Old Model',8,"
    "0,108,2048,1024,65536,167936,41943040,42505273344,1410000,1215000,5120,12000,12000);\n"
    "INSERT OR IGNORE INTO runs(device_id,started_at,finished_at,space,space_hash,strategy,seed,"
    "backend,copy_gbps,tuner_version) VALUES((SELECT id FROM devices WHERE uuid='GPU-old'),"
    "'2026-01-01T00:00:00.000Z',NULL,'s.yaml','x','exhaustive',1,'cuda',1500.5,'0.1.0');\n"
    "INSERT OR IGNORE INTO problems(op,dtype,shape,elements,bytes,size_key) VALUES("
    "'elementwise.mul','f32','n=1024,offset=0',1024,12288,1024);\n"
    "INSERT OR IGNORE INTO configs(text) VALUES('block_size=256,waves=1');\n"
    "INSERT OR IGNORE INTO evaluations(run_id,device_id,problem_id,config_id,kernel_hash,status,"
    "error,median_us,min_us,max_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,"
    "seq,created_at) VALUES((SELECT r.id FROM runs r JOIN devices d ON d.id=r.device_id WHERE "
    "d.uuid='GPU-old' AND r.started_at='2026-01-01T00:00:00.000Z'),(SELECT id FROM devices "
    "WHERE uuid='GPU-old'),(SELECT id FROM problems WHERE op='elementwise.mul' AND dtype='f32' "
    "AND shape='n=1024,offset=0'),(SELECT id FROM configs WHERE text='block_size=256,waves=1'),"
    "'h1','ok',NULL,8.5,8.25,9.0,8.583333333333334,0.375,8.25,9.0,3,1445.6,0.96,0,"
    "'2026-01-01T00:00:01.000Z');\n"
    "INSERT OR IGNORE INTO samples(evaluation_id,idx,us) SELECT e.id,j.key,j.value FROM "
    "evaluations e JOIN devices d ON d.id=e.device_id JOIN problems p ON p.id=e.problem_id JOIN "
    "configs c ON c.id=e.config_id JOIN json_each('[8.5,8.25,9.0]') j WHERE d.uuid='GPU-old' AND "
    "p.op='elementwise.mul' AND p.dtype='f32' AND p.shape='n=1024,offset=0' AND "
    "c.text='block_size=256,waves=1' AND e.kernel_hash='h1' AND "
    "e.created_at='2026-01-01T00:00:01.000Z' AND NOT EXISTS (SELECT 1 FROM samples s WHERE "
    "s.evaluation_id=e.id);\n"
    "COMMIT;\n";

/* Text with the first occurrence of from replaced by to (malloc'd; NULL when from is absent). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = text ? strstr(text, from) : NULL;
    char *out;
    if (!at)
        return NULL;
    out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void test_dump_shapes(void)
{
    char err[512];
    db *d = NULL, *e = NULL;
    char *dd = NULL, *de = NULL, *text = NULL, *before = NULL, *after = NULL, *small = NULL;
    /* the earlier format imports, idempotently, and exports in the compact one */
    spit(tmp("old.sql"), old_format);
    CHECK(db_open(tmp("old.db"), 1, &d, err, sizeof err) == 0);
    CHECK(db_open(tmp("old2.db"), 1, &e, err, sizeof err) == 0);
    if (!d || !e)
        goto done;
    CHECK(db_import(d, tmp("old.sql"), err, sizeof err) == 0);
    CHECK(db_import(d, tmp("old.sql"), err, sizeof err) == 0);
    CHECK(count(d, "evaluations") == 1 && count(d, "samples") == 3);
    CHECK(q_double(d, "SELECT us FROM samples WHERE idx = 1") == 8.25);
    dd = dump_of(d);
    CHECK(strstr(dd, ",'h1','[8.25,8.5,9.0]','2026-01-01T00:00:01.000Z',v.* FROM (VALUES\n"
                     "('block_size=256,waves=1','ok',NULL,'[8.5,8.25,9.0,8.583333333333334,0.375,"
                     "8.25,9.0,1445.6,0.96]',3,0,'','[1,0,2]')\n) v;") != NULL);
    CHECK(dump_to_file(d, tmp("old_new.sql")) == 0);
    CHECK(db_import(e, tmp("old_new.sql"), err, sizeof err) == 0);
    de = dump_of(e);
    CHECK(same_text(dd, de));

    /* the temporary view and trigger are run only as export writes them, white space aside */
    small = slurp(tmp("a.sql"), NULL);
    text = replaced(small, "BEGIN\nINSERT OR IGNORE INTO evaluations",
                    "BEGIN\n  INSERT OR IGNORE INTO\n  evaluations");
    CHECK(text != NULL);
    if (text)
        spit(tmp("indented.sql"), text);
    free(text);
    CHECK(db_import(e, tmp("indented.sql"), err, sizeof err) == 0);
    CHECK(count(e, "evaluations") == 1 + N_CONTENT && count(e, "samples") == 3 + 5 * 7);
    before = dump_of(e);
    text = replaced(small, "BEGIN\nINSERT OR IGNORE INTO evaluations",
                    "BEGIN\nDELETE FROM devices;\nINSERT OR IGNORE INTO evaluations");
    CHECK(text != NULL);
    if (text)
        spit(tmp("foreign_trigger.sql"), text);
    free(text);
    CHECK(db_import(e, tmp("foreign_trigger.sql"), err, sizeof err) == -1);
    CHECK(strstr(err, "foreign_trigger.sql': line ") != NULL &&
          strstr(err, "is not what this tuner's export writes") != NULL);
    after = dump_of(e);
    CHECK(same_text(before, after));
    CHECK(q_int(e, "SELECT count(*) FROM sqlite_temp_master") == 0);

    /* a dump cut before its DROP: what is there imports, the view does not outlive it */
    text = small ? strdup(small) : NULL;
    if (text && strstr(text, "\n) v;\n"))
        strstr(text, "\n) v;\n")[6] = 0;
    CHECK(text && strstr(text, "DROP VIEW") == NULL && strstr(text, "dump_evaluations(") != NULL);
    if (text)
        spit(tmp("cut.sql"), text);
    free(text);
    db_close(d);
    d = NULL;
    CHECK(db_open(tmp("cut.db"), 1, &d, err, sizeof err) == 0);
    if (!d)
        goto done;
    CHECK(db_import(d, tmp("cut.sql"), err, sizeof err) == 0);
    CHECK(count(d, "evaluations") == 1 && count(d, "samples") == 7);
    CHECK(q_int(d, "SELECT count(*) FROM sqlite_temp_master") == 0);
    CHECK(db_import(d, tmp("a.sql"), err, sizeof err) == 0);
    CHECK(count(d, "evaluations") == N_CONTENT && count(d, "samples") == 5 * 7);
done:
    free(dd);
    free(de);
    free(before);
    free(after);
    free(small);
    db_close(d);
    db_close(e);
}

static void test_import_more(void)
{
    char err[512];
    db *d = NULL, *m = NULL;
    char *before = NULL, *after = NULL;
    /* importing into a database with other rows keeps them */
    CHECK(db_open(tmp("w.db"), 0, &d, err, sizeof err) == 0);
    if (!d)
        return;
    int64_t evals = count(d, "evaluations"), devices = count(d, "devices");
    CHECK(db_import(d, tmp("a.sql"), err, sizeof err) == 0);
    CHECK(count(d, "evaluations") == evals + N_CONTENT);
    CHECK(count(d, "devices") == devices + 2);
    CHECK(db_check(d, err, sizeof err) == 0);

    /* the same evaluation measured twice (other created_at): the samples never mix */
    CHECK(sqlite3_exec(db_handle(d), "UPDATE evaluations SET created_at = 'x' WHERE id IN "
                       "(SELECT id FROM evaluations WHERE status = 'ok' ORDER BY id DESC LIMIT 1);"
                       "DELETE FROM samples WHERE evaluation_id = (SELECT id FROM evaluations "
                       "WHERE created_at = 'x') AND idx > 0;"
                       "UPDATE evaluations SET n_runs = 1 WHERE created_at = 'x';",
                       NULL, NULL, NULL) == SQLITE_OK);
    int64_t samples = count(d, "samples");
    CHECK(db_import(d, tmp("a.sql"), err, sizeof err) == 0);
    CHECK(count(d, "samples") == samples);
    CHECK(db_check(d, err, sizeof err) == 0);

    /* refusals leave the database as it was (one transaction) */
    before = dump_of(d);
    spit(tmp("evil.sql"), "INSERT INTO configs(text) VALUES ('evil=1');\nDROP TABLE samples;\n");
    CHECK(db_import(d, tmp("evil.sql"), err, sizeof err) == -1);
    CHECK(strstr(err, "evil.sql': line 2: only INSERT statements") != NULL);
    spit(tmp("bad.sql"), "-- x\nINSERT INTO configs(text) VALUES ('evil=2');\n\n"
                         "INSERT INTO nosuch(a) VALUES (1);\n");
    CHECK(db_import(d, tmp("bad.sql"), err, sizeof err) == -1);
    CHECK(strstr(err, "bad.sql': line 4: no such table: nosuch") != NULL);
    char future[128], future_err[64];
    snprintf(future, sizeof future, "-- tunekit dump, schema version %d\nBEGIN;\nCOMMIT;\n",
             DB_SCHEMA_VERSION + 1);
    snprintf(future_err, sizeof future_err, "schema version %d", DB_SCHEMA_VERSION + 1);
    spit(tmp("future.sql"), future);
    CHECK(db_import(d, tmp("future.sql"), err, sizeof err) == -1);
    CHECK(strstr(err, future_err) != NULL);
    CHECK(db_import(d, tmp("nothing.sql"), err, sizeof err) == -1);
    after = dump_of(d);
    CHECK(same_text(before, after));

    /* several dumps in one in-memory database */
    const char *two[2] = {tmp("a.sql"), tmp("w.sql")};
    CHECK(dump_to_file(d, tmp("w.sql")) == 0);
    CHECK(db_open_dumps(two, 2, &m, err, sizeof err) == 0);
    CHECK(m && count(m, "evaluations") == count(d, "evaluations"));
    db_close(m);
    free(before);
    free(after);
    db_close(d);
}

static void test_merge(void)
{
    char err[512];
    db *e = NULL, *a = NULL;
    char *da = NULL, *de = NULL;
    CHECK(db_open(tmp("e.db"), 1, &e, err, sizeof err) == 0);
    CHECK(db_open(tmp("a.db"), 0, &a, err, sizeof err) == 0);
    if (!e || !a)
        goto done;
    da = dump_of(a);
    CHECK(db_merge(e, tmp("a.db"), err, sizeof err) == 0);
    de = dump_of(e);
    CHECK(same_text(da, de));
    CHECK(db_merge(e, tmp("a.db"), err, sizeof err) == 0);   /* idempotent */
    CHECK(db_merge(e, tmp("e.db"), err, sizeof err) == 0);   /* itself: nothing to do */
    CHECK(db_merge(e, tmp("b.db"), err, sizeof err) == 0);   /* the same content, other ids */
    free(de);
    de = dump_of(e);
    CHECK(same_text(da, de));
    CHECK(db_check(e, err, sizeof err) == 0);
    /* merging into a database with other rows keeps them */
    CHECK(db_merge(e, tmp("best.db"), err, sizeof err) == 0);
    CHECK(count(e, "devices") == 4 && count(e, "evaluations") == N_CONTENT + 10);
    CHECK(db_check(e, err, sizeof err) == 0);
    /* refusals */
    CHECK(db_merge(e, tmp("garbage.db"), err, sizeof err) == -1);
    CHECK(strstr(err, "not a SQLite database") != NULL);
    CHECK(db_merge(e, tmp("foreign.db"), err, sizeof err) == -1);
    CHECK(strstr(err, "no devices table") != NULL);
    CHECK(db_merge(e, tmp("a.sql"), err, sizeof err) == 0);   /* a dump: imported */
    /* conflicts: the same evaluation measured again with another result is reported, and the
     * one already there stays; the same results again are no conflict */
    db_merge_stats ms;
    CHECK(db_merge_report(e, tmp("a.db"), &ms, err, sizeof err) == 0 && ms.conflicts == 0);
    CHECK(dump_to_file(a, tmp("a_again.sql")) == 0);
    CHECK(db_merge_report(e, tmp("a_again.sql"), &ms, err, sizeof err) == 0 && ms.conflicts == 0);
    CHECK(sqlite3_exec(db_handle(a), "UPDATE evaluations SET median_us = median_us * 2, "
                       "created_at = '2026-02-02T00:00:00.000Z' WHERE status = 'ok'",
                       NULL, NULL, NULL) == SQLITE_OK);
    int64_t ok_rows = q_int(a, "SELECT count(*) FROM evaluations WHERE status = 'ok'");
    double before = q_double(e, "SELECT sum(median_us) FROM evaluations");
    CHECK(dump_to_file(a, tmp("a_other.sql")) == 0);
    CHECK(db_merge_report(e, tmp("a.db"), &ms, err, sizeof err) == 0);
    CHECK(ok_rows > 0 && ms.conflicts == ok_rows);
    CHECK(strncmp(ms.first_conflict, "GPU-", 4) == 0);
    CHECK(db_merge_report(e, tmp("a_other.sql"), &ms, err, sizeof err) == 0);
    CHECK(ms.conflicts == ok_rows);   /* a dump goes through the same check */
    CHECK(q_double(e, "SELECT sum(median_us) FROM evaluations") == before);
    CHECK(db_check(e, err, sizeof err) == 0);
done:
    free(da);
    free(de);
    db_close(e);
    db_close(a);
}

/* A new database at tmp(name) holding one device (uuid, "Playoff GPU"), one run and one problem
 * (elementwise.mul f32 n=1024): the playoff tests' start. NULL when it did not open. */
static db *one_problem_db(const char *name, const char *uuid, int64_t *dev, int64_t *run,
                          int64_t *prob)
{
    char err[512];
    db *d = NULL;
    CHECK(db_open(tmp(name), 1, &d, err, sizeof err) == 0);
    if (!d)
        return NULL;
    device_info di = make_device(uuid, "Playoff GPU", 132);
    run_info info = {"spaces/e.yaml", "cafe", "exhaustive", "cuda", "0.1.0", 1, 3000.0};
    CHECK(db_put_device(d, &di, dev, err, sizeof err) == 0);
    CHECK(db_begin_run(d, *dev, &info, run, err, sizeof err) == 0);
    CHECK(db_put_problem(d, "elementwise.mul", "f32", "n=1024,offset=0", 1024, 12288, 1024, 0, prob,
                         err, sizeof err) == 0);
    return d;
}

/* A playoff's result: k contenders of n runs each, contender i's runs in runs[i]. */
static eval_result playoff_result(int k, int n, double *const *runs)
{
    eval_result p;
    memset(&p, 0, sizeof p);
    p.status = EVAL_OK;
    p.n_playoff = k;
    for (int i = 0; i < k; i++) {
        p.playoff_n[i] = n;
        p.playoff_samples[i] = runs[i];
    }
    return p;
}

/* pl.db (test_playoffs' database, closed) taken back to schema version `version` with that
 * version's view best (view_sql); opening it read-only is refused, opening it migrates it: the
 * current version, the current view (version 5's CASE), its four evaluations and its winner
 * kept. Returns it open (NULL when it did not open). */
static db *view_migrated_from(int version, const char *view_sql)
{
    char err[512], sql[4096], older[64];
    db *d = NULL;
    snprintf(sql, sizeof sql, "BEGIN; DROP VIEW best; CREATE VIEW best AS%s;"
             " PRAGMA user_version = %d; COMMIT;", view_sql, version);
    CHECK(raw_exec(tmp("pl.db"), sql) == 0);
    CHECK(db_open_readonly(tmp("pl.db"), &d, err, sizeof err) == -1);
    snprintf(older, sizeof older, "schema version %d is older", version);
    CHECK(strstr(err, older) != NULL);
    CHECK(db_open(tmp("pl.db"), 0, &d, err, sizeof err) == 0);
    if (d) {
        CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
        CHECK(q_int(d, "SELECT count(*) FROM sqlite_master WHERE name = 'best'"
                       " AND sql LIKE '%CASE WHEN EXISTS%'") == 1);
        CHECK(count(d, "evaluations") == 4);
        CHECK_STR(q_text(d, "SELECT config FROM best"), "b=a");
    }
    return d;
}

/* The view best's rule (schema version 5): a playoff orders its contenders only. Contenders
 * whose playoff medians came out above a non-contender's own median (interleaving and the
 * pick of low own medians put playoff medians a few percent up) still win; a config measured
 * after the playoff and faster than every contender's own median wins. */
static void test_playoff_winner_rule(void)
{
    char err[512];
    int64_t dev, run, prob;
    db *d = one_problem_db("plw.db", "GPU-plw", &dev, &run, &prob);
    if (!d)
        return;
    /* own medians 10 (a), 10.3 (b): contenders; 10.6 (e): outside 5% of a, did not play */
    double sa[3] = {10.0, 10.0, 10.0}, sb[3] = {10.3, 10.3, 10.3}, se[3] = {10.6, 10.6, 10.6};
    eval_result ra = ok_result(sa, 3), rb = ok_result(sb, 3), re = ok_result(se, 3);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=a", "k", &ra, 12288, 3000, 1, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=b", "k", &rb, 12288, 3000, 2, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=e", "k", &re, 12288, 3000, 3, err, sizeof err) == 0);
    db_contenders c;
    CHECK(db_playoff_contenders(d, dev, prob, "k", 0.05, &c, err, sizeof err) == 0 && c.n == 2);
    /* the playoff: b beats a, both at medians above e's own 10.6 */
    double pa[3] = {11.2, 11.2, 11.2}, pb[3] = {11.0, 11.0, 11.0};
    eval_result p = playoff_result(2, 3, (double *const[]){pa, pb});
    CHECK(db_put_playoff(d, run, dev, prob, "k", &c, &p, err, sizeof err) == 0);
    CHECK_STR(q_text(d, "SELECT config FROM best"), "b=b");
    CHECK(q_double(d, "SELECT playoff_us FROM best") == 11.0);
    CHECK(q_int(d, "SELECT count(*) FROM best") == 1);
    /* a config measured since, faster than every contender's own median, did not play: it wins */
    double sf[3] = {9.0, 9.0, 9.0};
    eval_result rf = ok_result(sf, 3);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=f", "k", &rf, 12288, 3000, 4, err, sizeof err) == 0);
    CHECK_STR(q_text(d, "SELECT config FROM best"), "b=f");
    CHECK(q_int(d, "SELECT count(*) FROM best WHERE playoff_us IS NULL") == 1);
    /* one slower than a (the fastest contender) does not */
    CHECK(sqlite3_exec(db_handle(d), "UPDATE evaluations SET median_us = 10.1 WHERE config_id ="
                       " (SELECT id FROM configs WHERE text = 'b=f')", NULL, NULL, NULL) == SQLITE_OK);
    CHECK_STR(q_text(d, "SELECT config FROM best"), "b=b");
    CHECK(db_check(d, err, sizeof err) == 0);
    db_close(d);
}

/* Playoffs (schema version 3): the contenders within the margin, stored runs replacing the last
 * playoff, the view ranking a contender by its playoff median, a raced row's note read back,
 * dumps, imports and merges keeping them, db check's invariants, and a version-2 database
 * migrated with its rows and winners. */
static void test_playoffs(void)
{
    char err[512];
    db *m = NULL;
    char *da = NULL, *dm = NULL;
    int64_t dev, run, prob;
    db *d = one_problem_db("pl.db", "GPU-pl", &dev, &run, &prob);
    if (!d)
        return;
    /* medians 10 (a), 10.3 (b), 10.45 (c), 12 (d, raced): a, b and c are within 5% */
    double sa[3] = {10.0, 10.0, 10.0}, sb[3] = {10.3, 10.3, 10.3}, sc[3] = {10.45, 10.45, 10.45},
           sd[5] = {12, 12, 12, 12, 12};
    eval_result ra = ok_result(sa, 3), rb = ok_result(sb, 3), rc = ok_result(sc, 3),
                rd = ok_result(sd, 5);
    rd.raced = 1;
    snprintf(rd.error, sizeof rd.error, "%s after 5 runs it is slower", EVAL_RACED_NOTE);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=a", "k", &ra, 12288, 3000, 1, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=b", "k", &rb, 12288, 3000, 2, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=c", "k", &rc, 12288, 3000, 3, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=d", "k", &rd, 12288, 3000, 4, err, sizeof err) == 0);
    eval_result back;
    CHECK(db_find_evaluation(d, "GPU-pl", "elementwise.mul", "f32", "n=1024,offset=0", "b=d",
                             &back) == 1);
    CHECK(back.raced == 1 && back.n_samples == 5);
    eval_result_clear(&back);
    CHECK(db_find_evaluation(d, "GPU-pl", "elementwise.mul", "f32", "n=1024,offset=0", "b=a",
                             &back) == 1);
    CHECK(back.raced == 0);
    eval_result_clear(&back);

    db_contenders c;
    CHECK(db_playoff_contenders(d, dev, prob, "k", 0.05, &c, err, sizeof err) == 0);
    CHECK(c.n == 3 && !c.played);
    CHECK(strcmp(c.config[0], "b=a") == 0 && strcmp(c.config[1], "b=b") == 0 &&
          strcmp(c.config[2], "b=c") == 0);
    CHECK(db_playoff_contenders(d, dev, prob, "k", 0.02, &c, err, sizeof err) == 0 && c.n == 1);
    CHECK(db_playoff_contenders(d, dev, prob, "other", 0.05, &c, err, sizeof err) == 0 && c.n == 0);
    CHECK_STR(q_text(d, "SELECT config FROM best"), "b=a");

    /* an energy search's contenders (docs/energy.md): the same query with its own margin and
     * count, saying which have energy; an energy window alone stored on its evaluation */
    CHECK(db_energy_contenders(d, dev, prob, "k", 0.25, 2, &c, err, sizeof err) == 0);
    CHECK(c.n == 2 && strcmp(c.config[1], "b=b") == 0 && !(c.energy_j[0] > 0) &&
          !(c.energy_j[1] > 0));
    CHECK(db_energy_contenders(d, dev, prob, "k", 0.25, 32, &c, err, sizeof err) == 0);
    CHECK(c.n == 4 && strcmp(c.config[3], "b=d") == 0);   /* 12 us: within 25% of 10 */
    CHECK(db_energy_contenders(d, dev, prob, "k", 0.1, 32, &c, err, sizeof err) == 0 && c.n == 3);
    eval_energy en = { .joules = 0.5, .power_w = 300, .window_ms = 1000, .sm_mhz = 1980,
                       .throttle = -1 };
    CHECK(db_put_energy(d, dev, prob, "b=b", "k", &en, err, sizeof err) == 0);
    CHECK(db_energy_contenders(d, dev, prob, "k", 0.25, 4, &c, err, sizeof err) == 0);
    CHECK(c.n == 4 && !(c.energy_j[0] > 0) && c.energy_j[1] > 0 && !(c.energy_j[2] > 0));
    CHECK(q_double(d, "SELECT energy_j * power_w FROM evaluations e JOIN configs c ON "
                      "c.id = e.config_id WHERE c.text = 'b=b'") == 150);
    CHECK(q_double(d, "SELECT count(*) FROM evaluations WHERE throttle IS NULL AND mem_mhz IS NULL "
                      "AND sm_mhz = 1980") == 1);
    CHECK(db_put_energy(d, dev, prob, "b=zzz", "k", &en, err, sizeof err) == -1);
    CHECK(strstr(err, "no ok evaluation of b=zzz") != NULL);
    en.joules = 0;
    CHECK(db_put_energy(d, dev, prob, "b=a", "k", &en, err, sizeof err) == -1);
    CHECK(sqlite3_exec(db_handle(d), "UPDATE evaluations SET energy_j = NULL, power_w = NULL, "
                       "energy_window_ms = NULL, sm_mhz = NULL", NULL, NULL, NULL) == SQLITE_OK);

    /* the playoff: b is faster when timed alongside a */
    CHECK(db_playoff_contenders(d, dev, prob, "k", 0.05, &c, err, sizeof err) == 0);
    double pa[4] = {10.2, 10.1, 10.2, 10.3}, pb[4] = {9.9, 10.0, 9.9, 9.8}, pc[4] = {10.5, 10.4, 10.6, 10.5};
    eval_result p = playoff_result(3, 4, (double *const[]){pa, pb, pc});
    CHECK(db_put_playoff(d, run, dev, prob, "k", &c, &p, err, sizeof err) == 0);
    CHECK(count(d, "playoffs") == 3);
    CHECK_STR(q_text(d, "SELECT config FROM best"), "b=b");
    CHECK(q_double(d, "SELECT median_us FROM best") == 10.3);        /* its own median */
    CHECK(q_double(d, "SELECT playoff_us FROM best") == 9.9);
    CHECK_STR(q_text(d, "SELECT samples FROM playoffs pl JOIN evaluations e ON e.id = "
                        "pl.evaluation_id JOIN configs c ON c.id = e.config_id WHERE c.text = 'b=b'"),
              "[9.9,10,9.9,9.8]");
    CHECK(db_playoff_contenders(d, dev, prob, "k", 0.05, &c, err, sizeof err) == 0 && c.played);
    CHECK(db_check(d, err, sizeof err) == 0);
    /* a later playoff of two replaces the three rows */
    db_contenders two = c;
    two.n = 2;
    double qa[2] = {9.5, 9.5}, qb[2] = {9.7, 9.7};
    p = playoff_result(2, 2, (double *const[]){qa, qb});
    CHECK(db_put_playoff(d, run, dev, prob, "k", &two, &p, err, sizeof err) == 0);
    CHECK(count(d, "playoffs") == 2);
    CHECK_STR(q_text(d, "SELECT config FROM best"), "b=a");
    /* refusals: a result that does not match the contenders, a config without an ok row */
    p.n_playoff = 3;
    CHECK(db_put_playoff(d, run, dev, prob, "k", &two, &p, err, sizeof err) == -1);
    db_contenders ghost = two;
    snprintf(ghost.config[1], sizeof ghost.config[1], "b=zzz");
    p.n_playoff = 2;
    CHECK(db_put_playoff(d, run, dev, prob, "k", &ghost, &p, err, sizeof err) == -1);
    CHECK(strstr(err, "b=zzz") != NULL);
    CHECK(count(d, "playoffs") == 2);   /* rolled back: the last playoff stays */

    /* dump, import, merge: the playoffs travel with their evaluations */
    da = dump_of(d);
    CHECK(da && count_of(da, "INSERT OR IGNORE INTO playoffs") == 2);
    CHECK(da && !has_local_id(da));
    CHECK(dump_to_file(d, tmp("pl.sql")) == 0);
    CHECK(db_open(tmp("pl_m.db"), 1, &m, err, sizeof err) == 0);
    if (m) {
        CHECK(db_import(m, tmp("pl.sql"), err, sizeof err) == 0);
        dm = dump_of(m);
        CHECK(same_text(da, dm));
        CHECK_STR(q_text(m, "SELECT config FROM best"), "b=a");
        db_close(m);
        m = NULL;
    }
    CHECK(db_open(tmp("pl_n.db"), 1, &m, err, sizeof err) == 0);
    if (m) {
        CHECK(db_merge(m, tmp("pl.db"), err, sizeof err) == 0);
        CHECK(count(m, "playoffs") == 2);
        CHECK_STR(q_text(m, "SELECT config FROM best"), "b=a");
        CHECK(db_check(m, err, sizeof err) == 0);
    }
    /* db check: a playoff row whose samples do not match n_runs, or of an evaluation not ok */
    CHECK(sqlite3_exec(db_handle(d), "UPDATE playoffs SET n_runs = 3 WHERE rowid = "
                       "(SELECT min(rowid) FROM playoffs)", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(db_check(d, err, sizeof err) == 1);
    CHECK(strstr(err, "JSON array of n_runs") != NULL);

    /* version 2: no playoffs table, the view ranks by median; migrated, rows and winners kept */
    db_close(d);
    d = NULL;
    CHECK(raw_exec(tmp("pl.db"), "PRAGMA foreign_keys = OFF; BEGIN; DROP VIEW best;"
                                 " DROP TABLE playoffs;"
                                 " CREATE VIEW best AS SELECT e.id AS evaluation_id FROM evaluations e;"
                                 " PRAGMA user_version = 2; COMMIT;") == 0);
    CHECK(db_open(tmp("pl.db"), 0, &d, err, sizeof err) == 0);
    if (d) {
        CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
        CHECK(count(d, "playoffs") == 0 && count(d, "evaluations") == 4);
        CHECK_STR(q_text(d, "SELECT config FROM best"), "b=a");
        CHECK(q_int(d, "SELECT count(*) FROM best WHERE playoff_us IS NULL") == 1);
        CHECK(db_check(d, err, sizeof err) == 0);
    }

    /* version 3: the view compared every ok evaluation with every other of its problem; the
     * migration makes it anew (driven from problems and devices), with the same winners */
    db_close(d);
    d = view_migrated_from(3,
                           " SELECT d.name AS device, d.uuid AS device_uuid, p.op, p.dtype, p.shape,"
                           " p.size_key, c.text AS config, e.median_us, e.gbps, e.frac_copy,"
                           " e.kernel_hash, e.id AS evaluation_id, e.device_id, e.problem_id,"
                           " pl.median_us AS playoff_us FROM evaluations e"
                           " JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id"
                           " JOIN configs c ON c.id = e.config_id"
                           " LEFT JOIN playoffs pl ON pl.evaluation_id = e.id WHERE e.status = 'ok'"
                           " AND NOT EXISTS (SELECT 1 FROM evaluations e2 JOIN configs c2"
                           " ON c2.id = e2.config_id LEFT JOIN playoffs pl2 ON pl2.evaluation_id = e2.id"
                           " WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id"
                           " AND e2.status = 'ok' AND (coalesce(pl2.median_us, e2.median_us)"
                           " < coalesce(pl.median_us, e.median_us) OR (coalesce(pl2.median_us,"
                           " e2.median_us) = coalesce(pl.median_us, e.median_us) AND (c2.text < c.text"
                           " OR (c2.text = c.text AND e2.kernel_hash < e.kernel_hash)))))");
    if (d) {
        CHECK(q_int(d, "SELECT count(*) FROM sqlite_master WHERE name = 'best'"
                       " AND sql LIKE '%CROSS JOIN devices%'") == 1);
        CHECK(q_int(d, "SELECT count(*) FROM best WHERE playoff_us IS NULL") == 1);
        CHECK(db_check(d, err, sizeof err) == 0);
    }
    /* version 4: the view ranked every evaluation by coalesce(playoff median, own median); the
     * migration makes it anew (schema version 5: a playoff orders its contenders only) */
    db_close(d);
    d = view_migrated_from(4,
                           " SELECT d.name AS device, d.uuid AS device_uuid, p.op, p.dtype, p.shape,"
                           " p.size_key, c.text AS config, e.median_us, e.gbps, e.frac_copy,"
                           " e.kernel_hash, e.id AS evaluation_id, e.device_id, e.problem_id,"
                           " pl.median_us AS playoff_us FROM problems p CROSS JOIN devices d"
                           " CROSS JOIN evaluations e ON e.id = (SELECT e2.id FROM evaluations e2"
                           " JOIN configs c2 ON c2.id = e2.config_id LEFT JOIN playoffs pl2"
                           " ON pl2.evaluation_id = e2.id WHERE e2.device_id = d.id"
                           " AND e2.problem_id = p.id AND e2.status = 'ok'"
                           " ORDER BY coalesce(pl2.median_us, e2.median_us), c2.text, e2.kernel_hash"
                           " LIMIT 1) JOIN configs c ON c.id = e.config_id"
                           " LEFT JOIN playoffs pl ON pl.evaluation_id = e.id");
    if (d)
        CHECK(db_check(d, err, sizeof err) == 0);
    free(da);
    free(dm);
    db_close(d);
    db_close(m);
}

static void test_check(void)
{
    char err[1024];
    db *d = NULL;
    CHECK(db_open(tmp("c.db"), 0, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(db_check(d, err, sizeof err) == 0);
    /* an ok evaluation without samples, planted by raw SQL */
    CHECK(sqlite3_exec(db_handle(d),
                       "INSERT INTO configs(text) VALUES ('planted=1');"
                       "INSERT INTO evaluations(run_id, device_id, problem_id, config_id,"
                       " kernel_hash, status, median_us, n_runs, created_at)"
                       " SELECT r.id, r.device_id, (SELECT min(id) FROM problems),"
                       " (SELECT id FROM configs WHERE text = 'planted=1'), 'h', 'ok', 1.0, 3, 'x'"
                       " FROM runs r LIMIT 1;", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(db_check(d, err, sizeof err) == 1);
    CHECK(strstr(err, "1 ok evaluation(s) without samples") != NULL);
    /* a sample whose evaluation does not exist */
    CHECK(sqlite3_exec(db_handle(d), "PRAGMA foreign_keys = OFF;"
                       "INSERT INTO samples VALUES (9999, 0, 1.0);"
                       "PRAGMA foreign_keys = ON;", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(db_check(d, err, sizeof err) == 1);
    CHECK(strstr(err, "foreign key: samples") != NULL);
    CHECK(strstr(err, "without samples") != NULL);
    CHECK(strstr(err, "c.db") != NULL);
    /* text in REAL columns (SQLite keeps it as text), which export refuses: a sample and a
     * median (found by fuzz_dump) */
    CHECK(strstr(err, "not a number") == NULL);
    CHECK(sqlite3_exec(db_handle(d),
                       "UPDATE samples SET us = 'fast' WHERE (evaluation_id, idx) ="
                       " (SELECT evaluation_id, idx FROM samples WHERE evaluation_id <> 9999"
                       " LIMIT 1);"
                       "UPDATE evaluations SET median_us = 'fast' WHERE id ="
                       " (SELECT max(id) FROM evaluations);", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(db_check(d, err, sizeof err) == 1);
    CHECK(strstr(err, "1 sample(s) that are not a number") != NULL);
    CHECK(strstr(err, "1 evaluation(s) with a statistic that is not a number") != NULL);
    db_close(d);
}

/* The dump loads with the sqlite3 shell (python3's sqlite3 where the shell is missing) onto an
 * empty database, and that database is a tunekit database with the same content. */
static void test_shell_load(void)
{
    char err[512], cmd[2048];
    db *d = NULL;
    char *orig = slurp(tmp("a.sql"), NULL), *again = NULL;
    if (system("command -v sqlite3 >/dev/null 2>&1") == 0)
        snprintf(cmd, sizeof cmd, "sqlite3 '%s' < '%s'", tmp("shell.db"), tmp("a.sql"));
    else
        snprintf(cmd, sizeof cmd, "python3 -c 'import sqlite3,sys; "
                 "sqlite3.connect(sys.argv[1]).executescript(open(sys.argv[2]).read())' '%s' '%s'",
                 tmp("shell.db"), tmp("a.sql"));
    CHECK(system(cmd) == 0);
    CHECK(db_open(tmp("shell.db"), 0, &d, err, sizeof err) == 0);
    if (d) {
        CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
        again = dump_of(d);
        CHECK(same_text(orig, again));
        CHECK(db_check(d, err, sizeof err) == 0);
    }
    free(orig);
    free(again);
    db_close(d);
}

static void spit_bytes(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(bytes, 1, n, f);
    fclose(f);
}

/* The compressed form: export -> compress -> import -> export -> compress gives the same bytes
 * (the ones `xz -9e -T1` writes); a truncated, corrupt or mislabelled .xz, or a NUL byte in the
 * text, is refused with one line and changes nothing; the text form still imports. */
static void test_dump_xz(void)
{
    char err[512], cmd[1024];
    db *c = NULL, *m = NULL;
    size_t n = 0, zn = 0, zn2 = 0, tn = 0;
    char *text = slurp(tmp("bulk.sql"), &n), *z = NULL, *z2 = NULL, *again = NULL, *t = NULL;
    CHECK(text != NULL && n > 100000);
    if (!text)
        return;
    CHECK(db_xz_compress(text, n, &z, &zn, err, sizeof err) == 0);
    if (!z)
        goto done;
    CHECK(zn > 32 && zn < n / 4);
    CHECK(memcmp(z, "\xFD" "7zXZ", 6) == 0);
    spit_bytes(tmp("bulk.sql.xz"), z, zn);
    CHECK(db_xz_path(tmp("bulk.sql.xz")) && !db_xz_path(tmp("bulk.sql")));
    CHECK(db_path_is_dump(tmp("bulk.sql.xz")) && db_path_is_dump(tmp("bulk.sql")) &&
          !db_path_is_dump(tmp("bulk.db")) && !db_path_is_dump(tmp("bulk.xz")));
    t = db_read_dump_text(tmp("bulk.sql.xz"), &tn, err, sizeof err);
    CHECK(t && tn == n && memcmp(t, text, n) == 0);
    free(t);
    t = db_read_dump_text(tmp("bulk.sql"), &tn, err, sizeof err);   /* text as it is */
    CHECK(t && tn == n && memcmp(t, text, n) == 0);
    CHECK(db_open(tmp("xz_c.db"), 1, &c, err, sizeof err) == 0);
    if (!c)
        goto done;
    CHECK(db_import(c, tmp("bulk.sql.xz"), err, sizeof err) == 0);
    CHECK(db_import(c, tmp("bulk.sql.xz"), err, sizeof err) == 0);   /* idempotent */
    CHECK(count(c, "evaluations") == N_BULK && count(c, "samples") == 4 * N_BULK);
    CHECK(bulk_differences(c, tmp("bulk_a.db")) == 0);
    again = dump_of(c);
    CHECK(same_text(text, again));
    if (again)
        CHECK(db_xz_compress(again, strlen(again), &z2, &zn2, err, sizeof err) == 0);
    CHECK(z2 && zn2 == zn && memcmp(z, z2, zn) == 0);   /* byte for byte */
    if (system("command -v xz >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "xz -9e -T1 -c '%s' | cmp -s - '%s'", tmp("bulk.sql"),
                 tmp("bulk.sql.xz"));
        CHECK(system(cmd) == 0);
    }
    /* the in-memory reader and the replay backend's opener take it alike */
    CHECK(db_open_readonly(tmp("bulk.sql.xz"), &m, err, sizeof err) == 0);
    CHECK(m && count(m, "samples") == 4 * N_BULK);
    db_close(m);

    /* refusals: one line naming the file, the database untouched */
    int64_t evals = count(c, "evaluations");
    spit_bytes(tmp("cut.sql.xz"), z, zn / 2);
    CHECK(db_import(c, tmp("cut.sql.xz"), err, sizeof err) == -1);
    CHECK(strstr(err, "cut.sql.xz': truncated .xz data") != NULL && !strchr(err, '\n'));
    spit_bytes(tmp("cut2.sql.xz"), z, zn - 1);   /* only the stream footer's last byte gone */
    CHECK(db_import(c, tmp("cut2.sql.xz"), err, sizeof err) == -1);
    CHECK(strstr(err, "cut2.sql.xz': truncated .xz data") != NULL);
    z[zn / 2] ^= 0x55;
    spit_bytes(tmp("bad.sql.xz"), z, zn);
    z[zn / 2] ^= 0x55;
    CHECK(db_import(c, tmp("bad.sql.xz"), err, sizeof err) == -1);
    CHECK(strstr(err, "bad.sql.xz': corrupt .xz data") != NULL && !strchr(err, '\n'));
    spit(tmp("plain.sql.xz"), "INSERT INTO configs(text) VALUES ('plain=1');\n");
    CHECK(db_import(c, tmp("plain.sql.xz"), err, sizeof err) == -1);
    CHECK(strstr(err, "plain.sql.xz': not an .xz file") != NULL);
    spit_bytes(tmp("nul.sql"), "INSERT INTO configs(text) VALUES ('nul=1');\n\0x", 46);
    CHECK(db_import(c, tmp("nul.sql"), err, sizeof err) == -1);
    CHECK(strstr(err, "nul.sql': holds a NUL byte at offset 44") != NULL);
    CHECK(db_open_readonly(tmp("cut.sql.xz"), &m, err, sizeof err) == -1 && m == NULL);
    CHECK(count(c, "evaluations") == evals);
    CHECK(q_int(c, "SELECT count(*) FROM configs WHERE text IN ('plain=1', 'nul=1')") == 0);
done:
    free(text);
    free(t);
    free(z);
    free(z2);
    free(again);
    db_close(c);
}

/* One evaluation of (op dtype f32, shape) on the card uuid of the model (name, sm_count). */
static int put_card_eval(db *d, const char *uuid, const char *name, int sm, const char *shape,
                         const char *config)
{
    char err[512];
    device_info dev = make_device(uuid, name, sm);
    int64_t dev_id, run, prob;
    run_info info = {"s.yaml", "h", "exhaustive", "cuda", "0.1.0", 1, 0};
    double s[3] = {1, 2, 3};
    eval_result r = ok_result(s, 3);
    char sql[256];
    if (db_put_device(d, &dev, &dev_id, err, sizeof err) != 0)
        return -1;
    snprintf(sql, sizeof sql, "SELECT id FROM runs WHERE device_id = %lld", (long long)dev_id);
    run = q_int(d, sql);
    if (run < 0 && db_begin_run(d, dev_id, &info, &run, err, sizeof err) != 0)
        return -1;
    if (db_put_problem(d, "elementwise.mul", "f32", shape, 1024, 12288, 1024, 0, &prob, err,
                       sizeof err) != 0)
        return -1;
    return db_put_evaluation(d, run, dev_id, prob, config, "h1", &r, 12288, 0, 0, err,
                             sizeof err);
}

/* The card of a model that recorded a problem: the most evaluations of it, ties to the smaller
 * uuid; cards of another model (here: the same name, other SM count) never count. */
static void test_model_card(void)
{
    static const char *const cfg[] = {"b=1", "b=2", "b=3", "b=4", "b=5", "b=6"};
    char err[512], uuid[64];
    db *d = NULL;
    int ok = 1;
    CHECK(db_open(tmp("cards.db"), 1, &d, err, sizeof err) == 0);
    if (!d)
        return;
    for (int i = 0; i < 6; i++)   /* the other model: most evaluations, smallest uuid */
        ok &= put_card_eval(d, "GPU-0", "Model X", 114, "n=1", cfg[i]) == 0;
    for (int i = 0; i < 2; i++)   /* n=1: x2 has more */
        ok &= put_card_eval(d, "GPU-x1", "Model X", 132, "n=1", cfg[i]) == 0;
    for (int i = 0; i < 3; i++)
        ok &= put_card_eval(d, "GPU-x2", "Model X", 132, "n=1", cfg[i]) == 0;
    ok &= put_card_eval(d, "GPU-x1", "Model X", 132, "n=2", cfg[0]) == 0;   /* n=2: x1 alone */
    ok &= put_card_eval(d, "GPU-x1", "Model X", 132, "n=3", cfg[0]) == 0;   /* n=3: a tie */
    ok &= put_card_eval(d, "GPU-x2", "Model X", 132, "n=3", cfg[1]) == 0;
    for (int i = 0; i < 2; i++)   /* overall: x2 has 6, x1 4 */
        ok &= put_card_eval(d, "GPU-x2", "Model X", 132, "n=4", cfg[i]) == 0;
    CHECK(ok);
    device_info model = make_device("GPU-any", "Model X", 132);
    CHECK(db_model_card(d, &model, "elementwise.mul", "f32", "n=1", uuid, sizeof uuid) == 1 &&
          strcmp(uuid, "GPU-x2") == 0);
    CHECK(db_model_card(d, &model, "elementwise.mul", "f32", "n=2", uuid, sizeof uuid) == 1 &&
          strcmp(uuid, "GPU-x1") == 0);
    CHECK(db_model_card(d, &model, "elementwise.mul", "f32", "n=3", uuid, sizeof uuid) == 1 &&
          strcmp(uuid, "GPU-x1") == 0);
    CHECK(db_model_card(d, &model, "elementwise.mul", "f32", "n=9", uuid, sizeof uuid) == 0);
    CHECK(db_model_card(d, &model, "elementwise.mul", "f16", "n=1", uuid, sizeof uuid) == 0);
    CHECK(db_model_card(d, &model, NULL, NULL, NULL, uuid, sizeof uuid) == 1 &&
          strcmp(uuid, "GPU-x2") == 0);
    device_info other = make_device("GPU-any", "Model X", 114);
    CHECK(db_model_card(d, &other, "elementwise.mul", "f32", "n=3", uuid, sizeof uuid) == 0);
    CHECK(db_model_card(d, &other, "elementwise.mul", "f32", "n=1", uuid, sizeof uuid) == 1 &&
          strcmp(uuid, "GPU-0") == 0);
    device_info a = make_device("GPU-1", "Model X", 132), b = make_device("GPU-2", "Model X", 132);
    CHECK(device_same_model(&a, &b));
    b.cc_minor = 9;
    CHECK(!device_same_model(&a, &b));
    b = make_device("GPU-2", "Model Y", 132);
    CHECK(!device_same_model(&a, &b));
    db_close(d);
}

/* A problem's flops (schema version 6): stored by db_put_problem (0: NULL), kept by a
 * version-5 database's migration (NULL for every problem it had), carried by the dump (an upsert
 * that fills a problem present without flops; a database without flops dumps the rows of
 * version 5) and by merge, and NULL after importing a dump that never had the column. */
static void test_flops(void)
{
    char err[512];
    db *d = NULL, *e = NULL;
    char *before = NULL, *after = NULL, *text = NULL;
    int64_t pid;
    /* version 5: problems had no flops column; the migration adds it, every row kept */
    char v5[512];
    snprintf(v5, sizeof v5, "%s", tmp("v5.db"));
    CHECK(db_open(v5, 1, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(fill(d, 0) == 0);
    before = dump_of(d);
    int64_t problems = count(d, "problems"), evals = count(d, "evaluations");
    db_close(d);
    d = NULL;
    CHECK(raw_exec(v5, "BEGIN; ALTER TABLE problems DROP COLUMN flops;"
                       " PRAGMA user_version = 5; COMMIT;") == 0);
    CHECK(db_open_readonly(v5, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "schema version 5 is older") != NULL);
    CHECK(db_open(v5, 0, &d, err, sizeof err) == 0);
    if (!d)
        goto done;
    CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
    CHECK(count(d, "problems") == problems && count(d, "evaluations") == evals);
    CHECK(q_int(d, "SELECT count(*) FROM problems WHERE flops IS NULL") == problems);
    CHECK(db_check(d, err, sizeof err) == 0);
    after = dump_of(d);
    CHECK(same_text(before, after));
    /* without flops the problems are the rows version 5 wrote */
    CHECK(strstr(after, "INSERT OR IGNORE INTO problems(op,dtype,shape,elements,bytes,size_key)"
                        " VALUES\n('elementwise.mul','f32','n=1024,offset=0',1024,12288,1024),")
          != NULL);
    CHECK(strstr(after, "flops) VALUES") == NULL);

    /* stored: 0 is NULL, a count is kept, the problem's upsert replaces it */
    CHECK(db_put_problem(d, "gemm.sgemm", "f32", "K=64,M=64,N=64", 4096, 49152, 4096, 0, &pid, err,
                         sizeof err) == 0);
    CHECK_STR(q_text(d, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'"), "NULL");
    CHECK(db_put_problem(d, "gemm.sgemm", "f32", "K=64,M=64,N=64", 4096, 49152, 4096, 524288,
                         &pid, err, sizeof err) == 0);
    CHECK(q_int(d, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'") == 524288);
    CHECK(q_int(d, "SELECT count(*) FROM problems WHERE flops IS NOT NULL") == 1);

    /* export -> import -> export, byte for byte, the flops with it */
    free(after);
    after = dump_of(d);
    CHECK(strstr(after, "INSERT INTO problems(op,dtype,shape,elements,bytes,size_key,flops) VALUES"
                        "\n('elementwise.mul','f32','n=1024,offset=0',1024,12288,1024,NULL),")
          != NULL);
    CHECK(strstr(after, "('gemm.sgemm','f32','K=64,M=64,N=64',4096,49152,4096,524288)") != NULL);
    CHECK(strstr(after, "ON CONFLICT(op,dtype,shape) DO UPDATE SET flops=excluded.flops WHERE "
                        "flops IS NULL;\n-- configs") != NULL);
    CHECK(dump_to_file(d, tmp("flops.sql")) == 0);
    CHECK(db_open(tmp("flops.db"), 1, &e, err, sizeof err) == 0);
    if (!e)
        goto done;
    CHECK(db_import(e, tmp("flops.sql"), err, sizeof err) == 0);
    CHECK(q_int(e, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'") == 524288);
    text = dump_of(e);
    CHECK(same_text(after, text));
    free(text);
    text = NULL;

    /* a problem present without flops takes the dump's; one with flops of its own keeps them */
    CHECK(raw_exec(tmp("flops.db"), "UPDATE problems SET flops = NULL") == 0);
    CHECK(db_import(e, tmp("flops.sql"), err, sizeof err) == 0);
    CHECK(q_int(e, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'") == 524288);
    CHECK(raw_exec(tmp("flops.db"), "UPDATE problems SET flops = 7 WHERE op = 'gemm.sgemm'")
          == 0);
    CHECK(db_import(e, tmp("flops.sql"), err, sizeof err) == 0);
    CHECK(q_int(e, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'") == 7);

    /* merge: the same rules */
    CHECK(raw_exec(tmp("flops.db"), "UPDATE problems SET flops = NULL") == 0);
    CHECK(db_merge(e, v5, err, sizeof err) == 0);
    CHECK(q_int(e, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'") == 524288);
    CHECK(q_int(e, "SELECT count(*) FROM problems WHERE flops IS NOT NULL") == 1);
    CHECK(raw_exec(tmp("flops.db"), "UPDATE problems SET flops = 7 WHERE op = 'gemm.sgemm'")
          == 0);
    CHECK(db_merge(e, tmp("flops.sql"), err, sizeof err) == 0);
    CHECK(q_int(e, "SELECT flops FROM problems WHERE op = 'gemm.sgemm'") == 7);
    db_close(e);
    e = NULL;

    /* a dump from before the column imports with NULL flops */
    spit(tmp("old_flops.sql"), old_format);
    CHECK(db_open(tmp("old_flops.db"), 1, &e, err, sizeof err) == 0);
    if (!e)
        goto done;
    CHECK(db_import(e, tmp("old_flops.sql"), err, sizeof err) == 0);
    CHECK(count(e, "problems") == 1);
    CHECK_STR(q_text(e, "SELECT flops FROM problems"), "NULL");
done:
    free(before);
    free(after);
    free(text);
    db_close(d);
    db_close(e);
}

static int collect_best(void *ctx, const best_row *row)
{
    best_row *out = ctx;
    if (strcmp(row->shape, "n=1024,offset=0") == 0) {
        *out = *row;
        out->config = strdup(row->config);
    }
    return 0;
}

/* The winner of n=1024 under objective o into *r (r->config malloc'd: the caller frees), the
 * problems without energy into *none. 0 or -1. */
static int winner_by(db *d, int o, best_row *r, int64_t *none)
{
    memset(r, 0, sizeof *r);
    return db_each_best_by(d, o, NULL, NULL, NULL, collect_best, r, none);
}

/* An evaluation's energy (schema version 7): stored with an ok result whose joules > 0 (each
 * reading the board did not give as NULL; nothing on a result not ok), read back by
 * db_find_evaluation (the replay backend's answer), ranked by db_each_best_by (energy, edp and
 * time winners, ties by config text, problems without energy counted), carried byte for byte by
 * export and import and by merge, held to db_check's invariants, and added by the migration from
 * version 6 (every row kept, NULL energy). */
static void test_energy(void)
{
    char err[512];
    int64_t dev, run, prob, prob2;
    db *d = one_problem_db("energy.db", "GPU-en", &dev, &run, &prob), *e = NULL;
    char *text = NULL, *text2 = NULL;
    best_row r;
    int64_t none = -1;
    if (!d)
        return;
    /* time winner c (no energy), energy winner b (tied with d on energy: config text), edp
     * winner a (0.004 J x 11 us against b's 0.0035 J x 13 us) */
    double sa[3] = {10, 11, 12}, sb[3] = {12, 13, 14}, sc[3] = {9, 10, 11}, sd[3] = {12, 13, 14};
    eval_result a = ok_result(sa, 3), b = ok_result(sb, 3), c = ok_result(sc, 3);
    eval_result dd = ok_result(sd, 3), f = bad_result(EVAL_INVALID, "wrong");
    a.energy = (eval_energy){0.004, 363.5, 200, 1980, 2619, 51, 4};
    b.energy = (eval_energy){0.0035, 269.25, 150, 0, 0, 0, -1};
    dd.energy = b.energy;
    f.energy = a.energy;
    CHECK(db_put_evaluation(d, run, dev, prob, "b=a", "h", &a, 12288, 3000, 0, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=d", "h", &dd, 12288, 3000, 1, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=b", "h", &b, 12288, 3000, 2, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=c", "h", &c, 12288, 3000, 3, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=f", "h", &f, 12288, 3000, 4, err, sizeof err) == 0);
    /* a second problem measured without energy */
    CHECK(db_put_problem(d, "elementwise.mul", "f32", "n=2048,offset=0", 2048, 24576, 2048, 0,
                         &prob2, err, sizeof err) == 0);
    CHECK(db_put_evaluation(d, run, dev, prob2, "b=a", "h", &c, 24576, 3000, 5, err, sizeof err) == 0);
    CHECK(q_int(d, "SELECT count(energy_j) FROM evaluations") == 3);
    CHECK(q_int(d, "SELECT count(*) FROM evaluations WHERE status <> 'ok' AND (energy_j IS NOT NULL"
                   " OR power_w IS NOT NULL OR throttle IS NOT NULL)") == 0);
    CHECK(q_double(d, "SELECT energy_j FROM evaluations e JOIN configs c ON c.id = e.config_id"
                      " WHERE c.text = 'b=a'") == 0.004);
    CHECK_STR(q_text(d, "SELECT quote(sm_mhz) || ',' || quote(mem_mhz) || ',' || quote(temp_c) ||"
                        " ',' || quote(throttle) || ',' || quote(energy_window_ms) FROM evaluations"
                        " e JOIN configs c ON c.id = e.config_id WHERE c.text = 'b=b'"),
              "NULL,NULL,NULL,NULL,150.0");
    CHECK(db_check(d, err, sizeof err) == 0);

    /* read back as the replay backend answers */
    eval_result got;
    CHECK(db_find_evaluation(d, "GPU-en", "elementwise.mul", "f32", "n=1024,offset=0", "b=a",
                             &got) == 1);
    CHECK(got.energy.joules == 0.004 && got.energy.power_w == 363.5 &&
          got.energy.window_ms == 200 && got.energy.sm_mhz == 1980 && got.energy.mem_mhz == 2619 &&
          got.energy.temp_c == 51 && got.energy.throttle == 4);
    eval_result_clear(&got);
    CHECK(db_find_evaluation(d, "GPU-en", "elementwise.mul", "f32", "n=1024,offset=0", "b=b",
                             &got) == 1);
    CHECK(got.energy.joules == 0.0035 && got.energy.sm_mhz == 0 && got.energy.throttle == -1);
    eval_result_clear(&got);
    CHECK(db_find_evaluation(d, "GPU-en", "elementwise.mul", "f32", "n=1024,offset=0", "b=c",
                             &got) == 1);
    CHECK(got.energy.joules == 0 && got.energy.power_w == 0 && got.energy.throttle == -1);
    eval_result_clear(&got);

    /* the winners */
    CHECK_STR(db_objective_sql(OBJECTIVE_TIME), "e.median_us");
    CHECK_STR(db_objective_sql(OBJECTIVE_ENERGY), "e.energy_j");
    CHECK_STR(db_objective_sql(OBJECTIVE_EDP), "e.energy_j * e.median_us");
    CHECK(winner_by(d, OBJECTIVE_TIME, &r, &none) == 0);
    CHECK_STR(r.config, "b=c");
    CHECK(r.median_us == 10 && r.score == 10 && r.energy_j == 0 && none == 0);
    free((char *)r.config);
    CHECK(winner_by(d, OBJECTIVE_ENERGY, &r, &none) == 0);
    CHECK_STR(r.config, "b=b");
    CHECK(r.score == 0.0035 && r.energy_j == 0.0035 && r.power_w == 269.25 && r.median_us == 13);
    CHECK(none == 1);   /* n=2048 has no energy: no winner */
    free((char *)r.config);
    CHECK(winner_by(d, OBJECTIVE_EDP, &r, &none) == 0);
    CHECK_STR(r.config, "b=a");
    CHECK(fabs(r.score - 0.044) < 1e-12 && none == 1);
    free((char *)r.config);
    CHECK(winner_by(d, OBJECTIVE_ENERGY, &r, NULL) == 0);   /* the count may be left out */
    free((char *)r.config);

    /* export -> import -> export, the energy with it; the rows without energy as before */
    text = dump_of(d);
    CHECK(text && strstr(text, "('b=a','ok',NULL,'[11.0,10.0,12.0,11.0,0.3333333333333333,10.89,"
                               "11.11,1.1170909090909091,0.0003723636363636364,0.004,363.5,200.0,"
                               "1980,2619,51,4]'") != NULL);
    CHECK(text && strstr(text, "0.0035,269.25,150.0,null,null,null,null]'") != NULL);
    CHECK(text && strstr(text, "('b=c','ok',NULL,'[10.0,9.0,11.0,10.0,0.3333333333333333,9.9,10.1,"
                               "1.2288,0.0004096]'") != NULL);
    CHECK(dump_to_file(d, tmp("energy.sql")) == 0);
    CHECK(db_open(tmp("energy2.db"), 1, &e, err, sizeof err) == 0);
    if (!e)
        goto done;
    CHECK(db_import(e, tmp("energy.sql"), err, sizeof err) == 0);
    text2 = dump_of(e);
    CHECK(same_text(text, text2));
    CHECK(q_int(e, "SELECT count(energy_j) FROM evaluations") == 3);
    db_close(e);
    e = NULL;
    /* a summary import (no samples) keeps the energy too */
    const char *one[1] = {tmp("energy.sql")};
    setenv("TUNEKIT_DUMP_CACHE", "off", 1);
    CHECK(db_open_dumps_summary(one, 1, NULL, &e, err, sizeof err) == 0);
    if (e)
        CHECK(q_int(e, "SELECT count(energy_j) FROM evaluations") == 3 &&
              count(e, "samples") == 0);
    db_close(e);
    e = NULL;
    /* merge */
    CHECK(db_open(tmp("energy3.db"), 1, &e, err, sizeof err) == 0);
    if (!e)
        goto done;
    CHECK(db_merge(e, tmp("energy.db"), err, sizeof err) == 0);
    CHECK(q_int(e, "SELECT count(energy_j) FROM evaluations") == 3);
    CHECK(q_int(e, "SELECT throttle FROM evaluations e JOIN configs c ON c.id = e.config_id"
                   " WHERE c.text = 'b=a'") == 4);
    db_close(e);
    e = NULL;

    /* the invariants: energy readings only on ok rows with energy_j; the CHECK on energy_j */
    CHECK(raw_exec(tmp("energy3.db"), "UPDATE evaluations SET power_w = 5 WHERE status <> 'ok'") == 0);
    CHECK(raw_exec(tmp("energy3.db"), "UPDATE evaluations SET energy_j = 0 WHERE energy_j > 0") == -1);
    CHECK(raw_exec(tmp("energy3.db"), "UPDATE evaluations SET energy_j = 'x' WHERE energy_j > 0") == 0);
    CHECK(db_open_readonly(tmp("energy3.db"), &e, err, sizeof err) == 0);
    if (e) {
        CHECK(db_check(e, err, sizeof err) == 1);
        CHECK(strstr(err, "1 evaluation(s) with energy readings but not ok or without energy_j") != NULL);
        CHECK(strstr(err, "3 evaluation(s) with an energy reading that is not a number") != NULL);
    }
    db_close(e);
    e = NULL;

    /* version 6: evaluations had no energy; the migration adds the columns, every row kept */
    db_close(d);
    d = NULL;
    CHECK(raw_exec(tmp("energy.db"), "BEGIN; ALTER TABLE evaluations DROP COLUMN energy_j;"
                   " ALTER TABLE evaluations DROP COLUMN power_w;"
                   " ALTER TABLE evaluations DROP COLUMN energy_window_ms;"
                   " ALTER TABLE evaluations DROP COLUMN sm_mhz;"
                   " ALTER TABLE evaluations DROP COLUMN mem_mhz;"
                   " ALTER TABLE evaluations DROP COLUMN temp_c;"
                   " ALTER TABLE evaluations DROP COLUMN throttle;"
                   " PRAGMA user_version = 6; COMMIT;") == 0);
    CHECK(db_open_readonly(tmp("energy.db"), &d, err, sizeof err) == -1);
    CHECK(strstr(err, "schema version 6 is older") != NULL);
    CHECK(db_open(tmp("energy.db"), 0, &d, err, sizeof err) == 0);
    if (!d)
        goto done;
    CHECK(q_int(d, "PRAGMA user_version") == DB_SCHEMA_VERSION);
    CHECK(q_int(d, "SELECT count(*) FROM pragma_table_info('evaluations') WHERE name IN"
                   " ('energy_j','power_w','energy_window_ms','sm_mhz','mem_mhz','temp_c',"
                   "'throttle')") == 7);
    CHECK(count(d, "evaluations") == 6 && count(d, "samples") == 15);
    CHECK(q_int(d, "SELECT count(energy_j) FROM evaluations") == 0);
    CHECK(db_check(d, err, sizeof err) == 0);
    /* with the CHECK of a new table, and storing energy again */
    CHECK(raw_exec(tmp("energy.db"), "UPDATE evaluations SET energy_j = -1") == -1);
    CHECK(db_put_evaluation(d, run, dev, prob, "b=g", "h", &a, 12288, 3000, 6, err, sizeof err) == 0);
    CHECK(q_int(d, "SELECT count(energy_j) FROM evaluations") == 1);
    CHECK(winner_by(d, OBJECTIVE_ENERGY, &r, &none) == 0);
    CHECK_STR(r.config, "b=g");
    free((char *)r.config);
done:
    free(text);
    free(text2);
    db_close(d);
    db_close(e);
}

/* The hand-written fixture of plain INSERTs (no header, no schema) imports, idempotently. */
static void test_fixture(void)
{
    char err[512];
    db *d = NULL;
    const char *fx = "tests/fixtures/synthetic_elementwise.sql.xz";
    CHECK(db_open(tmp("fx.db"), 1, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(db_import(d, fx, err, sizeof err) == 0);
    int64_t evals = count(d, "evaluations"), samples = count(d, "samples");
    CHECK(evals > 100 && samples > 100);
    CHECK(db_import(d, fx, err, sizeof err) == 0);
    CHECK(count(d, "evaluations") == evals && count(d, "samples") == samples);
    CHECK(db_check(d, err, sizeof err) == 0);
    db_close(d);
}

int main(void)
{
    char cmd[300];
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_db.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_open();
    test_refusals();
    test_migration();
    test_writes();
    test_killed_writer();
    test_readers();
    test_best();
    test_dump();
    test_dump_bulk();
    test_dump_shapes();
    test_import_more();
    test_dump_xz();
    test_model_card();
    test_merge();
    test_playoffs();
    test_playoff_winner_rule();
    test_check();
    test_shell_load();
    test_fixture();
    test_flops();
    test_energy();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return CHECK_DONE();
}

/* db_fixture.h: what the database layer's unit tests (test_db.c, test_db_dump.c, test_db_best.c)
 * share: a temporary directory per test program and paths in it, whole-file and one-value-query
 * helpers, dumps as text, devices and evaluation results to store, the standard content (fill)
 * and one-problem databases. Every function is static inline, so that a test file that does not
 * use one compiles without a warning. */
#pragma once
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
#include "core/files.h"
#include "core/objective.h"

static char tmpdir[256];

/* A path in the temporary directory; rotates over a few static buffers. */
static inline const char *tmp(const char *name)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

static inline void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

static inline int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* One integer from a query, or -999 on error. */
static inline long long q_int(db *d, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -999;
    if (sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static inline double q_double(db *d, const char *sql)
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
static inline const char *q_text(db *d, const char *sql)
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

static inline int raw_exec(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open(path, &h) == SQLITE_OK &&
             sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(h);
    return rc ? 0 : -1;
}

/* The dump of d as a malloc'd string (caller frees); NULL on error. */
static inline char *dump_of(db *d)
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

static inline int dump_to_file(db *d, const char *path)
{
    char *text = dump_of(d);
    if (!text)
        return -1;
    spit(path, text);
    free(text);
    return 0;
}

static inline int same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Occurrences of needle in text. */
static inline int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text ? strstr(text, needle) : NULL; p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* 1 when the dump compares an id with a number ("id=3", "_id = 12", "id IN (4"): a
 * database-local id written into it. */
static inline int has_local_id(const char *text)
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

static inline int64_t count(db *d, const char *table)
{
    int64_t n = -1;
    if (db_count(d, table, &n) != 0)
        return -1;
    return n;
}

static inline device_info make_device(const char *uuid, const char *name, int sm)
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
static inline eval_result ok_result(double *samples, int n)
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

static inline eval_result bad_result(eval_status s, const char *msg)
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

static __attribute__((unused)) double samples_a[] = {12.5, 12.75, 0.1 + 0.2, 12.625, 1.0 / 3.0, 13.0, 12.5};

static __attribute__((unused)) const ev_spec content[] = {
    {"GPU-b", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=256,waves=1", "h1", EVAL_OK, 10},
    {"GPU-b", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=128,waves=1", "h1", EVAL_OK, 11},
    {"GPU-b", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=64,waves=1", "h1", EVAL_INVALID, 0},
    {"GPU-a", "elementwise.mul", "f32", "n=1024,offset=0", "block_size=256,waves=1", "h1", EVAL_OK, 9},
    {"GPU-a", "elementwise.relu", "f16", "n=65536,offset=0", "block_size=512,waves=2", "h2", EVAL_OK, 20},
    {"GPU-a", "elementwise.relu", "f16", "n=65536,offset=0", "block_size=512,waves=4", "h2", EVAL_FAULT, 0},
    {"GPU-a", "elementwise.relu", "f16", "n=65536,offset=0", "block_size=512,waves=2", "h1", EVAL_OK, 21},
};
#define N_CONTENT ((int)(sizeof content / sizeof content[0]))

static inline int64_t device_of(db *d, const char *uuid, char *err)
{
    device_info dev = make_device(uuid, strcmp(uuid, "GPU-a") == 0 ? "Model A" : "Model B", 132);
    int64_t id = -1;
    if (db_put_device(d, &dev, &id, err, 512) != 0)
        return -1;
    return id;
}

/* Writes content[] in forward or reverse order (ids differ), then pins the clock-derived
 * columns so two fills hold the same content. */
static inline int fill(db *d, int reverse)
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

/* A new database at tmp(name) holding one device (uuid, "Playoff GPU"), one run and one problem
 * (elementwise.mul f32 n=1024): the playoff tests' start. NULL when it did not open. */
static inline db *one_problem_db(const char *name, const char *uuid, int64_t *dev, int64_t *run,
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
static inline eval_result playoff_result(int k, int n, double *const *runs)
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

/* A dump in the earlier format: one INSERT per row, parents by sub-select, the samples of an
 * evaluation as one statement over json_each. */
static __attribute__((unused)) const char old_format[] =
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

/* A new database at tmp(name) with the standard content (fill; reverse: inserted in the other
 * order, so other ids), closed: what a test that needs one starts from. 0, or -1. */
static inline int make_filled(const char *name, int reverse)
{
    char err[512];
    db *d = NULL;
    if (db_open(tmp(name), 1, &d, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int rc = count(d, "evaluations") == 0 ? fill(d, reverse) : -1;
    db_close(d);
    return rc;
}

/* Makes the temporary directory (/tmp/NAME.XXXXXX) the tests' paths live in; 0, or -1. */
static inline int fixture_begin(const char *name)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* Removes it. */
static inline void fixture_end(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

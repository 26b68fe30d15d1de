/* test_db.c: unit tests of the database layer's core (tuner/db/) on files in a temporary
 * directory: opening and creating, refusing garbage / foreign / newer files without touching
 * them, migrating a version-0 database, the run loop's writes (one transaction per evaluation,
 * rolled back on failure, survived by a killed writer), resume and replay lookups, idempotent
 * merge, db_check on a clean and on a planted-inconsistent database, and the card of a GPU model
 * that recorded a problem (replay). Dumps: test_db_dump.c; the best view and objectives:
 * test_db_best.c. */
#include "db_fixture.h"

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
    char *before = file_read(garbage, &n1);
    CHECK(db_open(garbage, 1, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "garbage.db") && strstr(err, "not a SQLite database"));
    CHECK(db_open_readonly(garbage, &d, err, sizeof err) == -1);
    char *after = file_read(garbage, &n2);
    CHECK(n1 == n2 && memcmp(before, after, n1) == 0);
    CHECK(!exists(tmp("garbage.db-wal")) && !exists(tmp("garbage.db-journal")));
    free(before);
    free(after);

    /* a foreign SQLite database */
    const char *foreign = tmp("foreign.db");
    CHECK(raw_exec(foreign, "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);"
                            "INSERT INTO notes(body) VALUES ('keep me');") == 0);
    before = file_read(foreign, &n1);
    CHECK(db_open(foreign, 1, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "foreign.db': not a tunekit database (no devices table)") != NULL);
    after = file_read(foreign, &n2);
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


static void test_merge(void)
{
    char err[512];
    db *e = NULL, *a = NULL;
    char *da = NULL, *de = NULL;
    CHECK(make_filled("a.db", 0) == 0 && make_filled("b.db", 1) == 0);
    CHECK(db_open(tmp("e.db"), 1, &e, err, sizeof err) == 0);
    CHECK(db_open(tmp("a.db"), 0, &a, err, sizeof err) == 0);
    if (!e || !a)
        goto done;
    da = dump_of(a);
    CHECK(dump_to_file(a, tmp("a.sql")) == 0);
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
    /* merging into a database with other rows keeps them (test_writes' database) */
    db *w = NULL;
    CHECK(db_open(tmp("w.db"), 0, &w, err, sizeof err) == 0);
    int64_t w_dev = w ? count(w, "devices") : -1, w_ev = w ? count(w, "evaluations") : -1;
    db_close(w);
    int64_t e_dev = count(e, "devices"), e_ev = count(e, "evaluations");
    CHECK(db_merge(e, tmp("w.db"), err, sizeof err) == 0);
    CHECK(w_dev > 0 && w_ev > 0 && count(e, "devices") == e_dev + w_dev &&
          count(e, "evaluations") == e_ev + w_ev);
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

static void test_check(void)
{
    char err[1024];
    db *d = NULL;
    CHECK(make_filled("c.db", 0) == 0);
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

int main(void)
{
    if (fixture_begin("test_db") != 0) return 1;
    test_open();
    test_refusals();
    test_migration();
    test_writes();
    test_killed_writer();
    test_readers();
    test_model_card();
    test_merge();
    test_check();
    fixture_end();
    return CHECK_DONE();
}

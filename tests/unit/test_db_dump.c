/* test_db_dump.c: unit tests of the deterministic dump (tuner/db/db_export.c, db_import.c): the
 * same bytes for the same content in any insertion order, export -> import -> export identity
 * (also for a bulk database of hard values), earlier dump shapes and hand-written SQL, idempotent
 * import, loading with the sqlite3 shell, the compressed form (.sql.xz: the same identity byte
 * for byte, truncated or corrupt files refused) and the committed test fixture. */
#include "db_fixture.h"

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
    small = file_read(tmp("a.sql"), NULL);
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
    /* importing into a database with other rows keeps them: the standard content under other
     * device uuids */
    CHECK(make_filled("w.db", 0) == 0);
    CHECK(db_open(tmp("w.db"), 0, &d, err, sizeof err) == 0);
    if (!d)
        return;
    CHECK(sqlite3_exec(db_handle(d), "UPDATE devices SET uuid = uuid || '-w'", NULL, NULL, NULL) ==
          SQLITE_OK);
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

/* The dump loads with the sqlite3 shell (python3's sqlite3 where the shell is missing) onto an
 * empty database, and that database is a tunekit database with the same content. */
static void test_shell_load(void)
{
    char err[512], cmd[2048];
    db *d = NULL;
    char *orig = file_read(tmp("a.sql"), NULL), *again = NULL;
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
    char *text = file_read(tmp("bulk.sql"), &n), *z = NULL, *z2 = NULL, *again = NULL, *t = NULL;
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
    if (fixture_begin("test_db_dump") != 0) return 1;
    test_dump();
    test_dump_bulk();
    test_dump_shapes();
    test_import_more();
    test_dump_xz();
    test_shell_load();
    test_fixture();
    fixture_end();
    return CHECK_DONE();
}

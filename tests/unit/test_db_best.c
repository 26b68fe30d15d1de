/* test_db_best.c: unit tests of what the database says is best (tuner/db/): the best view's order
 * and tie-break, playoffs (stored, carried by dumps and merges, their winner taken by the view
 * from schema version 5), a problem's flops through the version-5 migration, dumps and merges,
 * and an evaluation's energy (version 7) stored, read back, ranked by the energy and edp winners,
 * carried by dumps and merges and added by the migration. */
#include "db_fixture.h"

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

int main(void)
{
    if (fixture_begin("test_db_best") != 0) return 1;
    test_best();
    test_playoffs();
    test_playoff_winner_rule();
    test_flops();
    test_energy();
    fixture_end();
    return CHECK_DONE();
}

/* db_write.c: what the run loop writes. Devices and problems are upserted by natural key (the row
 * describes the device or problem as the tuner sees it now); runs get a unique start time;
 * db_put_evaluation stores one evaluation with its config, its energy measurement (schema
 * version 7) and every sample in one transaction, so a run killed at any moment loses at most
 * the evaluation in flight; a problem's playoff (its contenders, and their re-timed runs
 * replacing the last playoff's) likewise in one. An energy search's contenders come from the
 * same query as the playoff's, and an energy window alone is stored on its evaluation's row. */
#include "db_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Steps a statement that returns one id (INSERT ... RETURNING id or SELECT id). */
static int db_step_id(db *d, sqlite3_stmt *st, int64_t *id, const char *what, char *err,
                      size_t len)
{
    if (sqlite3_step(st) != SQLITE_ROW)
        return db_fail(d, err, len, what);
    *id = sqlite3_column_int64(st, 0);
    return 0;
}

int db_put_device(db *d, const device_info *dev, int64_t *device_id, char *err, size_t len)
{
    static const char sql[] =
        "INSERT INTO devices(uuid, name, cc_major, cc_minor, sm_count, max_threads_per_sm,"
        " max_threads_per_block, regs_per_sm, smem_per_sm, l2_bytes, mem_bytes, sm_clock_khz,"
        " mem_clock_khz, mem_bus_bits, driver_version, runtime_version)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
        " ON CONFLICT(uuid) DO UPDATE SET name = excluded.name, cc_major = excluded.cc_major,"
        " cc_minor = excluded.cc_minor, sm_count = excluded.sm_count,"
        " max_threads_per_sm = excluded.max_threads_per_sm,"
        " max_threads_per_block = excluded.max_threads_per_block,"
        " regs_per_sm = excluded.regs_per_sm, smem_per_sm = excluded.smem_per_sm,"
        " l2_bytes = excluded.l2_bytes, mem_bytes = excluded.mem_bytes,"
        " sm_clock_khz = excluded.sm_clock_khz, mem_clock_khz = excluded.mem_clock_khz,"
        " mem_bus_bits = excluded.mem_bus_bits, driver_version = excluded.driver_version,"
        " runtime_version = excluded.runtime_version"
        " RETURNING id";
    sqlite3_stmt *st = NULL;
    int ret = -1;
    if (!dev->uuid[0])
        return db_errf(d, err, len, "device '%s' has no uuid", dev->name);
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK) {
        db_fail(d, err, len, "storing the device");
        goto done;
    }
    sqlite3_bind_text(st, 1, dev->uuid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, dev->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, dev->cc_major);
    sqlite3_bind_int(st, 4, dev->cc_minor);
    sqlite3_bind_int(st, 5, dev->sm_count);
    sqlite3_bind_int(st, 6, dev->max_threads_per_sm);
    sqlite3_bind_int(st, 7, dev->max_threads_per_block);
    sqlite3_bind_int(st, 8, dev->regs_per_sm);
    sqlite3_bind_int64(st, 9, dev->smem_per_sm);
    sqlite3_bind_int64(st, 10, dev->l2_bytes);
    sqlite3_bind_int64(st, 11, dev->mem_bytes);
    sqlite3_bind_int(st, 12, dev->sm_clock_khz);
    sqlite3_bind_int(st, 13, dev->mem_clock_khz);
    sqlite3_bind_int(st, 14, dev->mem_bus_bits);
    sqlite3_bind_int(st, 15, dev->driver_version);
    sqlite3_bind_int(st, 16, dev->runtime_version);
    ret = db_step_id(d, st, device_id, "storing the device", err, len);
done:
    sqlite3_finalize(st);
    return ret;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

int db_begin_run(db *d, int64_t device_id, const run_info *info, int64_t *run_id, char *err,
                 size_t len)
{
    static const char sql[] =
        "INSERT INTO runs(device_id, started_at, space, space_hash, strategy, seed, backend,"
        " copy_gbps, tuner_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id";
    sqlite3_stmt *st = NULL;
    char started[32];
    int64_t ms = db_now_ms();
    int ret = -1;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK) {
        db_fail(d, err, len, "starting the run");
        goto done;
    }
    /* started_at is part of the run's natural key: a run that starts in the same millisecond as
     * another on the same device takes the next free millisecond. */
    for (int attempt = 0; attempt < 1000; attempt++, ms++) {
        db_format_time(ms, started, sizeof started);
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, device_id);
        sqlite3_bind_text(st, 2, started, -1, SQLITE_TRANSIENT);
        bind_text_or_null(st, 3, info->space ? info->space : "");
        bind_text_or_null(st, 4, info->space_hash ? info->space_hash : "");
        bind_text_or_null(st, 5, info->strategy ? info->strategy : "");
        sqlite3_bind_int64(st, 6, (sqlite3_int64)info->seed);
        bind_text_or_null(st, 7, info->backend ? info->backend : "");
        if (info->copy_gbps > 0)
            sqlite3_bind_double(st, 8, info->copy_gbps);
        else
            sqlite3_bind_null(st, 8);
        bind_text_or_null(st, 9, info->tuner_version ? info->tuner_version : "");
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *run_id = sqlite3_column_int64(st, 0);
            ret = 0;
            goto done;
        }
        if (rc != SQLITE_CONSTRAINT_UNIQUE) {
            db_fail(d, err, len, "starting the run");
            goto done;
        }
    }
    db_errf(d, err, len, "starting the run: no free start time near %s", started);
done:
    sqlite3_finalize(st);
    return ret;
}

int db_end_run(db *d, int64_t run_id, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    char now[32];
    int ret = -1;
    db_format_time(db_now_ms(), now, sizeof now);
    if (sqlite3_prepare_v2(d->h, "UPDATE runs SET finished_at = ?1 WHERE id = ?2", -1, &st,
                           NULL) != SQLITE_OK) {
        db_fail(d, err, len, "finishing the run");
        goto done;
    }
    sqlite3_bind_text(st, 1, now, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, run_id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        db_fail(d, err, len, "finishing the run");
        goto done;
    }
    if (sqlite3_changes(d->h) != 1) {
        db_errf(d, err, len, "finishing the run: no run with id %lld", (long long)run_id);
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

int db_put_problem(db *d, const char *op, const char *dtype, const char *shape, int64_t elements,
                   int64_t bytes, int64_t size_key, int64_t flops, int64_t *problem_id, char *err,
                   size_t len)
{
    /* the space as it is now says what the problem is: a space that stopped giving flops
     * clears them */
    static const char sql[] =
        "INSERT INTO problems(op, dtype, shape, elements, bytes, size_key, flops)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
        " ON CONFLICT(op, dtype, shape) DO UPDATE SET elements = excluded.elements,"
        " bytes = excluded.bytes, size_key = excluded.size_key, flops = excluded.flops"
        " RETURNING id";
    sqlite3_stmt *st = NULL;
    int ret = -1;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK) {
        db_fail(d, err, len, "storing the problem");
        goto done;
    }
    sqlite3_bind_text(st, 1, op, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, dtype, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, shape, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, elements);
    sqlite3_bind_int64(st, 5, bytes);
    if (size_key >= 0)
        sqlite3_bind_int64(st, 6, size_key);
    else
        sqlite3_bind_null(st, 6);
    if (flops > 0)
        sqlite3_bind_int64(st, 7, flops);
    else
        sqlite3_bind_null(st, 7);
    ret = db_step_id(d, st, problem_id, "storing the problem", err, len);
done:
    sqlite3_finalize(st);
    return ret;
}

int db_has_evaluation(db *d, int64_t device_id, int64_t problem_id, const char *config,
                      const char *kernel_hash)
{
    sqlite3_stmt *st = db_stmt(d, DB_STMT_HAS_EVAL);
    int rc;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, problem_id);
    sqlite3_bind_text(st, 3, config, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, kernel_hash, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The config's id, inserting the config when new; inside the caller's transaction. */
static int db_config_id(db *d, const char *config, int64_t *id, char *err, size_t len)
{
    sqlite3_stmt *st = db_stmt(d, DB_STMT_PUT_CONFIG);
    int rc;
    if (!st)
        return db_fail(d, err, len, "storing the config");
    sqlite3_bind_text(st, 1, config, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, len, "storing the config");
    st = db_stmt(d, DB_STMT_GET_CONFIG);
    if (!st)
        return db_fail(d, err, len, "storing the config");
    sqlite3_bind_text(st, 1, config, -1, SQLITE_STATIC);
    rc = db_step_id(d, st, id, "storing the config", err, len);
    sqlite3_reset(st);
    return rc;
}

/* Binds v at i when it is a reading (> 0; throttle: >= 0), else leaves NULL. */
static void bind_reading(sqlite3_stmt *st, int i, double v)
{
    if (v > 0)
        sqlite3_bind_double(st, i, v);
}

static void bind_reading_int(sqlite3_stmt *st, int i, long long v, long long least)
{
    if (v >= least)
        sqlite3_bind_int64(st, i, v);
}

/* Binds an energy reading to the seven parameters from `first` on, in the columns' order:
 * energy_j, power_w, energy_window_ms, sm_mhz, mem_mhz, temp_c, throttle. */
static void bind_energy(sqlite3_stmt *st, int first, const eval_energy *en)
{
    sqlite3_bind_double(st, first, en->joules);
    bind_reading(st, first + 1, en->power_w);
    bind_reading(st, first + 2, en->window_ms);
    bind_reading_int(st, first + 3, en->sm_mhz, 1);
    bind_reading_int(st, first + 4, en->mem_mhz, 1);
    bind_reading_int(st, first + 5, en->temp_c, 1);
    bind_reading_int(st, first + 6, en->throttle, 0);
}

/* Binds the evaluation row (parameters of DB_STMT_PUT_EVAL from 5 on) for result r: its
 * energy (20..26) only when it is ok and measured (energy.joules > 0), each reading the board
 * did not give left NULL. */
static void bind_evaluation(sqlite3_stmt *st, const char *kernel_hash, const eval_result *r,
                            int64_t bytes, double copy_gbps, int64_t seq, const char *created)
{
    int ok = r->status == EVAL_OK;
    const sample_stats *s = &r->stats;
    sqlite3_bind_text(st, 5, kernel_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, eval_status_name(r->status), -1, SQLITE_STATIC);
    bind_text_or_null(st, 7, r->error[0] ? r->error : NULL);
    if (ok) {
        const double times[7] = {s->median, s->min, s->max, s->mean, s->stddev, s->ci_lo,
                                 s->ci_hi};
        double gbps = (double)bytes / (s->median * 1e3);
        for (int i = 0; i < 7; i++)
            sqlite3_bind_double(st, 8 + i, times[i]);
        sqlite3_bind_int(st, 15, s->n);
        if (bytes > 0)
            sqlite3_bind_double(st, 16, gbps);
        if (bytes > 0 && copy_gbps > 0)
            sqlite3_bind_double(st, 17, gbps / copy_gbps);
    } else {
        sqlite3_bind_int(st, 15, 0);
    }
    sqlite3_bind_int64(st, 18, seq);
    sqlite3_bind_text(st, 19, created, -1, SQLITE_TRANSIENT);
    const eval_energy *en = &r->energy;
    if (ok && en->joules > 0 && isfinite(en->joules)) bind_energy(st, 20, en);
}

static int db_put_samples(db *d, int64_t eval_id, const eval_result *r, char *err, size_t len)
{
    for (int i = 0; i < r->n_samples; i++) {
        sqlite3_stmt *st = db_stmt(d, DB_STMT_PUT_SAMPLE);
        int rc;
        if (!st)
            return db_fail(d, err, len, "storing samples");
        sqlite3_bind_int64(st, 1, eval_id);
        sqlite3_bind_int(st, 2, i);
        sqlite3_bind_double(st, 3, r->samples[i]);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return db_fail(d, err, len, "storing samples");
    }
    return 0;
}

int db_put_evaluation(db *d, int64_t run_id, int64_t device_id, int64_t problem_id,
                      const char *config, const char *kernel_hash, const eval_result *r,
                      int64_t bytes, double copy_gbps, int64_t seq, char *err, size_t len)
{
    sqlite3_stmt *st;
    int64_t config_id = 0;
    char created[32];
    int rc;
    if (r->status < 0 || r->status >= EVAL_UNRECORDED)
        return db_errf(d, err, len, "config '%s': status %d is not stored", config,
                       (int)r->status);
    if (r->status == EVAL_OK && (r->n_samples < 1 || !r->samples || !(r->stats.median > 0)))
        return db_errf(d, err, len, "config '%s': an ok result needs samples and a median > 0",
                       config);
    db_format_time(db_now_ms(), created, sizeof created);
    if (db_begin(d, err, len) < 0)
        return -1;
    if (db_config_id(d, config, &config_id, err, len) < 0)
        goto fail;
    st = db_stmt(d, DB_STMT_PUT_EVAL);
    if (!st) {
        db_fail(d, err, len, "storing the evaluation");
        goto fail;
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, device_id);
    sqlite3_bind_int64(st, 3, problem_id);
    sqlite3_bind_int64(st, 4, config_id);
    bind_evaluation(st, kernel_hash, r, bytes, copy_gbps, seq, created);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    /* A UNIQUE conflict is the natural key already stored: that row stays as it is. Any other
     * constraint (CHECK, NOT NULL, foreign key) is an error, hence no OR IGNORE. */
    if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE) {
        db_fail(d, err, len, "storing the evaluation");
        goto fail;
    }
    if (rc == SQLITE_DONE && r->status == EVAL_OK &&
        db_put_samples(d, sqlite3_last_insert_rowid(d->h), r, err, len) < 0)
        goto fail;
    if (db_commit(d, err, len) < 0)
        goto fail;
    return 0;
fail:
    db_rollback(d);
    return -1;
}

/* ---- playoffs ---- */

static int contenders_within(db *d, int64_t device_id, int64_t problem_id,
                             const char *kernel_hash, double margin, int max, db_contenders *out,
                             char *err, size_t len)
{
    static const char sql[] =
        "WITH ok AS (SELECT e.id, c.text, e.median_us, e.energy_j FROM evaluations e"
        " JOIN configs c ON c.id = e.config_id WHERE e.device_id = ?1 AND e.problem_id = ?2"
        " AND e.kernel_hash = ?3 AND e.status = 'ok') "
        "SELECT ok.text, ok.median_us, EXISTS (SELECT 1 FROM playoffs pl"
        " WHERE pl.evaluation_id = ok.id), ok.energy_j FROM ok"
        " WHERE ok.median_us <= (SELECT min(median_us) FROM ok) * (1.0 + ?4)"
        " ORDER BY ok.median_us, ok.text LIMIT ?5";
    memset(out, 0, sizeof *out);
    if (max > DB_CONTENDERS_MAX) max = DB_CONTENDERS_MAX;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, err, len, "finding a problem's contenders");
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, problem_id);
    sqlite3_bind_text(st, 3, kernel_hash, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, margin);
    sqlite3_bind_int(st, 5, max);
    int rc, played = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && out->n < max) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        snprintf(out->config[out->n], sizeof out->config[0], "%s", t ? t : "");
        out->median_us[out->n] = sqlite3_column_double(st, 1);
        played &= sqlite3_column_int(st, 2);
        out->energy_j[out->n] = sqlite3_column_double(st, 3);   /* NULL: 0 */
        out->n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return db_fail(d, err, len, "finding a problem's contenders");
    out->played = out->n > 0 && played;
    return 0;
}

int db_playoff_contenders(db *d, int64_t device_id, int64_t problem_id, const char *kernel_hash,
                          double margin, db_contenders *out, char *err, size_t len)
{
    return contenders_within(d, device_id, problem_id, kernel_hash, margin, EVAL_PLAYOFF_MAX,
                             out, err, len);
}

int db_energy_contenders(db *d, int64_t device_id, int64_t problem_id, const char *kernel_hash,
                         double within, int max, db_contenders *out, char *err, size_t len)
{
    return contenders_within(d, device_id, problem_id, kernel_hash, within, max, out, err, len);
}

int db_put_energy(db *d, int64_t device_id, int64_t problem_id, const char *config,
                  const char *kernel_hash, const eval_energy *en, char *err, size_t len)
{
    static const char sql[] =
        "UPDATE evaluations SET energy_j = ?1, power_w = ?2, energy_window_ms = ?3, sm_mhz = ?4,"
        " mem_mhz = ?5, temp_c = ?6, throttle = ?7 WHERE device_id = ?8 AND problem_id = ?9"
        " AND kernel_hash = ?10 AND status = 'ok'"
        " AND config_id = (SELECT id FROM configs WHERE text = ?11)";
    if (!(en->joules > 0) || !isfinite(en->joules))
        return db_errf(d, err, len, "no energy to store for %s", config);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, err, len, "storing an energy window");
    bind_energy(st, 1, en);
    sqlite3_bind_int64(st, 8, device_id);
    sqlite3_bind_int64(st, 9, problem_id);
    sqlite3_bind_text(st, 10, kernel_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 11, config, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, len, "storing an energy window");
    if (sqlite3_changes(d->h) != 1)
        return db_errf(d, err, len, "storing an energy window: no ok evaluation of %s", config);
    return 0;
}

int db_put_playoff(db *d, int64_t run_id, int64_t device_id, int64_t problem_id,
                   const char *kernel_hash, const db_contenders *c, const eval_result *r,
                   char *err, size_t len)
{
    static const char del_sql[] =
        "DELETE FROM playoffs WHERE evaluation_id IN (SELECT id FROM evaluations"
        " WHERE device_id = ?1 AND problem_id = ?2)";
    static const char put_sql[] =
        "INSERT INTO playoffs(evaluation_id, run_id, median_us, ci_lo_us, ci_hi_us, n_runs,"
        " samples, created_at) SELECT e.id, ?1, ?2, ?3, ?4, ?5, ?6, ?7 FROM evaluations e"
        " JOIN configs c ON c.id = e.config_id WHERE e.device_id = ?8 AND e.problem_id = ?9"
        " AND c.text = ?10 AND e.kernel_hash = ?11 AND e.status = 'ok'";
    if (r->status != EVAL_OK || r->n_playoff != c->n || c->n < 2)
        return db_errf(d, err, len, "a playoff of %d configs answered for %d", r->n_playoff, c->n);
    char created[32];
    db_format_time(db_now_ms(), created, sizeof created);
    sqlite3_stmt *st = NULL;
    char *json = NULL;
    if (db_begin(d, err, len) < 0) return -1;
    if (sqlite3_prepare_v2(d->h, del_sql, -1, &st, NULL) != SQLITE_OK) goto sql_fail;
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, problem_id);
    if (sqlite3_step(st) != SQLITE_DONE) goto sql_fail;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(d->h, put_sql, -1, &st, NULL) != SQLITE_OK) goto sql_fail;
    for (int i = 0; i < c->n; i++) {
        int n = r->playoff_n[i];
        if (n < 1 || !r->playoff_samples[i]) {
            db_errf(d, err, len, "playoff config %d has no runs", i);
            goto fail;
        }
        sample_stats s;
        stats_summarize(r->playoff_samples[i], n, &s);
        free(json);
        if (!(json = malloc((size_t)n * 32 + 3))) {
            db_errf(d, err, len, "out of memory");
            goto fail;
        }
        size_t at = 0;
        json[at++] = '[';
        for (int k = 0; k < n; k++)
            at += (size_t)snprintf(json + at, 32, "%s%.9g", k ? "," : "", r->playoff_samples[i][k]);
        json[at++] = ']';
        json[at] = 0;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_double(st, 2, s.median);
        sqlite3_bind_double(st, 3, s.ci_lo);
        sqlite3_bind_double(st, 4, s.ci_hi);
        sqlite3_bind_int(st, 5, n);
        sqlite3_bind_text(st, 6, json, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 7, created, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, device_id);
        sqlite3_bind_int64(st, 9, problem_id);
        sqlite3_bind_text(st, 10, c->config[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 11, kernel_hash, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) goto sql_fail;
        if (sqlite3_changes(d->h) != 1) {
            db_errf(d, err, len, "playoff: %s has no ok evaluation to attach to", c->config[i]);
            goto fail;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    free(json);
    json = NULL;
    if (db_commit(d, err, len) < 0) goto fail;
    return 0;
sql_fail:
    db_fail(d, err, len, "storing the playoff");
fail:
    sqlite3_finalize(st);
    free(json);
    db_rollback(d);
    return -1;
}

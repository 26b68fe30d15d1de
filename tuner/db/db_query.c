/* db_query.c: what readers ask of the database: the stored devices, the recorded evaluation of a
 * config with its energy and the card of a GPU model that recorded a problem (the replay
 * backend), a device's copy bandwidth, and the winners per card and problem under an objective
 * (the `best` view for time, the least energy or energy-delay product otherwise) joined with
 * device attributes, the problem's bytes and flops, the run's copy rate and the winner's energy
 * (`tuner best`, `tuner header`, `tuner report`), with its throughput. */
#include "db_internal.h"
#include "core/objective.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

int db_each_device(db *d, int (*fn)(void *ctx, int64_t id, const device_info *dev), void *ctx)
{
    static const char sql[] =
        "SELECT id, uuid, name, cc_major, cc_minor, sm_count, max_threads_per_sm,"
        " max_threads_per_block, regs_per_sm, smem_per_sm, l2_bytes, mem_bytes, sm_clock_khz,"
        " mem_clock_khz, mem_bus_bits, driver_version, runtime_version FROM devices ORDER BY id";
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        device_info dev;
        memset(&dev, 0, sizeof dev);
        snprintf(dev.uuid, sizeof dev.uuid, "%s", col_text(st, 1));
        snprintf(dev.name, sizeof dev.name, "%s", col_text(st, 2));
        dev.cc_major = sqlite3_column_int(st, 3);
        dev.cc_minor = sqlite3_column_int(st, 4);
        dev.sm_count = sqlite3_column_int(st, 5);
        dev.max_threads_per_sm = sqlite3_column_int(st, 6);
        dev.max_threads_per_block = sqlite3_column_int(st, 7);
        dev.regs_per_sm = sqlite3_column_int(st, 8);
        dev.smem_per_sm = sqlite3_column_int64(st, 9);
        dev.l2_bytes = sqlite3_column_int64(st, 10);
        dev.mem_bytes = sqlite3_column_int64(st, 11);
        dev.sm_clock_khz = sqlite3_column_int(st, 12);
        dev.mem_clock_khz = sqlite3_column_int(st, 13);
        dev.mem_bus_bits = sqlite3_column_int(st, 14);
        dev.driver_version = sqlite3_column_int(st, 15);
        dev.runtime_version = sqlite3_column_int(st, 16);
        if (fn(ctx, sqlite3_column_int64(st, 0), &dev)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc == SQLITE_DONE)
        ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

/* Reads the samples of evaluation id into out (malloc'd; eval_result_clear frees). */
static int db_find_samples(db *d, int64_t id, eval_result *out)
{
    sqlite3_stmt *st = db_stmt(d, DB_STMT_FIND_SAMPLES);
    int rc, cap = 0, ret = -1;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n_samples == cap) {
            int ncap = cap ? 2 * cap : 64;
            double *p = realloc(out->samples, (size_t)ncap * sizeof *p);
            if (!p)
                goto done;
            out->samples = p;
            cap = ncap;
        }
        out->samples[out->n_samples++] = sqlite3_column_double(st, 0);
    }
    if (rc == SQLITE_DONE)
        ret = 0;
done:
    sqlite3_reset(st);
    return ret;
}

/* On -1, out->error says why. out is overwritten: clear it first if it holds samples. */
int db_find_evaluation(db *d, const char *device_uuid, const char *op, const char *dtype,
                       const char *shape, const char *config, eval_result *out)
{
    sqlite3_stmt *st = db_stmt(d, DB_STMT_FIND_EVAL);
    int rc, status, ret = -1;
    int64_t id;
    memset(out, 0, sizeof *out);
    if (!st) {
        return db_fail(d, out->error, sizeof out->error, "finding the evaluation");
    }
    sqlite3_bind_text(st, 1, device_uuid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, dtype, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, shape, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, config, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        ret = 0;
        goto done;
    }
    if (rc != SQLITE_ROW) {
        db_fail(d, out->error, sizeof out->error, "finding the evaluation");
        goto done;
    }
    id = sqlite3_column_int64(st, 0);
    status = eval_status_parse(col_text(st, 1));
    if (status < 0 || status >= EVAL_UNRECORDED) {
        db_errf(d, out->error, sizeof out->error, "evaluation %lld: unknown status '%s'",
                (long long)id, col_text(st, 1));
        goto done;
    }
    out->status = (eval_status)status;
    snprintf(out->error, sizeof out->error, "%s", col_text(st, 2));
    out->raced = out->status == EVAL_OK &&
                 strncmp(out->error, EVAL_RACED_NOTE, strlen(EVAL_RACED_NOTE)) == 0;
    out->stats.n = sqlite3_column_int(st, 3);
    out->stats.median = sqlite3_column_double(st, 4);
    out->stats.min = sqlite3_column_double(st, 5);
    out->stats.max = sqlite3_column_double(st, 6);
    out->stats.mean = sqlite3_column_double(st, 7);
    out->stats.stddev = sqlite3_column_double(st, 8);
    out->stats.ci_lo = sqlite3_column_double(st, 9);
    out->stats.ci_hi = sqlite3_column_double(st, 10);
    /* the energy (schema version 7): NULL readings as eval_energy has them unknown */
    out->energy.joules = sqlite3_column_double(st, 11);
    out->energy.power_w = sqlite3_column_double(st, 12);
    out->energy.window_ms = sqlite3_column_double(st, 13);
    out->energy.sm_mhz = sqlite3_column_int(st, 14);
    out->energy.mem_mhz = sqlite3_column_int(st, 15);
    out->energy.temp_c = sqlite3_column_int(st, 16);
    out->energy.throttle =
        sqlite3_column_type(st, 17) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 17);
    sqlite3_reset(st);
    if (db_find_samples(d, id, out) < 0) {
        free(out->samples);
        out->samples = NULL;
        out->n_samples = 0;
        db_fail(d, out->error, sizeof out->error, "reading samples");
        goto done;
    }
    ret = 1;
done:
    sqlite3_reset(st);
    return ret;
}

int db_model_card(db *d, const device_info *model, const char *op, const char *dtype,
                  const char *shape, char *uuid, size_t uuid_len)
{
    static const char any_sql[] =
        "SELECT d.uuid FROM devices d JOIN evaluations e ON e.device_id = d.id"
        " WHERE d.name = ?1 AND d.cc_major = ?2 AND d.cc_minor = ?3 AND d.sm_count = ?4"
        " GROUP BY d.id ORDER BY count(*) DESC, d.uuid LIMIT 1";
    static const char problem_sql[] =
        "SELECT d.uuid FROM problems p JOIN devices d JOIN evaluations e"
        " ON e.device_id = d.id AND e.problem_id = p.id"
        " WHERE p.op = ?5 AND p.dtype = ?6 AND p.shape = ?7"
        " AND d.name = ?1 AND d.cc_major = ?2 AND d.cc_minor = ?3 AND d.sm_count = ?4"
        " GROUP BY d.id ORDER BY count(*) DESC, d.uuid LIMIT 1";
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    if (sqlite3_prepare_v2(d->h, op ? problem_sql : any_sql, -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(st, 1, model->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, model->cc_major);
    sqlite3_bind_int(st, 3, model->cc_minor);
    sqlite3_bind_int(st, 4, model->sm_count);
    if (op) {
        sqlite3_bind_text(st, 5, op, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, dtype, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, shape, -1, SQLITE_STATIC);
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(uuid, uuid_len, "%s", col_text(st, 0));
        ret = 1;
    } else if (rc == SQLITE_DONE) {
        ret = 0;
    }
done:
    sqlite3_finalize(st);
    return ret;
}

double db_device_copy_gbps(db *d, const char *device_uuid)
{
    static const char sql[] =
        "SELECT r.copy_gbps FROM runs r JOIN devices d ON d.id = r.device_id "
        "WHERE d.uuid = ?1 AND r.copy_gbps > 0 ORDER BY r.started_at DESC LIMIT 1";
    sqlite3_stmt *st = NULL;
    double gbps = 0;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, device_uuid, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            gbps = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return gbps;
}

int db_best_beats(double us, const char *config, double kept_us, const char *kept_config)
{
    return us < kept_us || (us == kept_us && strcmp(config, kept_config) < 0);
}

throughput db_best_throughput(const best_row *r)
{
    device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = r->cc_major;
    dev.cc_minor = r->cc_minor;
    dev.sm_count = r->sm_count;
    dev.sm_clock_khz = r->sm_clock_khz;
    return throughput_of(r->bytes, r->flops, r->median_us, r->copy_gbps, &dev, r->dtype);
}

const char *db_objective_sql(int o)
{
    switch (o) {
    case OBJECTIVE_ENERGY:
        return "e.energy_j";
    case OBJECTIVE_EDP:
        return "e.energy_j * e.median_us";
    default:
        return "e.median_us";
    }
}

/* The winners' SELECT list (the score follows it, last) and filters, shared by the view best
 * (time) and the energy and edp winners (db_each_best_by): the problem's bytes and flops, the
 * run's copy rate and the winner's energy are scalar sub-selects: joined, they made SQLite plan
 * the view otherwise, 1.7 times slower (113 ms against 64 for the H100 dump's whole view). */
#define BEST_COLUMNS                                                                         \
    "SELECT b.device, b.device_uuid, b.op, b.dtype, b.shape, b.config, b.size_key,"             \
    " dv.cc_major, dv.cc_minor, dv.sm_count, b.median_us, b.gbps, b.frac_copy,"                \
    " (SELECT bytes FROM problems WHERE id = b.problem_id),"                                    \
    " (SELECT flops FROM problems WHERE id = b.problem_id), dv.sm_clock_khz,"                  \
    " (SELECT r.copy_gbps FROM evaluations e JOIN runs r ON r.id = e.run_id"                   \
    "  WHERE e.id = b.evaluation_id),"                                                          \
    " (SELECT e.energy_j FROM evaluations e WHERE e.id = b.evaluation_id),"                    \
    " (SELECT e.power_w FROM evaluations e WHERE e.id = b.evaluation_id),"
#define BEST_FILTER_ORDER                                                                    \
    "WHERE (?1 IS NULL OR b.device = ?1 OR b.device_uuid = ?1)"                                \
    " AND (?2 IS NULL OR b.op = ?2) AND (?3 IS NULL OR b.dtype = ?3) "                         \
    "ORDER BY b.device, b.op, b.dtype, b.size_key, b.shape, b.device_uuid"

/* The winners by energy or edp: as the view best, driven from the problems and devices (CROSS
 * JOIN keeps that order), each pair's best ok evaluation found through the
 * evaluations_by_problem index with one sort. Rows without energy sort last (score NULL): a
 * pair whose first row has none has no energy measured, and is counted, not given. %s is the
 * score (db_objective_sql). */
#define BEST_BY_SQL                                                                          \
    "SELECT d.name AS device, d.uuid AS device_uuid, p.op, p.dtype, p.shape, p.size_key,"      \
    " c.text AS config, e.median_us, e.gbps, e.frac_copy, e.id AS evaluation_id,"              \
    " e.device_id, e.problem_id, %s AS score "                                                 \
    "FROM problems p CROSS JOIN devices d CROSS JOIN evaluations e ON e.id = ("               \
    " SELECT e.id FROM evaluations e JOIN configs c2 ON c2.id = e.config_id"                   \
    " WHERE e.device_id = d.id AND e.problem_id = p.id AND e.status = 'ok'"                    \
    " ORDER BY %s IS NULL, %s, c2.text, e.kernel_hash LIMIT 1) "                               \
    "JOIN configs c ON c.id = e.config_id"

/* The device filter matches the device's name or its uuid. Several cards of one model share the
 * name: each gets its rows, ordered by uuid after the documented keys. */
int db_each_best_by(db *d, int o, const char *device, const char *op, const char *dtype,
                    int (*fn)(void *ctx, const best_row *row), void *ctx, int64_t *no_energy)
{
    static const char time_sql[] =
        BEST_COLUMNS " b.median_us FROM best b JOIN devices dv ON dv.id = b.device_id "
        BEST_FILTER_ORDER;
    char *by_sql = NULL;
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    if (no_energy)
        *no_energy = 0;
    if (o != OBJECTIVE_TIME) {
        const char *score = db_objective_sql(o);
        by_sql = sqlite3_mprintf(BEST_COLUMNS " b.score FROM (" BEST_BY_SQL ") b"
                                 " JOIN devices dv ON dv.id = b.device_id " BEST_FILTER_ORDER,
                                 score, score, score);
        if (!by_sql)
            goto done;
    }
    if (sqlite3_prepare_v2(d->h, by_sql ? by_sql : time_sql, -1, &st, NULL) != SQLITE_OK)
        goto done;
    if (device)
        sqlite3_bind_text(st, 1, device, -1, SQLITE_STATIC);
    if (op)
        sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
    if (dtype)
        sqlite3_bind_text(st, 3, dtype, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        best_row row;
        if (sqlite3_column_type(st, 19) == SQLITE_NULL) {
            /* no energy measured of this problem on this card */
            if (no_energy)
                ++*no_energy;
            continue;
        }
        row.device = col_text(st, 0);
        row.device_uuid = col_text(st, 1);
        row.op = col_text(st, 2);
        row.dtype = col_text(st, 3);
        row.shape = col_text(st, 4);
        row.config = col_text(st, 5);
        row.size_key = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1
                                                                  : sqlite3_column_int64(st, 6);
        row.cc_major = sqlite3_column_int(st, 7);
        row.cc_minor = sqlite3_column_int(st, 8);
        row.sm_count = sqlite3_column_int(st, 9);
        row.median_us = sqlite3_column_double(st, 10);
        row.gbps = sqlite3_column_double(st, 11);
        row.frac_copy = sqlite3_column_double(st, 12);
        row.bytes = sqlite3_column_int64(st, 13);
        row.flops = sqlite3_column_int64(st, 14);
        row.sm_clock_khz = sqlite3_column_int(st, 15);
        row.copy_gbps = sqlite3_column_double(st, 16);
        row.energy_j = sqlite3_column_double(st, 17);
        row.power_w = sqlite3_column_double(st, 18);
        row.score = sqlite3_column_double(st, 19);
        if (fn(ctx, &row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc == SQLITE_DONE)
        ret = 0;
done:
    sqlite3_finalize(st);
    sqlite3_free(by_sql);
    return ret;
}

int db_each_best(db *d, const char *device, const char *op, const char *dtype,
                 int (*fn)(void *ctx, const best_row *row), void *ctx)
{
    return db_each_best_by(d, OBJECTIVE_TIME, device, op, dtype, fn, ctx, NULL);
}

int db_each_near_best(db *d, const char *op, const char *dtype, const char *shape, double within,
                      int (*fn)(void *ctx, const best_row *row), void *ctx)
{
    /* problem, then device, then its evaluations: the order the index evaluations_by_problem
     * (device_id, problem_id, status) serves; joined the other way round SQLite scanned every
     * evaluation once per call (55 ms against 6 ms on the two committed dumps) */
    static const char sql[] =
        "WITH ok AS (SELECT e.device_id, e.median_us, c.text AS config, p.size_key"
        "  FROM problems p CROSS JOIN devices d0 CROSS JOIN evaluations e"
        "  ON e.device_id = d0.id AND e.problem_id = p.id"
        "  JOIN configs c ON c.id = e.config_id"
        "  WHERE p.op = ?1 AND p.dtype = ?2 AND p.shape = ?3 AND e.status = 'ok'),"
        " fastest AS (SELECT device_id, min(median_us) AS us FROM ok GROUP BY device_id) "
        "SELECT dv.name, dv.uuid, ok.config, ok.size_key, dv.cc_major, dv.cc_minor, dv.sm_count,"
        " ok.median_us FROM ok JOIN fastest f ON f.device_id = ok.device_id"
        " JOIN devices dv ON dv.id = ok.device_id WHERE ok.median_us <= f.us * (1.0 + ?4) "
        "ORDER BY dv.name, dv.uuid, ok.median_us, ok.config";
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(st, 1, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, dtype, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, shape, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, within);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        best_row row;
        memset(&row, 0, sizeof row);
        row.device = col_text(st, 0);
        row.device_uuid = col_text(st, 1);
        row.op = op;
        row.dtype = dtype;
        row.shape = shape;
        row.config = col_text(st, 2);
        row.size_key = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
                                                                 : sqlite3_column_int64(st, 3);
        row.cc_major = sqlite3_column_int(st, 4);
        row.cc_minor = sqlite3_column_int(st, 5);
        row.sm_count = sqlite3_column_int(st, 6);
        row.median_us = sqlite3_column_double(st, 7);
        if (fn(ctx, &row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    ret = rc == SQLITE_DONE ? 0 : -1;
done:
    sqlite3_finalize(st);
    return ret;
}

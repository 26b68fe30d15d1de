/* db_merge.c: db_merge copies another tunekit database (or a dump, through a temporary
 * database) into this one by natural keys, mapping ids, in one transaction and idempotently,
 * reporting the evaluations both hold as different measurements (db_merge_report). */
#include "db_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* The joins the statements below share. An evaluation e of other: its natural key there (od, op,
 * oc), the same device, problem and config in main (md, mp, mc), and main's evaluation of that key
 * and kernel source (me). Its run r on device rd: the same run in main (mr on mrd). */
#define MERGE_OTHER_KEY                                                                         \
    " JOIN other.devices od ON od.id = e.device_id JOIN other.problems op ON op.id = e.problem_id" \
    " JOIN other.configs oc ON oc.id = e.config_id"
#define MERGE_MAIN_KEY                                                                          \
    " JOIN main.devices md ON md.uuid = od.uuid"                                                \
    " JOIN main.problems mp ON mp.op = op.op AND mp.dtype = op.dtype AND mp.shape = op.shape"   \
    " JOIN main.configs mc ON mc.text = oc.text"
#define MERGE_MAIN_EVALUATION                                                                   \
    " JOIN main.evaluations me ON me.device_id = md.id AND me.problem_id = mp.id"               \
    "  AND me.config_id = mc.id AND me.kernel_hash = e.kernel_hash"
#define MERGE_MAIN_RUN                                                                          \
    " JOIN main.devices mrd ON mrd.uuid = rd.uuid"                                              \
    " JOIN main.runs mr ON mr.device_id = mrd.id AND mr.started_at = r.started_at"

/* Statements copying the attached database "other" into main, parents first. Every child row
 * finds its parents in main through the other database's natural keys. Samples go only to an
 * evaluation that is the same measurement (same natural key and created_at) and has none yet. */
static const char *const merge_sql[] = {
    "INSERT OR IGNORE INTO main.devices(uuid, name, cc_major, cc_minor, sm_count,"
    " max_threads_per_sm, max_threads_per_block, regs_per_sm, smem_per_sm, l2_bytes, mem_bytes,"
    " sm_clock_khz, mem_clock_khz, mem_bus_bits, driver_version, runtime_version)"
    " SELECT uuid, name, cc_major, cc_minor, sm_count, max_threads_per_sm, max_threads_per_block,"
    " regs_per_sm, smem_per_sm, l2_bytes, mem_bytes, sm_clock_khz, mem_clock_khz, mem_bus_bits,"
    " driver_version, runtime_version FROM other.devices ORDER BY uuid",

    "INSERT OR IGNORE INTO main.runs(device_id, started_at, finished_at, space, space_hash,"
    " strategy, seed, backend, copy_gbps, tuner_version)"
    " SELECT md.id, r.started_at, r.finished_at, r.space, r.space_hash, r.strategy, r.seed,"
    " r.backend, r.copy_gbps, r.tuner_version FROM other.runs r"
    " JOIN other.devices od ON od.id = r.device_id JOIN main.devices md ON md.uuid = od.uuid"
    " ORDER BY od.uuid, r.started_at",

    /* a problem main has without flops takes the other's (schema version 6); one that has
     * flops keeps them (WHERE true: SQLite's upsert after a SELECT needs a WHERE) */
    "INSERT INTO main.problems(op, dtype, shape, elements, bytes, size_key, flops)"
    " SELECT op, dtype, shape, elements, bytes, size_key, flops FROM other.problems WHERE true"
    " ORDER BY op, dtype, shape"
    " ON CONFLICT(op, dtype, shape) DO UPDATE SET flops = excluded.flops WHERE flops IS NULL",

    "INSERT OR IGNORE INTO main.configs(text) SELECT text FROM other.configs ORDER BY text",

    /* with its energy (schema version 7) */
    "INSERT OR IGNORE INTO main.evaluations(run_id, device_id, problem_id, config_id, kernel_hash,"
    " status, error, median_us, min_us, max_us, mean_us, stddev_us, ci_lo_us, ci_hi_us, n_runs,"
    " gbps, frac_copy, seq, created_at, energy_j, power_w, energy_window_ms, sm_mhz, mem_mhz,"
    " temp_c, throttle)"
    " SELECT mr.id, md.id, mp.id, mc.id, e.kernel_hash, e.status, e.error, e.median_us, e.min_us,"
    " e.max_us, e.mean_us, e.stddev_us, e.ci_lo_us, e.ci_hi_us, e.n_runs, e.gbps, e.frac_copy,"
    " e.seq, e.created_at, e.energy_j, e.power_w, e.energy_window_ms, e.sm_mhz, e.mem_mhz,"
    " e.temp_c, e.throttle FROM other.evaluations e"
    " JOIN other.runs r ON r.id = e.run_id JOIN other.devices rd ON rd.id = r.device_id"
    MERGE_OTHER_KEY
    MERGE_MAIN_RUN
    MERGE_MAIN_KEY
    " ORDER BY od.uuid, op.op, op.dtype, op.shape, oc.text, e.kernel_hash",

    /* SQLite computes the whole SELECT before inserting when it reads the target table, so the
     * NOT EXISTS sees main.samples as it was before this statement. */
    "INSERT OR IGNORE INTO main.samples(evaluation_id, idx, us)"
    " SELECT me.id, s.idx, s.us FROM other.samples s"
    " JOIN other.evaluations e ON e.id = s.evaluation_id"
    MERGE_OTHER_KEY
    MERGE_MAIN_KEY
    MERGE_MAIN_EVALUATION
    "  AND me.created_at = e.created_at"
    " WHERE NOT EXISTS (SELECT 1 FROM main.samples ms WHERE ms.evaluation_id = me.id)",

    "INSERT OR IGNORE INTO main.peers(device_id, problem_id, library, median_us, min_us, mean_us,"
    " stddev_us, ci_lo_us, ci_hi_us, n_runs, gbps, frac_copy, copy_gbps, created_at)"
    " SELECT md.id, mp.id, pe.library, pe.median_us, pe.min_us, pe.mean_us, pe.stddev_us,"
    " pe.ci_lo_us, pe.ci_hi_us, pe.n_runs, pe.gbps, pe.frac_copy, pe.copy_gbps, pe.created_at"
    " FROM other.peers pe JOIN other.devices od ON od.id = pe.device_id"
    " JOIN other.problems op ON op.id = pe.problem_id JOIN main.devices md ON md.uuid = od.uuid"
    " JOIN main.problems mp ON mp.op = op.op AND mp.dtype = op.dtype AND mp.shape = op.shape"
    " ORDER BY od.uuid, op.op, op.dtype, op.shape, pe.library",

    /* a playoff row goes with its evaluation when that is the same measurement */
    "INSERT OR IGNORE INTO main.playoffs(evaluation_id, run_id, median_us, ci_lo_us, ci_hi_us,"
    " n_runs, samples, created_at)"
    " SELECT me.id, mr.id, pl.median_us, pl.ci_lo_us, pl.ci_hi_us, pl.n_runs, pl.samples,"
    " pl.created_at FROM other.playoffs pl"
    " JOIN other.evaluations e ON e.id = pl.evaluation_id"
    " JOIN other.runs r ON r.id = pl.run_id JOIN other.devices rd ON rd.id = r.device_id"
    MERGE_OTHER_KEY
    MERGE_MAIN_RUN
    MERGE_MAIN_KEY
    MERGE_MAIN_EVALUATION
    "  AND me.created_at = e.created_at"
    " ORDER BY od.uuid, op.op, op.dtype, op.shape, oc.text, e.kernel_hash",
};

/* 1 when path is the file d has open as its main database. */
static int db_is_same_file(db *d, const char *path)
{
    const char *mine = sqlite3_db_filename(d->h, "main");
    struct stat a, b;
    return mine && mine[0] && stat(mine, &a) == 0 && stat(path, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Counts the conflicts of the attached "other" with main (db.h's rule), before its evaluations
 * are copied; the parents are in main by then. */
static const char conflict_sql[] =
    "SELECT count(*), min(od.uuid || ' ' || op.op || ' ' || op.dtype || ' ' || op.shape || ' ' ||"
    " oc.text) FROM other.evaluations e"
    MERGE_OTHER_KEY
    MERGE_MAIN_KEY
    MERGE_MAIN_EVALUATION
    " WHERE me.status <> e.status OR me.median_us IS NOT e.median_us";

/* Imports a dump into a new temporary database file; its path into out. 0 or -1 with err. */
static int dump_to_temp(const char *dump, char *out, size_t outlen, char *err, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, outlen, "%s/tunekit-merge-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(out);
    if (fd < 0) {
        snprintf(err, len, "merging '%s': cannot make a temporary database: %s", dump,
                 strerror(errno));
        return -1;
    }
    close(fd);
    unlink(out);   /* db_open creates it afresh */
    db *t = NULL;
    int rc = db_open(out, 1, &t, err, len) == 0 && db_import(t, dump, err, len) == 0 ? 0 : -1;
    db_close(t);
    return rc;
}

static void remove_db_files(const char *path)
{
    char p[PATH_MAX + 8];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

int db_merge(db *d, const char *other_path, char *err, size_t len)
{
    return db_merge_report(d, other_path, NULL, err, len);
}

int db_merge_report(db *d, const char *other_path, db_merge_stats *stats, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    db *check = NULL;
    int attached = 0, in_tx = 0, ret = -1;
    char temp[PATH_MAX] = "";
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (db_path_is_dump(other_path)) {
        if (dump_to_temp(other_path, temp, sizeof temp, err, len) != 0)
            goto done;
        other_path = temp;
    }
    /* Opening it on its own first gives the clear refusals (not SQLite, not ours, newer). */
    if (db_open_database_readonly(other_path, &check, err, len) < 0)
        goto done;
    db_close(check);
    /* A database merged into itself gains nothing (and would lock against itself). */
    if (db_is_same_file(d, other_path)) {
        ret = 0;
        goto done;
    }
    if (sqlite3_prepare_v2(d->h, "ATTACH DATABASE ?1 AS other", -1, &st, NULL) != SQLITE_OK) {
        db_fail(d, err, len, "merging");
        goto done;
    }
    sqlite3_bind_text(st, 1, other_path, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        db_errf(d, err, len, "merging '%s': %s", other_path, sqlite3_errmsg(d->h));
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    attached = 1;
    if (db_begin(d, err, len) < 0)
        goto done;
    in_tx = 1;
    for (size_t i = 0; i < sizeof merge_sql / sizeof merge_sql[0]; i++) {
        if (strncmp(merge_sql[i], "INSERT OR IGNORE INTO main.evaluations", 38) == 0) {
            if (sqlite3_prepare_v2(d->h, conflict_sql, -1, &st, NULL) != SQLITE_OK ||
                sqlite3_step(st) != SQLITE_ROW) {
                db_fail(d, err, len, "finding conflicts");
                goto done;
            }
            if (stats) {
                stats->conflicts = sqlite3_column_int64(st, 0);
                const unsigned char *first = sqlite3_column_text(st, 1);
                snprintf(stats->first_conflict, sizeof stats->first_conflict, "%s",
                         first ? (const char *)first : "");
            }
            sqlite3_finalize(st);
            st = NULL;
        }
        if (db_exec(d, merge_sql[i], err, len) < 0)
            goto done;
    }
    if (db_commit(d, err, len) < 0)
        goto done;
    ret = 0;
done:
    if (ret < 0 && in_tx)
        db_rollback(d);
    sqlite3_finalize(st);
    if (attached)
        sqlite3_exec(d->h, "DETACH DATABASE other", NULL, NULL, NULL);
    if (temp[0])
        remove_db_files(temp);
    return ret;
}

/* db_check.c: `tuner db check` (db_check): SQLite's integrity and foreign-key checks and
 * tunekit's own invariants (db_check_invariants: schema version, ok evaluations have their samples
 * and only they do, sample indexes are 0..n-1, natural keys are unique, playoff rows belong to ok
 * evaluations and hold their runs, energy readings are numbers on ok rows with their joules),
 * which db_import also holds an imported dump to before it commits. */
#include "db_internal.h"

#include <stdio.h>
#include <string.h>

/* One invariant: a query returning the number of offending rows, and what they are. */
typedef struct db_invariant {
    const char *count_sql;
    const char *what;
} db_invariant;

static const db_invariant db_invariants[] = {
    {"SELECT count(*) FROM evaluations e WHERE status = 'ok'"
     " AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.evaluation_id = e.id)",
     "ok evaluation(s) without samples"},
    {"SELECT count(*) FROM evaluations e WHERE status <> 'ok'"
     " AND EXISTS (SELECT 1 FROM samples s WHERE s.evaluation_id = e.id)",
     "evaluation(s) not ok but with samples"},
    {"SELECT count(*) FROM evaluations e WHERE status = 'ok'"
     " AND n_runs <> (SELECT count(*) FROM samples s WHERE s.evaluation_id = e.id)",
     "ok evaluation(s) whose n_runs differs from their number of samples"},
    /* export writes timings as numbers and refuses anything else (a column's type is a row's
     * in SQLite: a REAL column holds text when text is inserted) */
    {"SELECT count(*) FROM samples WHERE typeof(us) NOT IN ('real', 'integer')",
     "sample(s) that are not a number"},
#define NOT_NUMBER(col) " OR typeof(" col ") NOT IN ('real', 'integer', 'null')"
    {"SELECT count(*) FROM evaluations WHERE 0" NOT_NUMBER("median_us") NOT_NUMBER("min_us")
     NOT_NUMBER("max_us") NOT_NUMBER("mean_us") NOT_NUMBER("stddev_us") NOT_NUMBER("ci_lo_us")
     NOT_NUMBER("ci_hi_us") NOT_NUMBER("gbps") NOT_NUMBER("frac_copy"),
     "evaluation(s) with a statistic that is not a number"},
    /* the energy (schema version 7): numbers, and only on ok rows, with its joules */
    {"SELECT count(*) FROM evaluations WHERE 0" NOT_NUMBER("energy_j") NOT_NUMBER("power_w")
     NOT_NUMBER("energy_window_ms") NOT_NUMBER("sm_mhz") NOT_NUMBER("mem_mhz")
     NOT_NUMBER("temp_c") NOT_NUMBER("throttle"),
     "evaluation(s) with an energy reading that is not a number"},
    {"SELECT count(*) FROM evaluations WHERE (status <> 'ok' OR energy_j IS NULL) AND"
     " (energy_j IS NOT NULL OR power_w IS NOT NULL OR energy_window_ms IS NOT NULL OR"
     " sm_mhz IS NOT NULL OR mem_mhz IS NOT NULL OR temp_c IS NOT NULL OR throttle IS NOT NULL)",
     "evaluation(s) with energy readings but not ok or without energy_j"},
#undef NOT_NUMBER
    {"SELECT count(*) FROM (SELECT evaluation_id FROM samples GROUP BY evaluation_id"
     " HAVING min(idx) <> 0 OR max(idx) <> count(*) - 1)",
     "evaluation(s) whose sample indexes are not 0..n-1"},
    {"SELECT count(*) FROM evaluations e JOIN runs r ON r.id = e.run_id"
     " WHERE r.device_id <> e.device_id",
     "evaluation(s) whose run is on another device"},
    {"SELECT count(*) FROM (SELECT 1 FROM devices GROUP BY uuid HAVING count(*) > 1)",
     "duplicate device uuid(s)"},
    {"SELECT count(*) FROM (SELECT 1 FROM runs GROUP BY device_id, started_at"
     " HAVING count(*) > 1)",
     "duplicate run(s)"},
    {"SELECT count(*) FROM (SELECT 1 FROM problems GROUP BY op, dtype, shape"
     " HAVING count(*) > 1)",
     "duplicate problem(s)"},
    {"SELECT count(*) FROM (SELECT 1 FROM configs GROUP BY text HAVING count(*) > 1)",
     "duplicate config(s)"},
    {"SELECT count(*) FROM (SELECT 1 FROM evaluations"
     " GROUP BY device_id, problem_id, config_id, kernel_hash HAVING count(*) > 1)",
     "duplicate evaluation(s)"},
    {"SELECT count(*) FROM (SELECT 1 FROM peers GROUP BY device_id, problem_id, library"
     " HAVING count(*) > 1)",
     "duplicate peer row(s)"},
    {"SELECT count(*) FROM playoffs pl JOIN evaluations e ON e.id = pl.evaluation_id"
     " WHERE e.status <> 'ok'",
     "playoff row(s) of evaluations not ok"},
    {"SELECT count(*) FROM playoffs WHERE NOT json_valid(samples)"
     " OR json_type(samples) <> 'array' OR json_array_length(samples) <> n_runs",
     "playoff row(s) whose samples are not a JSON array of n_runs timings"},
    {"SELECT count(*) FROM playoffs pl JOIN evaluations e ON e.id = pl.evaluation_id"
     " JOIN runs r ON r.id = pl.run_id WHERE r.device_id <> e.device_id",
     "playoff row(s) whose run is on another device"},
};

/* Appends "; " and text to the report in err. */
static void report_add(char *err, size_t len, int *n_problems, const char *text)
{
    size_t used = strlen(err);
    if (used + 1 < len)
        snprintf(err + used, len - used, "%s%s", *n_problems ? "; " : "", text);
    (*n_problems)++;
}

/* Runs a query whose first column of each row names a problem; "ok" rows are fine. Returns the
 * number of problem rows, or -1. */
static int check_pragma(db *d, const char *sql, const char *label, char *err, size_t len,
                        int *n_problems)
{
    sqlite3_stmt *st = NULL;
    int rc, found = 0;
    char line[512];
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        if (s && strcmp(s, "ok") == 0)
            continue;
        if (found++ < 3) {
            snprintf(line, sizeof line, "%s: %s", label, s ? s : "(null)");
            report_add(err, len, n_problems, line);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? found : -1;
}

int db_check_invariants(db *d, char *report, size_t len, int *n_problems)
{
    char line[512];
    for (size_t i = 0; i < sizeof db_invariants / sizeof db_invariants[0]; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(d->h, db_invariants[i].count_sql, -1, &st, NULL) != SQLITE_OK ||
            sqlite3_step(st) != SQLITE_ROW) {
            sqlite3_finalize(st);
            return -1;
        }
        if (sqlite3_column_int64(st, 0) > 0) {
            snprintf(line, sizeof line, "%lld %s", (long long)sqlite3_column_int64(st, 0),
                     db_invariants[i].what);
            report_add(report, len, n_problems, line);
        }
        sqlite3_finalize(st);
    }
    return 0;
}

int db_check(db *d, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    char report[4096] = "", line[512];
    int n_problems = 0, ret = -1;
    if (sqlite3_prepare_v2(d->h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        db_fail(d, err, len, "checking");
        goto done;
    }
    if (sqlite3_column_int(st, 0) != DB_SCHEMA_VERSION) {
        snprintf(line, sizeof line, "schema version %d, expected %d", sqlite3_column_int(st, 0),
                 DB_SCHEMA_VERSION);
        report_add(report, sizeof report, &n_problems, line);
    }
    if (check_pragma(d, "PRAGMA integrity_check", "integrity", report, sizeof report,
                     &n_problems) < 0 ||
        check_pragma(d, "SELECT printf('%s row %d has no %s row', \"table\", rowid, parent)"
                        " FROM pragma_foreign_key_check",
                     "foreign key", report, sizeof report, &n_problems) < 0) {
        db_fail(d, err, len, "checking");
        goto done;
    }
    if (db_check_invariants(d, report, sizeof report, &n_problems) < 0) {
        db_fail(d, err, len, "checking");
        goto done;
    }
    if (n_problems) {
        db_errf(d, err, len, "check failed: %s", report);
        ret = 1;
    } else {
        ret = 0;
    }
done:
    sqlite3_finalize(st);
    return ret;
}

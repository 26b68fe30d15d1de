/* db.c: opening and closing tunekit databases. db_open checks that an existing file is a SQLite
 * database holding our tables before it changes anything, refuses a newer schema, runs the forward
 * migrations (PRAGMA user_version) on an older one, and sets WAL, foreign keys, a 5 s busy
 * timeout and synchronous=NORMAL. db_open_readonly / db_open_dumps give readers a database file or
 * text dumps (loaded into memory) alike. Also the helpers the other db_*.c files share: the cache
 * of prepared statements, error messages, transactions and timestamps. */
#include "db_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schema_sql.h"

/* Forward migrations: entry v brings a database at user_version v to v + 1. Entry 0 completes a
 * version-0 database holding only some of our tables (every statement of schema.sql is CREATE
 * ... IF NOT EXISTS); a new database gets schema.sql directly. Entry 1 lets evaluations hold
 * 'compile_error': SQLite cannot change a CHECK constraint in place, so the table is rebuilt
 * (the procedure of SQLite's ALTER TABLE documentation, run with foreign keys off by
 * db_migrate) and schema.sql re-run for the index and the view. */
static const char db_migrate_v1_v2[] =
    "DROP VIEW IF EXISTS best;\n"
    "CREATE TABLE evaluations_v2 (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  device_id INTEGER NOT NULL REFERENCES devices(id),\n"
    "  problem_id INTEGER NOT NULL REFERENCES problems(id),\n"
    "  config_id INTEGER NOT NULL REFERENCES configs(id),\n"
    "  kernel_hash TEXT NOT NULL,\n"
    "  status TEXT NOT NULL CHECK (status IN\n"
    "    ('ok','invalid','launch_error','fault','timeout','unsupported','skipped',\n"
    "     'compile_error')),\n"
    "  error TEXT,\n"
    "  median_us REAL, min_us REAL, max_us REAL, mean_us REAL, stddev_us REAL,\n"
    "  ci_lo_us REAL, ci_hi_us REAL,\n"
    "  n_runs INTEGER NOT NULL DEFAULT 0,\n"
    "  gbps REAL,\n"
    "  frac_copy REAL,\n"
    "  seq INTEGER NOT NULL DEFAULT 0,\n"
    "  created_at TEXT NOT NULL,\n"
    "  UNIQUE (device_id, problem_id, config_id, kernel_hash),\n"
    "  CHECK (status <> 'ok' OR (median_us > 0 AND n_runs > 0))\n"
    ");\n"
    "INSERT INTO evaluations_v2 SELECT id, run_id, device_id, problem_id, config_id, kernel_hash,"
    " status, error, median_us, min_us, max_us, mean_us, stddev_us, ci_lo_us, ci_hi_us, n_runs,"
    " gbps, frac_copy, seq, created_at FROM evaluations;\n"
    "DROP TABLE evaluations;\n"
    "ALTER TABLE evaluations_v2 RENAME TO evaluations;\n";

/* Entry 2 adds the playoffs table (schema.sql, re-run after the migrations, creates it) and
 * drops the view best so that schema.sql makes it anew, ranking by the playoffs. */
static const char db_migrate_v2_v3[] = "DROP VIEW IF EXISTS best;\n";

/* Entry 3 drops the view best so that schema.sql makes it anew: the same rows, found per
 * problem and device instead of by comparing every evaluation with every other. */
static const char db_migrate_v3_v4[] = "DROP VIEW IF EXISTS best;\n";

/* Entry 4 drops the view best so that schema.sql makes it anew: a playoff orders its own
 * contenders only, and a config that did not play no longer beats its winner by comparing its
 * own median with the contenders' playoff medians (db/schema.sql). */
static const char db_migrate_v4_v5[] = "DROP VIEW IF EXISTS best;\n";

/* Entry 5 gives problems the column flops (NULL: not given) with ALTER TABLE ADD COLUMN, which
 * keeps every row. A migration that adds a column names it, and db_migrate skips it where the
 * table has the column already: a version-0 database whose problems table entry 0 created from
 * this schema. */
static const char db_migrate_v5_v6[] = "ALTER TABLE problems ADD COLUMN flops INTEGER;\n";

/* Entry 6 gives evaluations their energy columns (schema version 7, all NULL in the rows it
 * had), in schema.sql's order and with its CHECK, so that a migrated table holds what a new one
 * does. It names the first column: the columns come from one schema.sql, so a table has all of
 * them or none. */
static const char db_migrate_v6_v7[] =
    "ALTER TABLE evaluations ADD COLUMN energy_j REAL CHECK (energy_j IS NULL OR energy_j > 0);\n"
    "ALTER TABLE evaluations ADD COLUMN power_w REAL;\n"
    "ALTER TABLE evaluations ADD COLUMN energy_window_ms REAL;\n"
    "ALTER TABLE evaluations ADD COLUMN sm_mhz INTEGER;\n"
    "ALTER TABLE evaluations ADD COLUMN mem_mhz INTEGER;\n"
    "ALTER TABLE evaluations ADD COLUMN temp_c INTEGER;\n"
    "ALTER TABLE evaluations ADD COLUMN throttle INTEGER;\n";

static const struct {
    const char *sql;
    const char *table, *column;   /* the column it adds, or NULL */
} db_migrations[DB_SCHEMA_VERSION] = {
    {schema_sql, NULL, NULL},
    {db_migrate_v1_v2, NULL, NULL},
    {db_migrate_v2_v3, NULL, NULL},
    {db_migrate_v3_v4, NULL, NULL},
    {db_migrate_v4_v5, NULL, NULL},
    {db_migrate_v5_v6, "problems", "flops"},
    {db_migrate_v6_v7, "evaluations", "energy_j"},
};

static const char *const db_tables[] = {"devices", "runs", "problems", "configs",
                                        "evaluations", "samples", "peers", "playoffs"};
#define DB_N_TABLES ((int)(sizeof db_tables / sizeof db_tables[0]))

static const char *const db_stmt_sql[DB_STMT_COUNT] = {
    [DB_STMT_BEGIN] = "BEGIN IMMEDIATE",
    [DB_STMT_COMMIT] = "COMMIT",
    [DB_STMT_ROLLBACK] = "ROLLBACK",
    [DB_STMT_HAS_EVAL] =
        "SELECT 1 FROM evaluations e JOIN configs c ON c.id = e.config_id "
        "WHERE e.device_id = ?1 AND e.problem_id = ?2 AND c.text = ?3 AND e.kernel_hash = ?4",
    [DB_STMT_PUT_CONFIG] = "INSERT OR IGNORE INTO configs(text) VALUES (?1)",
    [DB_STMT_GET_CONFIG] = "SELECT id FROM configs WHERE text = ?1",
    [DB_STMT_PUT_EVAL] =
        "INSERT INTO evaluations(run_id, device_id, problem_id, config_id, kernel_hash,"
        " status, error, median_us, min_us, max_us, mean_us, stddev_us, ci_lo_us, ci_hi_us,"
        " n_runs, gbps, frac_copy, seq, created_at, energy_j, power_w, energy_window_ms, sm_mhz,"
        " mem_mhz, temp_c, throttle)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
        " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
    [DB_STMT_PUT_SAMPLE] = "INSERT INTO samples(evaluation_id, idx, us) VALUES (?1, ?2, ?3)",
    [DB_STMT_FIND_EVAL] =
        "SELECT e.id, e.status, e.error, e.n_runs, e.median_us, e.min_us, e.max_us, e.mean_us,"
        " e.stddev_us, e.ci_lo_us, e.ci_hi_us, e.energy_j, e.power_w, e.energy_window_ms,"
        " e.sm_mhz, e.mem_mhz, e.temp_c, e.throttle "
        "FROM evaluations e JOIN devices d ON d.id = e.device_id "
        "JOIN problems p ON p.id = e.problem_id JOIN configs c ON c.id = e.config_id "
        "WHERE d.uuid = ?1 AND p.op = ?2 AND p.dtype = ?3 AND p.shape = ?4 AND c.text = ?5 "
        "ORDER BY e.created_at DESC, e.kernel_hash DESC LIMIT 1",
    [DB_STMT_FIND_SAMPLES] = "SELECT us FROM samples WHERE evaluation_id = ?1 ORDER BY idx",
};

/* ---- shared helpers ---- */

int db_errf(db *d, char *err, size_t len, const char *fmt, ...)
{
    if (err && len) {
        int n = snprintf(err, len, "database '%s': ", d->name);
        if (n >= 0 && (size_t)n < len) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, len - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

int db_fail(db *d, char *err, size_t len, const char *what)
{
    return db_errf(d, err, len, "%s: %s", what, sqlite3_errmsg(d->h));
}

sqlite3_stmt *db_stmt(db *d, db_stmt_id id)
{
    if (d->stmt[id]) {
        sqlite3_reset(d->stmt[id]);
        sqlite3_clear_bindings(d->stmt[id]);
        return d->stmt[id];
    }
    if (sqlite3_prepare_v3(d->h, db_stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &d->stmt[id],
                           NULL) != SQLITE_OK) {
        d->stmt[id] = NULL;
        return NULL;
    }
    return d->stmt[id];
}

int db_exec(db *d, const char *sql, char *err, size_t len)
{
    char *msg = NULL;
    if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        db_errf(d, err, len, "%s", msg ? msg : sqlite3_errmsg(d->h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int db_step_cached(db *d, db_stmt_id id, const char *what, char *err, size_t len)
{
    sqlite3_stmt *st = db_stmt(d, id);
    if (!st)
        return db_fail(d, err, len, what);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, len, what);
    return 0;
}

int db_begin(db *d, char *err, size_t len)
{
    return db_step_cached(d, DB_STMT_BEGIN, "begin transaction", err, len);
}

int db_commit(db *d, char *err, size_t len)
{
    return db_step_cached(d, DB_STMT_COMMIT, "commit", err, len);
}

void db_rollback(db *d)
{
    if (!sqlite3_get_autocommit(d->h))
        db_step_cached(d, DB_STMT_ROLLBACK, "rollback", NULL, 0);
}

int64_t db_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void db_format_time(int64_t ms, char *buf, size_t len)
{
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    char day[32];
    gmtime_r(&sec, &tm);
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", day, (int)(ms % 1000));
}

int db_path_is_dump(const char *path)
{
    size_t n = strlen(path);
    return (n >= 4 && strcmp(path + n - 4, ".sql") == 0) ||
           (n >= 7 && strcmp(path + n - 7, ".sql.xz") == 0);
}

/* ---- opening ---- */


int db_read_layout(db *d, db_layout *out, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    int have[DB_N_TABLES] = {0};
    int rc, ret = -1;
    memset(out, 0, sizeof *out);
    rc = sqlite3_prepare_v2(d->h, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st,
                            NULL);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            out->n_tables++;
            for (int i = 0; i < DB_N_TABLES; i++)
                if (name && strcmp(name, db_tables[i]) == 0)
                    have[i] = 1;
        }
    }
    if (rc == SQLITE_NOTADB) {
        db_errf(d, err, len, "not a SQLite database (%s)", sqlite3_errmsg(d->h));
        goto done;
    }
    if (rc != SQLITE_DONE) {
        db_fail(d, err, len, "reading the schema");
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(d->h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        db_fail(d, err, len, "reading the schema version");
        goto done;
    }
    out->version = sqlite3_column_int(st, 0);
    for (int i = 0; i < DB_N_TABLES; i++)
        if (!have[i]) {
            out->missing = db_tables[i];
            break;
        }
    ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

/* 1: fresh (no tables, version 0), 0: ours (possibly older), -1: refused with err. */
int db_judge_layout(db *d, const db_layout *l, char *err, size_t len)
{
    if (l->n_tables == 0 && l->version == 0)
        return 1;
    if (l->missing && strcmp(l->missing, "devices") == 0)
        return db_errf(d, err, len, "not a tunekit database (no devices table)");
    if (l->version > DB_SCHEMA_VERSION)
        return db_errf(d, err, len,
                       "schema version %d is newer than this tuner's (%d); use a newer tuner",
                       l->version, DB_SCHEMA_VERSION);
    if (l->version == DB_SCHEMA_VERSION && l->missing)
        return db_errf(d, err, len, "damaged tunekit database (no %s table)", l->missing);
    return 0;
}

/* 1 when the main database's table has the column, 0 when not, -1 when that cannot be read. */
static int db_has_column(db *d, const char *table, const char *column)
{
    sqlite3_stmt *st = NULL;
    int rc, has = 0;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        has = 1;
    else if (rc != SQLITE_DONE)
        has = -1;
    sqlite3_finalize(st);
    return has;
}

/* Brings the schema to DB_SCHEMA_VERSION in one transaction: schema.sql on a fresh database,
 * else the migrations from its version on. Another process may have done it meanwhile, so the
 * layout is read again under the write lock. */
int db_migrate(db *d, char *err, size_t len)
{
    db_layout l;
    char sql[64];
    /* A rebuilt table must not cascade deletes or trip references half-way: foreign keys are
     * off for the migration (a no-op inside a transaction, so set before it) and checked at
     * its end. */
    if (db_exec(d, "PRAGMA foreign_keys = OFF", err, len) < 0)
        return -1;
    if (db_begin(d, err, len) < 0)
        goto restore;
    if (db_read_layout(d, &l, err, len) < 0)
        goto fail;
    if (l.version < DB_SCHEMA_VERSION) {
        if (l.n_tables == 0) {
            if (db_exec(d, schema_sql, err, len) < 0)
                goto fail;
        } else {
            for (int v = l.version; v < DB_SCHEMA_VERSION; v++) {
                int has = db_migrations[v].column
                              ? db_has_column(d, db_migrations[v].table, db_migrations[v].column)
                              : 0;
                if (has < 0) {
                    db_fail(d, err, len, "reading a table's columns");
                    goto fail;
                }
                if (!has && db_exec(d, db_migrations[v].sql, err, len) < 0)
                    goto fail;
            }
            if (db_exec(d, schema_sql, err, len) < 0)
                goto fail;
        }
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
        if (db_exec(d, sql, err, len) < 0)
            goto fail;
        sqlite3_stmt *st = NULL;
        int broken = sqlite3_prepare_v2(d->h, "PRAGMA foreign_key_check", -1, &st, NULL) !=
                         SQLITE_OK || sqlite3_step(st) != SQLITE_DONE;
        sqlite3_finalize(st);
        if (broken) {
            db_errf(d, err, len, "migration to schema version %d left broken references",
                    DB_SCHEMA_VERSION);
            goto fail;
        }
    }
    if (db_commit(d, err, len) < 0)
        goto fail;
    return db_exec(d, "PRAGMA foreign_keys = ON", err, len);
fail:
    db_rollback(d);
restore:
    db_exec(d, "PRAGMA foreign_keys = ON", NULL, 0);
    return -1;
}

db *db_alloc(const char *name)
{
    db *d = calloc(1, sizeof *d);
    if (d)
        snprintf(d->name, sizeof d->name, "%s", name);
    return d;
}

/* Opens the SQLite handle on d->name with flags; 0 or -1 with err. */
int db_connect(db *d, int flags, char *err, size_t len)
{
    if (sqlite3_open_v2(d->name, &d->h, flags, NULL) != SQLITE_OK)
        return d->h ? db_fail(d, err, len, "cannot open")
                    : db_errf(d, err, len, "cannot open: out of memory");
    sqlite3_extended_result_codes(d->h, 1);
    sqlite3_busy_timeout(d->h, 5000);
    return 0;
}

/* Journal, durability and foreign keys; only after the file is known to be ours. */
int db_configure(db *d, int writable, char *err, size_t len)
{
    if (writable && db_exec(d, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", err,
                            len) < 0)
        return -1;
    return db_exec(d, "PRAGMA foreign_keys = ON", err, len);
}

void db_close(db *d)
{
    if (!d)
        return;
    for (int i = 0; i < DB_STMT_COUNT; i++)
        sqlite3_finalize(d->stmt[i]);
    sqlite3_close(d->h);
    free(d);
}

int db_count(db *d, const char *table, int64_t *n)
{
    sqlite3_stmt *st = NULL;
    char sql[64];
    int ret = -1;
    int known = 0;
    *n = 0;
    for (int i = 0; i < DB_N_TABLES; i++)
        known |= strcmp(table, db_tables[i]) == 0;
    if (!known)
        return -1;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        *n = sqlite3_column_int64(st, 0);
        ret = 0;
    }
    sqlite3_finalize(st);
    return ret;
}

struct sqlite3 *db_handle(db *d)
{
    return d->h;
}

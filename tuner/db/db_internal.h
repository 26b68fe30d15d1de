/* db_internal.h: what the database layer's files share and nothing else includes: the db struct
 * with its cache of prepared statements, the helpers that turn SQLite failures into
 * "database 'x.db': ..." messages, and the calls one layer of it makes into a lower one. The
 * layers, from the bottom: db.c (connection, migrations, helpers); db_check.c, db_write.c,
 * db_query.c, db_peers.c, db_xz.c; db_dump_format.c with db_export.c and db_import.c (dumps);
 * db_open.c (opening a database file); db_merge.c; db_sources.c (what readers open: a database
 * or dumps). */
#pragma once
#include <sqlite3.h>
#include "db.h"

/* The statements the hot paths (run loop, replay backend) use, prepared once per connection. */
typedef enum db_stmt_id {
    DB_STMT_BEGIN,           /* BEGIN IMMEDIATE */
    DB_STMT_COMMIT,
    DB_STMT_ROLLBACK,
    DB_STMT_HAS_EVAL,
    DB_STMT_PUT_CONFIG,
    DB_STMT_GET_CONFIG,
    DB_STMT_PUT_EVAL,
    DB_STMT_PUT_SAMPLE,
    DB_STMT_FIND_EVAL,
    DB_STMT_FIND_SAMPLES,
    DB_STMT_COUNT
} db_stmt_id;

struct db {
    sqlite3 *h;
    char name[1024];                  /* the path (or dump paths) for messages */
    sqlite3_stmt *stmt[DB_STMT_COUNT];
};

/* The cached statement id, reset and with its bindings cleared; NULL when it does not prepare
 * (sqlite3_errmsg(d->h) says why). The db owns it; callers reset it when done with it. */
sqlite3_stmt *db_stmt(db *d, db_stmt_id id);

/* Writes "database 'NAME': WHAT: <sqlite message>" to err; returns -1. */
int db_fail(db *d, char *err, size_t len, const char *what);
/* Opens an existing tunekit database file (not a dump) for reading: the refusals of
 * db_open_readonly for a file (no such file, not SQLite, not ours, older or newer schema).
 * db_merge opens the database it merges with it; db_open_readonly (db_sources.c) takes dumps too. */
int db_open_database_readonly(const char *path, db **out, char *err, size_t len);
/* The invariants `tuner db check` holds the rows to beyond SQLite's own checks (ok evaluations
 * have their samples, no duplicate natural keys, ...): each one broken adds "N what" to report
 * ("; "-separated) and counts in *n_problems. 0, or -1 when a query fails. db_import holds an
 * imported dump to them before it commits. */
int db_check_invariants(db *d, char *report, size_t len, int *n_problems);
/* Writes "database 'NAME': <formatted>" to err; returns -1. */
int db_errf(db *d, char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Runs SQL without results (several statements allowed). Returns 0, or -1 with err. */
int db_exec(db *d, const char *sql, char *err, size_t len);
/* Transaction bracket on the cached statements. db_rollback is safe to call when no
 * transaction is open. */
int db_begin(db *d, char *err, size_t len);
int db_commit(db *d, char *err, size_t len);
void db_rollback(db *d);

/* Current UTC time as ISO 8601 with milliseconds ("2025-01-02T03:04:05.678Z"), from ms since the
 * epoch (db_now_ms). buf holds at least 32 bytes. */
int64_t db_now_ms(void);
void db_format_time(int64_t ms, char *buf, size_t len);


/* ---- opening (db.c), used by db_open.c and db_sources.c ---- */
/* What an opened file holds: its user_version, how many tables, and the first of our tables it
 * lacks (NULL when it has them all). Reading it is the first access to the file, so a file that
 * is not a SQLite database fails here, before anything is written. */
typedef struct db_layout {
    int version;
    int n_tables;
    const char *missing;
} db_layout;
int db_read_layout(db *d, db_layout *out, char *err, size_t len);
/* 1: fresh (no tables, version 0), 0: ours (possibly older), -1: refused with err. */
int db_judge_layout(db *d, const db_layout *l, char *err, size_t len);
/* Brings the schema to DB_SCHEMA_VERSION in one transaction (schema.sql on a fresh database). */
int db_migrate(db *d, char *err, size_t len);
/* A db named name (for messages), not connected; NULL when out of memory. */
db *db_alloc(const char *name);
/* Opens the SQLite handle on d->name with flags; 0 or -1 with err. */
int db_connect(db *d, int flags, char *err, size_t len);
/* Journal, durability and foreign keys; only after the file is known to be ours. */
int db_configure(db *d, int writable, char *err, size_t len);

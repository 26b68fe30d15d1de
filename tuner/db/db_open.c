/* db_open.c: opening a database for writing (db_open: created and migrated as needed), for
 * reading (db_open_readonly: a database file, or a .sql dump loaded into memory), and several
 * dumps as one in-memory database (db_open_dumps). Kept apart from db.c so that the connection
 * layer does not depend on the dump importer. */
#include "db_internal.h"

#include <stdio.h>
#include <unistd.h>

/* *out is the caller's, closed with db_close (as for db_open_readonly and db_open_dumps). */
int db_open(const char *path, int create, db **out, char *err, size_t len)
{
    db_layout l;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    db *d = db_alloc(path);
    *out = NULL;
    if (!d) {
        snprintf(err, len, "database '%s': out of memory", path);
        return -1;
    }
    if (!create && access(path, F_OK) != 0) {
        db_errf(d, err, len, "no such file");
        goto fail;
    }
    if (db_connect(d, flags, err, len) < 0 || db_read_layout(d, &l, err, len) < 0 ||
        db_judge_layout(d, &l, err, len) < 0 || db_configure(d, 1, err, len) < 0)
        goto fail;
    if (l.version < DB_SCHEMA_VERSION && db_migrate(d, err, len) < 0)
        goto fail;
    *out = d;
    return 0;
fail:
    db_close(d);
    return -1;
}

int db_open_readonly(const char *path, db **out, char *err, size_t len)
{
    db_layout l;
    db *d;
    if (db_path_is_dump(path))
        return db_open_dumps(&path, 1, out, err, len);
    *out = NULL;
    d = db_alloc(path);
    if (!d) {
        snprintf(err, len, "database '%s': out of memory", path);
        return -1;
    }
    if (access(path, F_OK) != 0) {
        db_errf(d, err, len, "no such file");
        goto fail;
    }
    if (db_connect(d, SQLITE_OPEN_READONLY, err, len) < 0 || db_read_layout(d, &l, err, len) < 0)
        goto fail;
    switch (db_judge_layout(d, &l, err, len)) {
    case -1:
        goto fail;
    case 1:
        db_errf(d, err, len, "not a tunekit database (no tables)");
        goto fail;
    default:
        break;
    }
    if (l.version < DB_SCHEMA_VERSION) {
        db_errf(d, err, len,
                "schema version %d is older than this tuner's (%d); a writing command "
                "(tuner run, tuner db import) migrates it", l.version, DB_SCHEMA_VERSION);
        goto fail;
    }
    if (db_configure(d, 0, err, len) < 0)
        goto fail;
    *out = d;
    return 0;
fail:
    db_close(d);
    return -1;
}

static int open_dumps(const char *const *paths, int n, unsigned flags, const char *kernel,
                      db **out, char *err, size_t len)
{
    char name[1024];
    db *d;
    *out = NULL;
    if (n < 1) {
        snprintf(err, len, "no dump to open");
        return -1;
    }
    if (n == 1)
        snprintf(name, sizeof name, "%s", paths[0]);
    else
        snprintf(name, sizeof name, "%s (+%d more dumps)", paths[0], n - 1);
    d = db_alloc(name);
    if (!d) {
        snprintf(err, len, "database '%s': out of memory", name);
        return -1;
    }
    /* The handle opens ":memory:"; d->name stays the dumps' name for messages. */
    if (sqlite3_open_v2(":memory:", &d->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        db_fail(d, err, len, "cannot open an in-memory database");
        goto fail;
    }
    sqlite3_extended_result_codes(d->h, 1);
    /* Temporary tables and statement journals in memory too: a dump's import is one large
     * transaction, whose journals would otherwise go to temporary files. */
    if (db_configure(d, 0, err, len) < 0 || db_exec(d, "PRAGMA temp_store = MEMORY", err, len) < 0 ||
        db_migrate(d, err, len) < 0)
        goto fail;
    for (int i = 0; i < n; i++)
        if (db_import_flags(d, paths[i], flags, kernel, err, len) < 0)
            goto fail;
    *out = d;
    return 0;
fail:
    db_close(d);
    return -1;
}

int db_open_dumps(const char *const *paths, int n, db **out, char *err, size_t len)
{
    return open_dumps(paths, n, 0, NULL, out, err, len);
}

int db_open_dumps_summary(const char *const *paths, int n, const char *kernel, db **out,
                          char *err, size_t len)
{
    return open_dumps(paths, n, DB_IMPORT_NO_SAMPLES, kernel, out, err, len);
}

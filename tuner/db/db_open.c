/* db_open.c: opening a database file: for writing (db_open: created and migrated as needed) or
 * for reading (db_open_database_readonly: an existing tunekit database at this schema version).
 * Readers that also take dumps go through db_sources.c; the connection itself (connect,
 * configure, migrate) is db.c's. */
#include "db_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int db_open_database_readonly(const char *path, db **out, char *err, size_t len)
{
    db_layout l;
    db *d;
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

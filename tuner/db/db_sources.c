/* db_sources.c: what readers open where a database or dumps may be given. db_open_readonly takes
 * a database file (db_open.c) or a .sql dump, loaded into memory; db_open_dumps loads several dumps
 * as one in-memory database (a database among them is merged, db_merge.c, so that `--db` works
 * where dumps are read; a dump is imported, db_import.c); db_open_dumps_summary gives their
 * summary without samples, kept in an on-disk cache keyed by the dumps' bytes. */
#include "db_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/files.h"
#include "core/sha256.h"

int db_open_readonly(const char *path, db **out, char *err, size_t len)
{
    if (db_path_is_dump(path))
        return db_open_dumps(&path, 1, out, err, len);
    return db_open_database_readonly(path, out, err, len);
}

/* Whether path is an SQLite database (a `--db` given where dumps are read): merged, not
 * imported. */
static int is_database(const char *path)
{
    char head[16] = {0};
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
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
        if ((is_database(paths[i]) ? db_merge(d, paths[i], err, len)
                                   : db_import_flags(d, paths[i], flags, kernel, err, len)) < 0)
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

/* ---- the summaries' cache ---- */

/* The cache folder: $TUNEKIT_DUMP_CACHE ("off": none), else $XDG_CACHE_HOME/tunekit/dumps, else
 * $HOME/.cache/tunekit/dumps. 0, or -1 when there is none. */
static int summary_cache_dir(char *out, size_t len)
{
    const char *v = getenv("TUNEKIT_DUMP_CACHE");
    if (v && *v) {
        if (strcmp(v, "off") == 0) return -1;
        snprintf(out, len, "%s", v);
    } else if ((v = getenv("XDG_CACHE_HOME")) && *v) {
        snprintf(out, len, "%s/tunekit/dumps", v);
    } else if ((v = getenv("HOME")) && *v) {
        snprintf(out, len, "%s/.cache/tunekit/dumps", v);
    } else {
        return -1;
    }
    return 0;
}

/* The key of a summary: the SHA-256 of the schema version and of each input's bytes, in order.
 * 0, or -1 when an input cannot be read (the import will say why). */
static int summary_key(const char *const *paths, int n, char key[65])
{
    size_t cap = 64 + (size_t)n * 66, at = 0;
    char *list = malloc(cap);
    if (!list) return -1;
    at += (size_t)snprintf(list, cap, "tunekit summary, schema %d", DB_SCHEMA_VERSION);
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(paths[i], "rb");
        char *bytes = NULL;
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (bytes = malloc((size_t)size + 1)) && fread(bytes, 1, (size_t)size, f) == (size_t)size) {
            char hex[65];
            sha256_hex(bytes, (size_t)size, hex);
            at += (size_t)snprintf(list + at, cap - at, "|%s", hex);
        } else {
            size = -1;
        }
        free(bytes);
        if (f) fclose(f);
        if (size < 0) {
            free(list);
            return -1;
        }
    }
    sha256_hex(list, at, key);
    free(list);
    return 0;
}

/* mkdir -p; 0 or -1 */
int db_open_dumps_summary(const char *const *paths, int n, const char *kernel, db **out,
                          char *err, size_t len)
{
    char dir[PATH_MAX], key[65], file[PATH_MAX + 80], tmp[PATH_MAX + 100];
    if (n < 1 || summary_cache_dir(dir, sizeof dir) != 0 || summary_key(paths, n, key) != 0)
        return open_dumps(paths, n, DB_IMPORT_NO_SAMPLES, kernel, out, err, len);
    snprintf(file, sizeof file, "%s/%s.db", dir, key);
    /* A hit: the summary of every kernel, read-only. One that cannot be read is made again. */
    if (access(file, R_OK) == 0) {
        char ignored[512];
        if (db_open_readonly(file, out, ignored, sizeof ignored) == 0) return 0;
    }
    /* A miss: every kernel's evaluations (so that the next space finds them too), written to a
     * temporary file and renamed into place, so that no reader sees half of one. A cache that
     * cannot be written costs nothing but the next run's import. */
    if (open_dumps(paths, n, DB_IMPORT_NO_SAMPLES, NULL, out, err, len) != 0) return -1;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid());
    if (make_dirs(dir) == 0) {
        char *sql = sqlite3_mprintf("VACUUM INTO %Q", tmp);
        int ok = sql && sqlite3_exec((*out)->h, sql, NULL, NULL, NULL) == SQLITE_OK;
        sqlite3_free(sql);
        if (!ok || rename(tmp, file) != 0) unlink(tmp);
    }
    return 0;
}

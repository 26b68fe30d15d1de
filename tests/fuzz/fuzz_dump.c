/* fuzz_dump.c: libFuzzer target of the dump importer (db_import, tuner/db/db_import.c). The input
 * is a dump's text (or .xz data: the importer tells them apart by their magic bytes), imported
 * into an in-memory database on the schema, emptied again after each input (opening a fresh one
 * each time would spend most of the run creating the schema). A dump that is refused must leave one line of
 * error and the database as it was (no row of it imported); a dump that is accepted must leave a
 * database that `db check` finds clean, whose own export imports into it again without adding or
 * losing a row (idempotent), and must itself import a second time without an error. */
#include "fuzz.h"
#include <sqlite3.h>
#include "db/db.h"

static const char *const tables[] = {"devices", "runs", "problems", "configs", "evaluations",
                                     "samples", "peers", "playoffs"};
#define N_TABLES ((int)(sizeof tables / sizeof tables[0]))

static int64_t rows(db *d, int64_t *per_table)
{
    int64_t total = 0;
    for (int t = 0; t < N_TABLES; t++) {
        FUZZ_ASSERT(db_count(d, tables[t], &per_table[t]) == 0, "cannot count %s", tables[t]);
        total += per_table[t];
    }
    return total;
}

static db *d;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[1024];
    (void)argc; (void)argv;
    /* a statement of a seed slice takes well under a million steps; the default budget (20
     * million, a second or more under the sanitizers) would make every endless input slow */
    db_import_max_steps = 1000000;
    FUZZ_ASSERT(db_open(":memory:", 1, &d, err, sizeof err) == 0, "db_open: %s", err);
    return 0;
}

/* Deletes every row, children first (the foreign keys stay on). */
static void empty(void)
{
    static const char *const order[] = {"playoffs", "samples", "peers", "evaluations", "runs",
                                        "configs", "problems", "devices"};
    char sql[64];
    for (int t = 0; t < N_TABLES; t++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s", order[t]);
        FUZZ_ASSERT(sqlite3_exec(db_handle(d), sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
                    sqlite3_errmsg(db_handle(d)));
    }
}

/* The database exported as a dump, into the second memory file; its path. */
static const char *export_path(void)
{
    static int fd = -1;
    static char path[64];
    char err[1024] = "";
    if (fd < 0) {
        fd = memfd_create("fuzz-export", 0);
        FUZZ_ASSERT(fd >= 0, "memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_ASSERT(ftruncate(fd, 0) == 0, "ftruncate failed");
    FILE *f = fopen(path, "w");
    FUZZ_ASSERT(f, "cannot open the export file");
    FUZZ_ASSERT(db_export(d, f, err, sizeof err) == 0, "db_export after an accepted import: %s", err);
    fclose(f);
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    int64_t first[N_TABLES], again[N_TABLES];
    const char *path = fuzz_path(data, size);
    if (db_import(d, path, err, sizeof err) != 0) {
        fuzz_one_line("db_import", err);
        FUZZ_ASSERT(rows(d, first) == 0, "a refused dump left rows behind: %s", err);
        return 0;
    }
    int rc = db_check(d, err, sizeof err);
    FUZZ_ASSERT(rc == 0, "db check after an accepted import: %d %s", rc, err);
    /* Idempotence, as the importer promises it for dumps of rows (what export writes): the
     * database's own dump imports into it without adding or losing a row. (SQL that computes
     * its rows, from random() or from rows already there, may add rows each time; the second
     * import of the input itself must still succeed.) */
    int64_t n = rows(d, first);
    if (n == 0)   /* nothing imported (comments, BEGIN, COMMIT): nothing to export */
        return 0;
    err[0] = 0;
    FUZZ_ASSERT(db_import(d, export_path(), err, sizeof err) == 0, "the export of an accepted "
                "dump does not import: %s", err);
    FUZZ_ASSERT(rows(d, again) == n, "importing the database's own export added rows");
    for (int t = 0; t < N_TABLES; t++)
        FUZZ_ASSERT(first[t] == again[t], "importing the database's own export changed %s",
                    tables[t]);
    err[0] = 0;
    if (db_import(d, path, err, sizeof err) != 0)
        FUZZ_ASSERT(0, "an accepted dump fails the second time: %s", err);
    empty();
    return 0;
}

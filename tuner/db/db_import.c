/* db_import.c: loading a text dump (db_export.c describes the format) into an open database:
 * the statements are run one at a time inside one transaction, and only INSERTs and the dump's
 * own temporary view, trigger and DROP (db_dump_format.c) are taken; hand-written SQL files of
 * plain INSERTs over the schema (test fixtures) and dumps in the earlier one-INSERT-per-row
 * format load too, and an older dump's trigger (without the energy) is run as this version's.
 * The imported rows are held to db_check_invariants (db_check.c) before the commit. A dump
 * compressed with xz (.sql.xz) reads alike: db_read_dump_text (db_xz.h) gives the text. */
#include "db_internal.h"
#include "db_dump_format.h"
#include "db_xz.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Skips white space and SQL comments. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else {
            return p;
        }
    }
}

/* The end of the statement starting at p (just past its ';'), or the end of the text: the
 * first ';' at which sqlite3_complete says the statement is whole (a ';' inside a string or a
 * CREATE TRIGGER body does not end it). p points into a writable buffer. */
static char *statement_end(char *p)
{
    for (char *q = strchr(p, ';'); q; q = strchr(q + 1, ';')) {
        char saved = q[1];
        int whole;
        q[1] = 0;
        whole = sqlite3_complete(p);
        q[1] = saved;
        if (whole)
            return q + 1;
    }
    return p + strlen(p);
}

static int starts_with_words(const char *p, const char *words)
{
    size_t n = strlen(words);
    return strncasecmp(p, words, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_';
}

static int count_lines(const char *from, const char *to)
{
    int n = 0;
    for (; from < to; from++)
        n += *from == '\n';
    return n;
}

/* The schema version a dump declares on its first line, -1 when it has no such line. */
static int dump_version(const char *text)
{
    if (strncmp(text, DB_DUMP_HEADER, strlen(DB_DUMP_HEADER)) != 0)
        return -1;
    return atoi(text + strlen(DB_DUMP_HEADER));
}

/* 1 when the statement a (an bytes) is b, white space aside (runs of it count as one). */
static int same_sql(const char *a, size_t an, const char *b)
{
    size_t i = 0, j = 0, bn = strlen(b);
    for (;;) {
        int wa = i < an && isspace((unsigned char)a[i]), wb = j < bn && isspace((unsigned char)b[j]);
        if (wa != wb)
            return 0;
        if (wa) {
            while (i < an && isspace((unsigned char)a[i]))
                i++;
            while (j < bn && isspace((unsigned char)b[j]))
                j++;
            continue;
        }
        if (i == an || j == bn)
            return i == an && j == bn;
        if (a[i++] != b[j++])
            return 0;
    }
}

/* 1 when the statement is one of the temporary view, trigger and DROP that export writes. */
static int is_dump_temp_sql(const char *sql, size_t n)
{
    for (int i = 0; i < DB_DUMP_N_TEMP_SQL; i++)
        if (same_sql(sql, n, db_dump_temp_sql[i]))
            return 1;
    return 0;
}

/* 1 when the statement is the evaluations' trigger of this version's export or of an older
 * one's (versions 1 to 6, without the energy). */
static int is_dump_trigger(const char *sql, size_t n)
{
    return same_sql(sql, n, db_dump_trigger_sql) || same_sql(sql, n, db_dump_trigger_v6_sql);
}

/* The bounds of one dump statement: an INSERT may hold a SELECT (the export's rows refer to each
 * other through sub-selects), so a hostile or broken dump could hold one that never ends (a
 * recursive WITH) or makes a value of gigabytes (randomblob). The export's largest statement
 * (DUMP_ROWS_PER_STATEMENT evaluations with their samples) takes under 2 million steps of SQLite's
 * virtual machine; a statement past IMPORT_MAX_STEPS is stopped, and no value may exceed
 * IMPORT_MAX_VALUE bytes. */
#define IMPORT_MAX_STEPS ((int64_t)20000000)
#define IMPORT_MAX_VALUE (16 << 20)
#define IMPORT_PROGRESS_EVERY 10000

int64_t db_import_max_steps = IMPORT_MAX_STEPS;

static int import_progress(void *ctx)
{
    int64_t *steps = ctx;
    *steps += IMPORT_PROGRESS_EVERY;
    return *steps > db_import_max_steps;
}

/* Runs one statement of a dump. A UNIQUE or PRIMARY KEY conflict is the row already present (a
 * plain INSERT in a hand-written fixture): skipped, so importing stays idempotent. */
static int import_statement(db *d, const char *sql, size_t n, const char *path, int line,
                            char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    int64_t steps = 0;
    if (n > (size_t)INT_MAX) {
        snprintf(err, len, "dump '%s': line %d: a statement of more than %d bytes", path, line,
                 INT_MAX);
        goto done;
    }
    if (sqlite3_prepare_v2(d->h, sql, (int)n, &st, NULL) != SQLITE_OK) {
        snprintf(err, len, "dump '%s': line %d: %s", path, line, sqlite3_errmsg(d->h));
        goto done;
    }
    sqlite3_progress_handler(d->h, IMPORT_PROGRESS_EVERY, import_progress, &steps);
    rc = sqlite3_step(st);
    sqlite3_progress_handler(d->h, 0, NULL, NULL);
    if (rc == SQLITE_INTERRUPT && steps > db_import_max_steps) {
        snprintf(err, len, "dump '%s': line %d: the statement did not finish within %lld million "
                 "steps (a dump's rows take far fewer: not a dump this tuner wrote?)", path, line,
                 (long long)(db_import_max_steps / 1000000));
        goto done;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE && rc != SQLITE_CONSTRAINT_PRIMARYKEY) {
        snprintf(err, len, "dump '%s': line %d: %s", path, line, sqlite3_errmsg(d->h));
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

/* Imports a dump: ours (the first line names its schema version, at most this tuner's) or
 * any SQL file of INSERTs over this schema (e.g. a test fixture). Only INSERT statements run,
 * and the temporary view, trigger and DROP that export writes (exactly those); the schema
 * statements are skipped (the schema is in place), and so are BEGIN/COMMIT/PRAGMA (the import
 * is one transaction of its own). Anything else is refused. The temporary view never outlives
 * the import, even when the dump stops before its DROP. */
int db_import(db *d, const char *dump_path, char *err, size_t len)
{
    return db_import_flags(d, dump_path, 0, NULL, err, len);
}

/* 1 when a statement of dump_evaluations rows (db_dump_insert_head ...) is of another kernel than
 * `kernel`: its fourth value is the op, "KERNEL.op". 0 when it is of the kernel or when the
 * statement is not one of those. */
static int other_kernel_rows(const char *sql, size_t n, const char *kernel)
{
    size_t head = strlen(db_dump_insert_head), at = head;
    if (n <= head || !same_sql(sql, head, db_dump_insert_head)) return 0;
    for (int field = 0; field < 4; field++) {
        while (at < n && (sql[at] == ',' || isspace((unsigned char)sql[at]))) at++;
        if (at >= n || sql[at] != '\'') return 0;
        size_t from = ++at;
        while (at < n && !(sql[at] == '\'' && (at + 1 >= n || sql[at + 1] != '\''))) at += sql[at] == '\'' ? 2 : 1;
        if (at >= n) return 0;
        if (field == 3) {
            size_t k = strlen(kernel);
            return !(at - from > k && strncmp(sql + from, kernel, k) == 0 && sql[from + k] == '.');
        }
        at++;
    }
    return 0;
}

int db_import_flags(db *d, const char *dump_path, unsigned flags, const char *kernel, char *err,
                    size_t len)
{
    char *text = db_read_dump_text(dump_path, NULL, err, len);
    char *p, *next;
    int line = 1, version, in_tx = 0, ret = -1, old_limit = -1;
    if (!text)
        return -1;
    version = dump_version(text);
    /* An older dump's rows are valid rows of this schema (each version only widened it). */
    if (version > DB_SCHEMA_VERSION) {
        snprintf(err, len, "dump '%s': schema version %d, this tuner reads up to version %d; "
                 "use a newer tuner", dump_path, version, DB_SCHEMA_VERSION);
        goto done;
    }
    if (db_begin(d, err, len) < 0)
        goto done;
    in_tx = 1;
    old_limit = sqlite3_limit(d->h, SQLITE_LIMIT_LENGTH, IMPORT_MAX_VALUE);
    for (p = text; *p; p = next) {
        char *start = (char *)skip_blank(p);
        line += count_lines(p, start);
        if (!*start)
            break;
        next = statement_end(start);
        if (starts_with_words(start, "INSERT INTO") ||
            starts_with_words(start, "INSERT OR IGNORE INTO") ||
            is_dump_temp_sql(start, (size_t)(next - start))) {
            const char *sql = start;
            size_t n = (size_t)(next - start);
            if (is_dump_trigger(start, n)) {
                /* this version's trigger, whichever version's the dump holds */
                sql = (flags & DB_IMPORT_NO_SAMPLES) ? db_dump_trigger_no_samples_sql
                                                     : db_dump_trigger_sql;
                n = strlen(sql);
            } else if ((flags & DB_IMPORT_NO_SAMPLES) &&
                       (starts_with_words(start, "INSERT INTO samples") ||
                        starts_with_words(start, "INSERT OR IGNORE INTO samples"))) {
                line += count_lines(start, next);
                continue;
            } else if (kernel && other_kernel_rows(start, n, kernel)) {
                line += count_lines(start, next);
                continue;
            }
            if (import_statement(d, sql, n, dump_path, line, err, len) < 0)
                goto done;
        } else if (starts_with_words(start, "CREATE TEMP") ||
                   starts_with_words(start, "CREATE TEMPORARY")) {
            snprintf(err, len, "dump '%s': line %d: '%.40s' is not what this tuner's export "
                     "writes (a dump of another tuner version?)", dump_path, line, start);
            goto done;
        } else if (!starts_with_words(start, "CREATE") && !starts_with_words(start, "PRAGMA") &&
                   !starts_with_words(start, "BEGIN") && !starts_with_words(start, "COMMIT") &&
                   !starts_with_words(start, "END")) {
            snprintf(err, len, "dump '%s': line %d: only INSERT statements are imported, not "
                     "'%.40s'", dump_path, line, start);
            goto done;
        }
        line += count_lines(start, next);
    }
    if (db_exec(d, "DROP VIEW IF EXISTS temp.dump_evaluations", err, len) < 0)
        goto done;
    /* a dump cut short at a statement's end, or rows written by hand, can leave evaluations
     * without their samples: refused, as `tuner db check` would find the result broken (not
     * checked in a summary without samples, which lacks them by design) */
    if (!(flags & DB_IMPORT_NO_SAMPLES)) {
        char report[1024] = "";
        int n_problems = 0;
        if (db_check_invariants(d, report, sizeof report, &n_problems) < 0) {
            snprintf(err, len, "dump '%s': cannot check the imported rows: %s", dump_path,
                     sqlite3_errmsg(d->h));
            goto done;
        }
        if (n_problems) {
            snprintf(err, len, "dump '%s': its rows are inconsistent (cut short, or written by "
                     "hand?): %s", dump_path, report);
            goto done;
        }
    }
    if (db_commit(d, err, len) < 0)
        goto done;
    ret = 0;
done:
    if (old_limit >= 0)
        sqlite3_limit(d->h, SQLITE_LIMIT_LENGTH, old_limit);
    /* the messages quote the dump's SQL, which may span lines: one line (line breaks and tabs as
     * spaces, other control bytes as '?') */
    for (size_t i = 0; ret < 0 && i < len && err[i]; i++)
        if (err[i] == '\n' || err[i] == '\r' || err[i] == '\t')
            err[i] = ' ';
        else if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
            err[i] = '?';
    if (ret < 0 && in_tx) {
        db_rollback(d);
        sqlite3_exec(d->h, "DROP VIEW IF EXISTS temp.dump_evaluations", NULL, NULL, NULL);
    }
    free(text);
    return ret;
}

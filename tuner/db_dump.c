/* db_dump.c: the deterministic SQL text dump (db_export) and loading one back (db_import).
 *
 * A dump is: a "-- tunekit dump, schema version N" line, the schema (CREATE ... IF NOT EXISTS),
 * PRAGMA user_version, then BEGIN; one INSERT OR IGNORE per row, tables in dependency order, rows
 * sorted by natural key; COMMIT. Rows never carry database-local ids: a foreign key is written as
 * a sub-select on the parent's natural key, and the samples of one evaluation are one statement
 * over json_each. Floats are written in the shortest form that reads back to the same double, so
 * the same content gives the same bytes whatever the ids or insertion order, and export -> import
 * -> export is the identity. `sqlite3 new.db < dump.sql` loads it, as does db_import, which runs
 * only the INSERT statements (the schema is already there) inside one transaction; db_import also
 * takes hand-written SQL files of plain INSERTs over the schema, such as test fixtures. */
#include "db_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_sql.h"

#define DUMP_HEADER "-- tunekit dump, schema version "

/* ---- writing values ---- */

/* Shortest %g text that reads back as v, with ".0" added to whole numbers so it reads as REAL. */
static void format_double(double v, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".en"))
        strncat(buf, ".0", len - strlen(buf) - 1);
}

/* A REAL as SQL. SQLite's own text-to-double conversion (before 3.43) is exact for magnitudes
 * well inside 1e-30..1e30 but not everywhere beyond; its JSON parser is exact throughout, so
 * values outside that range go through json_extract. */
static void put_double(FILE *f, double v)
{
    char buf[48];
    if (isnan(v)) {
        fputs("NULL", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "9e999" : "-9e999", f);
        return;
    }
    format_double(v, buf, sizeof buf);
    if (v == 0 || (fabs(v) >= 1e-30 && fabs(v) <= 1e30))
        fputs(buf, f);
    else
        fprintf(f, "json_extract('[%s]','$[0]')", buf);
}

static void put_text(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void put_column(FILE *f, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
        break;
    case SQLITE_FLOAT:
        put_double(f, sqlite3_column_double(st, i));
        break;
    case SQLITE_TEXT:
        put_text(f, (const char *)sqlite3_column_text(st, i));
        break;
    case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        fputs("X'", f);
        for (int k = 0; k < n; k++)
            fprintf(f, "%02X", b[k]);
        fputc('\'', f);
        break;
    }
    default:
        fputs("NULL", f);
    }
}

/* Writes tmpl with each '?' replaced by the literal of the next column of st from *col on. */
static void put_template(FILE *f, const char *tmpl, sqlite3_stmt *st, int *col)
{
    for (; *tmpl; tmpl++) {
        if (*tmpl == '?')
            put_column(f, st, (*col)++);
        else
            fputc(*tmpl, f);
    }
}

/* ---- the tables ---- */

/* One table of the dump: a query in natural-key order, and the INSERT each row becomes: head,
 * then values, where each '?' is the next column (NULL values: every column, comma-separated). */
typedef struct dump_table {
    const char *name;
    const char *select;
    const char *head;
    const char *values;
} dump_table;

static const dump_table dump_tables[] = {
    {"devices",
     "SELECT uuid, name, cc_major, cc_minor, sm_count, max_threads_per_sm, max_threads_per_block,"
     " regs_per_sm, smem_per_sm, l2_bytes, mem_bytes, sm_clock_khz, mem_clock_khz, mem_bus_bits,"
     " driver_version, runtime_version FROM devices ORDER BY uuid",
     "INSERT OR IGNORE INTO devices(uuid,name,cc_major,cc_minor,sm_count,max_threads_per_sm,"
     "max_threads_per_block,regs_per_sm,smem_per_sm,l2_bytes,mem_bytes,sm_clock_khz,"
     "mem_clock_khz,mem_bus_bits,driver_version,runtime_version) VALUES(",
     NULL},
    {"runs",
     "SELECT d.uuid, r.started_at, r.finished_at, r.space, r.space_hash, r.strategy, r.seed,"
     " r.backend, r.copy_gbps, r.tuner_version FROM runs r JOIN devices d ON d.id = r.device_id"
     " ORDER BY d.uuid, r.started_at",
     "INSERT OR IGNORE INTO runs(device_id,started_at,finished_at,space,space_hash,strategy,seed,"
     "backend,copy_gbps,tuner_version) VALUES(",
     "(SELECT id FROM devices WHERE uuid=?),?,?,?,?,?,?,?,?,?"},
    {"problems",
     "SELECT op, dtype, shape, elements, bytes, size_key FROM problems ORDER BY op, dtype, shape",
     "INSERT OR IGNORE INTO problems(op,dtype,shape,elements,bytes,size_key) VALUES(", NULL},
    {"configs", "SELECT text FROM configs ORDER BY text",
     "INSERT OR IGNORE INTO configs(text) VALUES(", NULL},
    {"evaluations",
     "SELECT rd.uuid, r.started_at, d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash,"
     " e.status, e.error, e.median_us, e.min_us, e.max_us, e.mean_us, e.stddev_us, e.ci_lo_us,"
     " e.ci_hi_us, e.n_runs, e.gbps, e.frac_copy, e.seq, e.created_at"
     " FROM evaluations e JOIN runs r ON r.id = e.run_id JOIN devices rd ON rd.id = r.device_id"
     " JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id"
     " JOIN configs c ON c.id = e.config_id"
     " ORDER BY d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash",
     "INSERT OR IGNORE INTO evaluations(run_id,device_id,problem_id,config_id,kernel_hash,status,"
     "error,median_us,min_us,max_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,"
     "seq,created_at) VALUES(",
     "(SELECT r.id FROM runs r JOIN devices d ON d.id=r.device_id WHERE d.uuid=? AND "
     "r.started_at=?),(SELECT id FROM devices WHERE uuid=?),(SELECT id FROM problems WHERE op=? "
     "AND dtype=? AND shape=?),(SELECT id FROM configs WHERE text=?),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"},
    {"peers",
     "SELECT d.uuid, p.op, p.dtype, p.shape, pe.library, pe.median_us, pe.min_us, pe.mean_us,"
     " pe.stddev_us, pe.ci_lo_us, pe.ci_hi_us, pe.n_runs, pe.gbps, pe.frac_copy, pe.copy_gbps,"
     " pe.created_at FROM peers pe JOIN devices d ON d.id = pe.device_id"
     " JOIN problems p ON p.id = pe.problem_id ORDER BY d.uuid, p.op, p.dtype, p.shape, pe.library",
     "INSERT OR IGNORE INTO peers(device_id,problem_id,library,median_us,min_us,mean_us,stddev_us,"
     "ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,copy_gbps,created_at) VALUES(",
     "(SELECT id FROM devices WHERE uuid=?),(SELECT id FROM problems WHERE op=? AND dtype=? AND "
     "shape=?),?,?,?,?,?,?,?,?,?,?,?,?"},
};
#define N_DUMP_TABLES ((int)(sizeof dump_tables / sizeof dump_tables[0]))

static int dump_table_rows(db *d, const dump_table *t, FILE *out, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    if (sqlite3_prepare_v2(d->h, t->select, -1, &st, NULL) != SQLITE_OK) {
        db_fail(d, err, len, "exporting");
        goto done;
    }
    fprintf(out, "-- %s\n", t->name);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int col = 0;
        fputs(t->head, out);
        if (t->values)
            put_template(out, t->values, st, &col);
        else
            for (; col < sqlite3_column_count(st); col++) {
                if (col)
                    fputc(',', out);
                put_column(out, st, col);
            }
        fputs(");\n", out);
    }
    if (rc != SQLITE_DONE) {
        db_fail(d, err, len, "exporting");
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

/* The samples of every evaluation that has them, one statement per evaluation, in the
 * evaluations' order. A statement fills only the evaluation with the same natural key and
 * created_at (the same measurement) and only when it has no samples yet, so importing into a
 * database that measured the same config itself never mixes two measurements. */
static const char samples_select[] =
    "SELECT e.id, d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash, e.created_at"
    " FROM evaluations e JOIN devices d ON d.id = e.device_id"
    " JOIN problems p ON p.id = e.problem_id JOIN configs c ON c.id = e.config_id"
    " WHERE EXISTS (SELECT 1 FROM samples s WHERE s.evaluation_id = e.id)"
    " ORDER BY d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash";
static const char samples_head[] =
    "INSERT OR IGNORE INTO samples(evaluation_id,idx,us) SELECT e.id,j.key,j.value FROM "
    "evaluations e JOIN devices d ON d.id=e.device_id JOIN problems p ON p.id=e.problem_id JOIN "
    "configs c ON c.id=e.config_id JOIN json_each('";
static const char samples_tail[] =
    "') j WHERE d.uuid=? AND p.op=? AND p.dtype=? AND p.shape=? AND c.text=? AND "
    "e.kernel_hash=? AND e.created_at=? AND NOT EXISTS (SELECT 1 FROM samples s WHERE "
    "s.evaluation_id=e.id);\n";

static int dump_samples(db *d, FILE *out, char *err, size_t len)
{
    sqlite3_stmt *ev = NULL, *sm = NULL;
    int rc, ret = -1;
    if (sqlite3_prepare_v2(d->h, samples_select, -1, &ev, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(d->h, "SELECT idx, us FROM samples WHERE evaluation_id = ?1 "
                           "ORDER BY idx", -1, &sm, NULL) != SQLITE_OK) {
        db_fail(d, err, len, "exporting samples");
        goto done;
    }
    fputs("-- samples\n", out);
    while ((rc = sqlite3_step(ev)) == SQLITE_ROW) {
        int64_t expect = 0;
        int col = 1;
        sqlite3_reset(sm);
        sqlite3_bind_int64(sm, 1, sqlite3_column_int64(ev, 0));
        fputs(samples_head, out);
        fputc('[', out);
        while ((rc = sqlite3_step(sm)) == SQLITE_ROW) {
            char buf[48];
            if (sqlite3_column_int64(sm, 0) != expect) {
                db_errf(d, err, len, "exporting samples: evaluation %lld has sample idx %lld "
                        "where %lld belongs (run tuner db check)",
                        (long long)sqlite3_column_int64(ev, 0),
                        (long long)sqlite3_column_int64(sm, 0), (long long)expect);
                goto done;
            }
            format_double(sqlite3_column_double(sm, 1), buf, sizeof buf);
            fprintf(out, "%s%s", expect ? "," : "", buf);
            expect++;
        }
        if (rc != SQLITE_DONE) {
            db_fail(d, err, len, "exporting samples");
            goto done;
        }
        fputc(']', out);
        put_template(out, samples_tail, ev, &col);
    }
    if (rc != SQLITE_DONE) {
        db_fail(d, err, len, "exporting samples");
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(sm);
    sqlite3_finalize(ev);
    return ret;
}

int db_export(db *d, FILE *out, char *err, size_t len)
{
    int ret = -1;
    /* One read transaction: the dump is a consistent snapshot even while a run writes. */
    if (db_exec(d, "BEGIN", err, len) < 0)
        return -1;
    fprintf(out, DUMP_HEADER "%d\n", DB_SCHEMA_VERSION);
    fputs("-- Rows are sorted by natural key and refer to each other by natural key (no local ids)."
          "\n-- Load with `sqlite3 new.db < FILE` or `tuner db import FILE`.\n", out);
    fputs(schema_sql, out);
    fprintf(out, "PRAGMA user_version = %d;\nBEGIN;\n", DB_SCHEMA_VERSION);
    for (int i = 0; i < N_DUMP_TABLES; i++) {
        if (dump_table_rows(d, &dump_tables[i], out, err, len) < 0)
            goto done;
        /* samples go between evaluations and peers: dependency order */
        if (strcmp(dump_tables[i].name, "evaluations") == 0 && dump_samples(d, out, err, len) < 0)
            goto done;
    }
    fputs("COMMIT;\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        db_errf(d, err, len, "exporting: cannot write the dump");
        goto done;
    }
    ret = 0;
done:
    db_rollback(d);
    return ret;
}

/* ---- import ---- */

/* Reads a whole file into a NUL-terminated buffer (the caller frees). NULL with err. */
static char *read_file(const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        snprintf(err, len, "dump '%s': cannot open", path);
        return NULL;
    }
    for (;;) {
        if (cap - n < 65536) {
            char *p = realloc(buf, cap ? 2 * cap : 1 << 20);
            if (!p) {
                snprintf(err, len, "dump '%s': out of memory", path);
                goto fail;
            }
            buf = p;
            cap = cap ? 2 * cap : 1 << 20;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, len, "dump '%s': read error", path);
        goto fail;
    }
    buf[n] = 0;
    fclose(f);
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

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
    if (strncmp(text, DUMP_HEADER, strlen(DUMP_HEADER)) != 0)
        return -1;
    return atoi(text + strlen(DUMP_HEADER));
}

/* Runs one INSERT of a dump. A UNIQUE or PRIMARY KEY conflict is the row already present (a
 * plain INSERT in a hand-written fixture): skipped, so importing stays idempotent. */
static int import_insert(db *d, const char *sql, size_t n, const char *path, int line, char *err,
                         size_t len)
{
    sqlite3_stmt *st = NULL;
    int rc, ret = -1;
    if (sqlite3_prepare_v2(d->h, sql, (int)n, &st, NULL) != SQLITE_OK) {
        snprintf(err, len, "dump '%s': line %d: %s", path, line, sqlite3_errmsg(d->h));
        goto done;
    }
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE && rc != SQLITE_CONSTRAINT_PRIMARYKEY) {
        snprintf(err, len, "dump '%s': line %d: %s", path, line, sqlite3_errmsg(d->h));
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

/* Imports a dump: ours (the first line names its schema version, which must be this tuner's) or
 * any SQL file of INSERTs over this schema (e.g. a test fixture). Only INSERT statements run;
 * the schema statements are skipped (the schema is in place), and so are BEGIN/COMMIT/PRAGMA
 * (the import is one transaction of its own). Anything else is refused. */
int db_import(db *d, const char *dump_path, char *err, size_t len)
{
    char *text = read_file(dump_path, err, len);
    char *p, *next;
    int line = 1, version, in_tx = 0, ret = -1;
    if (!text)
        return -1;
    version = dump_version(text);
    if (version >= 0 && version != DB_SCHEMA_VERSION) {
        snprintf(err, len, "dump '%s': schema version %d, this tuner reads version %d; %s",
                 dump_path, version, DB_SCHEMA_VERSION,
                 version > DB_SCHEMA_VERSION ? "use a newer tuner"
                                             : "import it with the tuner that wrote it, then "
                                               "merge that database");
        goto done;
    }
    if (db_begin(d, err, len) < 0)
        goto done;
    in_tx = 1;
    for (p = text; *p; p = next) {
        char *start = (char *)skip_blank(p);
        line += count_lines(p, start);
        if (!*start)
            break;
        next = statement_end(start);
        if (starts_with_words(start, "INSERT INTO") ||
            starts_with_words(start, "INSERT OR IGNORE INTO")) {
            if (import_insert(d, start, (size_t)(next - start), dump_path, line, err, len) < 0)
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
    if (db_commit(d, err, len) < 0)
        goto done;
    ret = 0;
done:
    if (ret < 0 && in_tx)
        db_rollback(d);
    free(text);
    return ret;
}

/* db_export.c: the deterministic SQL text dump (db_export); db_import.c loads one back, and
 * db_dump_format.c holds the SQL of its own that a dump carries.
 *
 * A dump is: a "-- tunekit dump, schema version N" line, the schema (CREATE ... IF NOT EXISTS),
 * PRAGMA user_version, then BEGIN; the rows, tables in dependency order and sorted by natural
 * key; COMMIT. Rows never carry database-local ids: a row names its parents by natural key.
 *
 * Devices, problems and configs are multi-row INSERT OR IGNOREs (problems with their flops, schema
 * version 6, are an upsert that gives a problem present without flops the dump's, and are
 * written only when some problem has flops, so that a database without them exports the rows of
 * version 5); runs, peers and playoffs
 * (a few rows) one INSERT per row with sub-selects on the parents' natural keys. Evaluations,
 * which are nearly all of a dump, go through a temporary view whose INSTEAD OF trigger
 * (written at the top of the section, dropped at its end) resolves the natural keys and inserts
 * the evaluation and its samples. One statement carries up to DUMP_ROWS_PER_STATEMENT evaluations of one (device,
 * problem, run, kernel hash), sorted by config text: what they share is written once, and so
 * is the longest common prefix of their created_at. A row is then the config, status, error,
 * its nine statistics as one JSON array (and after them, in a row with an energy measurement,
 * schema version 7, its seven energy readings), n_runs, seq, the rest of created_at, and its samples
 * as indexes into the statement's sorted list of distinct sample values (the timings repeat:
 * CUDA events tick in fixed steps). Samples attach only to the evaluation with the same natural
 * key and created_at (the same measurement) and only when it has none yet, so importing into a
 * database that measured the same config itself never mixes two measurements.
 *
 * Floats are written in the shortest text that reads back to the same double both by strtod and
 * by the linked SQLite, checked value by value: SQLite 3.40 reads some REAL literals one ulp off
 * (174.2016019 and about 1 in 14,000 values of a real dump), JSON numbers never, so every
 * evaluation float is inside JSON, and a REAL literal elsewhere (runs, peers) gets more digits
 * where SQLite would misread the shorter text (json_extract being the last resort). Hence the
 * same content gives the same bytes whatever the ids or insertion order, and export -> import
 * -> export is the identity.
 *
 * `sqlite3 new.db < dump.sql` loads a dump, as does db_import, which runs only INSERTs and this
 * file's own temporary view, trigger and DROP (the schema is already there) inside one
 * transaction; db_import also takes hand-written SQL files of plain INSERTs over the schema,
 * such as test fixtures, and dumps in the earlier one-INSERT-per-row format; an older dump's
 * trigger (without the energy) is run as this version's, which reads its rows alike. A dump compressed
 * with xz (.sql.xz, db_xz.h) reads alike: db_read_dump_text gives db_import the text. */
#include "db_internal.h"
#include "db_dump_format.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_sql.h"

/* Evaluations (or devices, problems, configs) per INSERT: bounds a statement's size. */
#define DUMP_ROWS_PER_STATEMENT 1000

/* ---- writing values ---- */

/* An export in progress: where it writes, and SQLite's two ways of reading a number back. */
typedef struct exporter {
    db *d;
    FILE *out;
    sqlite3_stmt *as_literal;   /* SELECT CAST(?1 AS REAL): how SQLite reads a REAL literal */
    sqlite3_stmt *as_json;      /* SELECT json_extract(?1,'$'): how it reads a JSON number */
    char *err;
    size_t len;
} exporter;

/* 1 when SQLite, reading text through st, gets exactly v. */
static int reads_back(sqlite3_stmt *st, const char *text, double v)
{
    int ok;
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_FLOAT &&
         sqlite3_column_double(st, 0) == v;
    sqlite3_reset(st);
    return ok;
}

/* The shortest %g text (".0" added to whole numbers, so it reads as REAL) that reads back as v
 * by strtod and by SQLite through st; infinities are 9e999. 0, or -1 when no such text is
 * found. */
static int exact_text(sqlite3_stmt *st, double v, char *buf, size_t len)
{
    if (isinf(v)) {
        snprintf(buf, len, "%s", v > 0 ? "9e999" : "-9e999");
        return reads_back(st, buf, v) ? 0 : -1;
    }
    /* A normal double that some text of at most 15 digits reads as prints as that text at
     * %.15g; a subnormal one has fewer digits of its own. */
    for (int prec = v != 0 && fabs(v) < DBL_MIN ? 1 : 15; prec <= 19; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (!strpbrk(buf, ".e"))
            strncat(buf, ".0", len - strlen(buf) - 1);
        if (strtod(buf, NULL) == v && reads_back(st, buf, v))
            return 0;
    }
    return -1;
}

static int inexact(exporter *x, double v)
{
    return db_errf(x->d, x->err, x->len,
                   "exporting: no decimal text of %.17g reads back exactly in this SQLite", v);
}

/* A REAL as a SQL literal, or as json_extract('[v]','$[0]') where SQLite would misread the
 * literal; NaN (which SQLite stores as NULL) as NULL. */
static int put_real(exporter *x, double v)
{
    char buf[64];
    if (isnan(v)) {
        fputs("NULL", x->out);
        return 0;
    }
    if (exact_text(x->as_literal, v, buf, sizeof buf) == 0) {
        fputs(buf, x->out);
        return 0;
    }
    if (exact_text(x->as_json, v, buf, sizeof buf) == 0) {
        fprintf(x->out, "json_extract('[%s]','$[0]')", buf);
        return 0;
    }
    return inexact(x, v);
}

/* A number inside JSON text. */
static int put_json_real(exporter *x, double v)
{
    char buf[64];
    if (exact_text(x->as_json, v, buf, sizeof buf) < 0)
        return inexact(x, v);
    fputs(buf, x->out);
    return 0;
}

static void put_text(FILE *f, const char *s, size_t n)
{
    fputc('\'', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            fputc('\'', f);
        fputc(s[i], f);
    }
    fputc('\'', f);
}

static void put_cstr(FILE *f, const char *s)
{
    put_text(f, s, strlen(s));
}

static int put_column(exporter *x, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        fprintf(x->out, "%lld", (long long)sqlite3_column_int64(st, i));
        return 0;
    case SQLITE_FLOAT:
        return put_real(x, sqlite3_column_double(st, i));
    case SQLITE_TEXT:
        put_cstr(x->out, (const char *)sqlite3_column_text(st, i));
        return 0;
    case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        fputs("X'", x->out);
        for (int k = 0; k < n; k++)
            fprintf(x->out, "%02X", b[k]);
        fputc('\'', x->out);
        return 0;
    }
    default:
        fputs("NULL", x->out);
        return 0;
    }
}

/* Writes tmpl with each '?' replaced by the literal of the next column of st from *col on. */
static int put_template(exporter *x, const char *tmpl, sqlite3_stmt *st, int *col)
{
    for (; *tmpl; tmpl++) {
        if (*tmpl != '?')
            fputc(*tmpl, x->out);
        else if (put_column(x, st, (*col)++) < 0)
            return -1;
    }
    return 0;
}

/* ---- devices, runs, problems, configs, peers ---- */

/* One table of the dump: a query in natural-key order, and the INSERT its rows become. With row
 * NULL, a statement is head then up to DUMP_ROWS_PER_STATEMENT rows "(col,col,...)", then tail
 * (when not NULL); otherwise every row is one statement "head(row);", each '?' of row being the
 * next column. */
typedef struct dump_table {
    const char *name;
    const char *select;
    const char *head;
    const char *row;
    const char *tail;
} dump_table;

static const dump_table parent_tables[] = {
    {"devices",
     "SELECT uuid, name, cc_major, cc_minor, sm_count, max_threads_per_sm, max_threads_per_block,"
     " regs_per_sm, smem_per_sm, l2_bytes, mem_bytes, sm_clock_khz, mem_clock_khz, mem_bus_bits,"
     " driver_version, runtime_version FROM devices ORDER BY uuid",
     "INSERT OR IGNORE INTO devices(uuid,name,cc_major,cc_minor,sm_count,max_threads_per_sm,"
     "max_threads_per_block,regs_per_sm,smem_per_sm,l2_bytes,mem_bytes,sm_clock_khz,"
     "mem_clock_khz,mem_bus_bits,driver_version,runtime_version) VALUES",
     NULL, NULL},
    {"runs",
     "SELECT d.uuid, r.started_at, r.finished_at, r.space, r.space_hash, r.strategy, r.seed,"
     " r.backend, r.copy_gbps, r.tuner_version FROM runs r JOIN devices d ON d.id = r.device_id"
     " ORDER BY d.uuid, r.started_at",
     "INSERT OR IGNORE INTO runs(device_id,started_at,finished_at,space,space_hash,strategy,seed,"
     "backend,copy_gbps,tuner_version) VALUES",
     "(SELECT id FROM devices WHERE uuid=?),?,?,?,?,?,?,?,?,?", NULL},
    {"problems",
     "SELECT op, dtype, shape, elements, bytes, size_key FROM problems ORDER BY op, dtype, shape",
     "INSERT OR IGNORE INTO problems(op,dtype,shape,elements,bytes,size_key) VALUES", NULL, NULL},
    {"configs", "SELECT text FROM configs ORDER BY text",
     "INSERT OR IGNORE INTO configs(text) VALUES", NULL, NULL},
};
#define N_PARENT_TABLES ((int)(sizeof parent_tables / sizeof parent_tables[0]))

/* The problems of a database where some problem has flops (schema version 6): the column
 * written, and a problem already present without flops given the dump's (an upsert rather than
 * INSERT OR IGNORE; one that has flops keeps its own). Where no problem has flops the dump
 * writes parent_tables' problems, the rows of version 5: re-exporting a database of built-in
 * families gives the rows it gave before. */
static const dump_table problems_flops_table = {
    "problems",
    "SELECT op, dtype, shape, elements, bytes, size_key, flops FROM problems"
    " ORDER BY op, dtype, shape",
    "INSERT INTO problems(op,dtype,shape,elements,bytes,size_key,flops) VALUES", NULL,
    "\nON CONFLICT(op,dtype,shape) DO UPDATE SET flops=excluded.flops WHERE flops IS NULL"};

static const dump_table peers_table = {
    "peers",
    "SELECT d.uuid, p.op, p.dtype, p.shape, pe.library, pe.median_us, pe.min_us, pe.mean_us,"
    " pe.stddev_us, pe.ci_lo_us, pe.ci_hi_us, pe.n_runs, pe.gbps, pe.frac_copy, pe.copy_gbps,"
    " pe.created_at FROM peers pe JOIN devices d ON d.id = pe.device_id"
    " JOIN problems p ON p.id = pe.problem_id ORDER BY d.uuid, p.op, p.dtype, p.shape, pe.library",
    "INSERT OR IGNORE INTO peers(device_id,problem_id,library,median_us,min_us,mean_us,stddev_us,"
    "ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,copy_gbps,created_at) VALUES",
    "(SELECT id FROM devices WHERE uuid=?),(SELECT id FROM problems WHERE op=? AND dtype=? AND "
    "shape=?),?,?,?,?,?,?,?,?,?,?,?,?", NULL};

/* A playoff row names its evaluation and run by natural key (schema version 3). */
static const dump_table playoffs_table = {
    "playoffs",
    "SELECT d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash, rd.uuid, r.started_at,"
    " pl.median_us, pl.ci_lo_us, pl.ci_hi_us, pl.n_runs, pl.samples, pl.created_at"
    " FROM playoffs pl JOIN evaluations e ON e.id = pl.evaluation_id"
    " JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id"
    " JOIN configs c ON c.id = e.config_id JOIN runs r ON r.id = pl.run_id"
    " JOIN devices rd ON rd.id = r.device_id"
    " ORDER BY d.uuid, p.op, p.dtype, p.shape, c.text, e.kernel_hash",
    "INSERT OR IGNORE INTO playoffs(evaluation_id,run_id,median_us,ci_lo_us,ci_hi_us,n_runs,"
    "samples,created_at) VALUES",
    "(SELECT e.id FROM evaluations e JOIN devices d ON d.id=e.device_id JOIN problems p ON "
    "p.id=e.problem_id JOIN configs c ON c.id=e.config_id WHERE d.uuid=? AND p.op=? AND "
    "p.dtype=? AND p.shape=? AND c.text=? AND e.kernel_hash=?),(SELECT id FROM runs WHERE "
    "device_id=(SELECT id FROM devices WHERE uuid=?) AND started_at=?),?,?,?,?,?,?", NULL};

static int dump_table_rows(exporter *x, const dump_table *t)
{
    sqlite3_stmt *st = NULL;
    int rc, n = 0, ret = -1;
    if (sqlite3_prepare_v2(x->d->h, t->select, -1, &st, NULL) != SQLITE_OK) {
        db_fail(x->d, x->err, x->len, "exporting");
        goto done;
    }
    fprintf(x->out, "-- %s\n", t->name);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int col = 0;
        if (t->row) {
            fprintf(x->out, "%s(", t->head);
            if (put_template(x, t->row, st, &col) < 0)
                goto done;
            fputs(");\n", x->out);
            continue;
        }
        fputs(n ? ",\n(" : t->head, x->out);
        if (!n)
            fputs("\n(", x->out);
        for (; col < sqlite3_column_count(st); col++) {
            if (col)
                fputc(',', x->out);
            if (put_column(x, st, col) < 0)
                goto done;
        }
        fputc(')', x->out);
        if (++n == DUMP_ROWS_PER_STATEMENT) {
            fprintf(x->out, "%s;\n", t->tail ? t->tail : "");
            n = 0;
        }
    }
    if (n)
        fprintf(x->out, "%s;\n", t->tail ? t->tail : "");
    if (rc != SQLITE_DONE) {
        db_fail(x->d, x->err, x->len, "exporting");
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(st);
    return ret;
}

/* ---- evaluations and their samples ---- */

/* Evaluations in statement order: by the key a statement shares (device, problem, run, kernel
 * hash), then by config text. */
static const char eval_select[] =
    "SELECT e.id, d.uuid, rd.uuid, r.started_at, p.op, p.dtype, p.shape, e.kernel_hash,"
    " c.text, e.status, e.error, e.median_us, e.min_us, e.max_us, e.mean_us, e.stddev_us,"
    " e.ci_lo_us, e.ci_hi_us, e.gbps, e.frac_copy, e.n_runs, e.seq, e.created_at, e.energy_j,"
    " e.power_w, e.energy_window_ms, e.sm_mhz, e.mem_mhz, e.temp_c, e.throttle"
    " FROM evaluations e JOIN runs r ON r.id = e.run_id JOIN devices rd ON rd.id = r.device_id"
    " JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id"
    " JOIN configs c ON c.id = e.config_id"
    " ORDER BY d.uuid, p.op, p.dtype, p.shape, rd.uuid, r.started_at, e.kernel_hash, c.text";
#define EV_ID 0
#define EV_KEY 1          /* device, run device, run started_at, op, dtype, shape, kernel hash */
#define N_EV_KEY 7
#define EV_CONFIG 8
#define EV_STATS 11       /* median, min, max, mean, stddev, ci_lo, ci_hi, gbps, frac_copy */
#define N_EV_STATS 9
#define EV_CREATED_AT 22
#define EV_ENERGY 23      /* energy_j, power_w, window, sm_mhz, mem_mhz, temp_c, throttle */
#define N_EV_ENERGY 7

/* One evaluation waiting in a chunk. */
typedef struct eval_row {
    long head;            /* offset in the chunk's text of "'config','status',error,stats,n,seq" */
    char *created_at;     /* malloc'd */
    size_t first_sample;  /* its samples are values[first_sample .. + n_samples) */
    int n_samples;        /* -1: it has none (NULL) */
} eval_row;

/* The evaluations of one statement: same key, at most DUMP_ROWS_PER_STATEMENT of them. What
 * it holds is the chunk's own: chunk_clear frees the rows, chunk_free everything. */
typedef struct eval_chunk {
    char *key[N_EV_KEY];  /* malloc'd; key[0] NULL while the chunk is empty */
    eval_row *rows;
    int n, cap;
    FILE *text;           /* the rows' heads, each ended by a NUL */
    char *text_buf;
    size_t text_len;
    double *values;       /* every sample of the chunk, row after row */
    size_t n_values, cap_values;
    double *dict;         /* the distinct values, sorted (filled by flush) */
    size_t n_dict;
} eval_chunk;

static void chunk_clear(eval_chunk *c)
{
    for (int k = 0; k < N_EV_KEY; k++) {
        free(c->key[k]);
        c->key[k] = NULL;
    }
    for (int i = 0; i < c->n; i++)
        free(c->rows[i].created_at);
    c->n = 0;
    c->n_values = 0;
    if (c->text)
        fclose(c->text);
    c->text = NULL;
    free(c->text_buf);
    c->text_buf = NULL;
    c->text_len = 0;
}

static void chunk_free(eval_chunk *c)
{
    chunk_clear(c);
    free(c->rows);
    free(c->values);
    free(c->dict);
}

static int same_key(const eval_chunk *c, sqlite3_stmt *ev)
{
    for (int k = 0; k < N_EV_KEY; k++)
        if (strcmp(c->key[k], (const char *)sqlite3_column_text(ev, EV_KEY + k)) != 0)
            return 0;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The row head: 'config','status',error,'[stats]' (NULL when all are NULL; the energy after
 * the statistics only when the row has some, so a row without reads as version 6 wrote it),
 * n_runs,seq. */
static int put_row_head(exporter *x, sqlite3_stmt *ev)
{
    int any = 0, energy = 0;
    for (int k = 0; k < N_EV_STATS; k++)
        any |= sqlite3_column_type(ev, EV_STATS + k) != SQLITE_NULL;
    for (int k = 0; k < N_EV_ENERGY; k++)
        energy |= sqlite3_column_type(ev, EV_ENERGY + k) != SQLITE_NULL;
    any |= energy;
    for (int col = EV_CONFIG; col < EV_STATS; col++) {
        if (put_column(x, ev, col) < 0)
            return -1;
        fputc(',', x->out);
    }
    fputs(any ? "'[" : "NULL", x->out);
    for (int k = 0; any && k < N_EV_STATS + (energy ? N_EV_ENERGY : 0); k++) {
        int col = k < N_EV_STATS ? EV_STATS + k : EV_ENERGY + k - N_EV_STATS;
        if (k)
            fputc(',', x->out);
        switch (sqlite3_column_type(ev, col)) {
        case SQLITE_NULL:
            fputs("null", x->out);
            break;
        case SQLITE_INTEGER:
            fprintf(x->out, "%lld", (long long)sqlite3_column_int64(ev, col));
            break;
        case SQLITE_FLOAT:
            if (put_json_real(x, sqlite3_column_double(ev, col)) < 0)
                return -1;
            break;
        default:
            return db_errf(x->d, x->err, x->len, "exporting: evaluation %lld has a statistic "
                           "that is not a number (run tuner db check)",
                           (long long)sqlite3_column_int64(ev, EV_ID));
        }
    }
    if (any)
        fputs("]'", x->out);
    for (int col = EV_STATS + N_EV_STATS; col < EV_CREATED_AT; col++) {
        fputc(',', x->out);
        if (put_column(x, ev, col) < 0)
            return -1;
    }
    return 0;
}

/* Appends the samples of evaluation id to c->values; *n is their count, -1 when none. */
static int read_samples(exporter *x, sqlite3_stmt *sm, int64_t id, eval_chunk *c, int *n)
{
    int rc;
    *n = 0;
    sqlite3_reset(sm);
    sqlite3_bind_int64(sm, 1, id);
    while ((rc = sqlite3_step(sm)) == SQLITE_ROW) {
        int type = sqlite3_column_type(sm, 1);
        if (sqlite3_column_int64(sm, 0) != *n)
            return db_errf(x->d, x->err, x->len, "exporting samples: evaluation %lld has sample "
                           "idx %lld where %d belongs (run tuner db check)", (long long)id,
                           (long long)sqlite3_column_int64(sm, 0), *n);
        if (type != SQLITE_FLOAT && type != SQLITE_INTEGER)
            return db_errf(x->d, x->err, x->len, "exporting samples: evaluation %lld has a "
                           "sample that is not a number (run tuner db check)", (long long)id);
        if (c->n_values == c->cap_values) {
            size_t cap = c->cap_values ? 2 * c->cap_values : 4096;
            double *p = realloc(c->values, cap * sizeof *p);
            if (!p)
                return db_errf(x->d, x->err, x->len, "exporting samples: out of memory");
            c->values = p;
            c->cap_values = cap;
        }
        c->values[c->n_values++] = sqlite3_column_double(sm, 1);
        ++*n;
    }
    if (rc != SQLITE_DONE)
        return db_fail(x->d, x->err, x->len, "exporting samples");
    if (*n == 0)
        *n = -1;
    sqlite3_reset(sm);
    return 0;
}

/* Adds the evaluation ev is on to c (which is empty or has its key). */
static int chunk_add(exporter *x, eval_chunk *c, sqlite3_stmt *ev, sqlite3_stmt *sm)
{
    FILE *out = x->out;
    eval_row *r;
    int ret;
    if (!c->key[0]) {
        for (int k = 0; k < N_EV_KEY; k++)
            if (!(c->key[k] = strdup((const char *)sqlite3_column_text(ev, EV_KEY + k))))
                return db_errf(x->d, x->err, x->len, "exporting: out of memory");
        if (!(c->text = open_memstream(&c->text_buf, &c->text_len)))
            return db_errf(x->d, x->err, x->len, "exporting: out of memory");
    }
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        eval_row *p = realloc(c->rows, (size_t)cap * sizeof *p);
        if (!p)
            return db_errf(x->d, x->err, x->len, "exporting: out of memory");
        c->rows = p;
        c->cap = cap;
    }
    r = &c->rows[c->n];
    r->head = ftell(c->text);
    r->first_sample = c->n_values;
    if (!(r->created_at = strdup((const char *)sqlite3_column_text(ev, EV_CREATED_AT))))
        return db_errf(x->d, x->err, x->len, "exporting: out of memory");
    c->n++;
    x->out = c->text;
    ret = put_row_head(x, ev);
    fputc(0, c->text);
    x->out = out;
    if (ret < 0)
        return -1;
    return read_samples(x, sm, sqlite3_column_int64(ev, EV_ID), c, &r->n_samples);
}

/* Length of the longest common prefix of the rows' created_at, cut at a UTF-8 boundary. */
static size_t created_at_prefix(const eval_chunk *c)
{
    const char *first = c->rows[0].created_at;
    size_t n = strlen(first);
    for (int i = 1; i < c->n; i++) {
        const char *s = c->rows[i].created_at;
        size_t k = 0;
        while (k < n && s[k] == first[k])
            k++;
        n = k;
    }
    while (n > 0 && ((unsigned char)first[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/* Writes the chunk as one INSERT INTO dump_evaluations and empties it. */
static int chunk_flush(exporter *x, eval_chunk *c)
{
    size_t prefix;
    if (!c->key[0])
        return 0;
    if (fflush(c->text) != 0)
        return db_errf(x->d, x->err, x->len, "exporting: out of memory");
    /* the dictionary: the chunk's distinct sample values, ascending */
    free(c->dict);
    c->n_dict = 0;
    if (!(c->dict = malloc((c->n_values ? c->n_values : 1) * sizeof *c->dict)))
        return db_errf(x->d, x->err, x->len, "exporting: out of memory");
    if (c->n_values)
        memcpy(c->dict, c->values, c->n_values * sizeof *c->dict);
    qsort(c->dict, c->n_values, sizeof *c->dict, cmp_double);
    for (size_t i = 0; i < c->n_values; i++)
        if (c->n_dict == 0 || c->dict[c->n_dict - 1] != c->dict[i])
            c->dict[c->n_dict++] = c->dict[i];

    fputs(db_dump_insert_head, x->out);
    for (int k = 0; k < N_EV_KEY; k++) {
        put_cstr(x->out, c->key[k]);
        fputc(',', x->out);
    }
    fputs("'[", x->out);
    for (size_t i = 0; i < c->n_dict; i++) {
        if (i)
            fputc(',', x->out);
        if (put_json_real(x, c->dict[i]) < 0)
            return -1;
    }
    fputs("]',", x->out);
    prefix = created_at_prefix(c);
    put_text(x->out, c->rows[0].created_at, prefix);
    fputs(",v.* FROM (VALUES", x->out);
    for (int i = 0; i < c->n; i++) {
        const eval_row *r = &c->rows[i];
        fprintf(x->out, "%s\n(%s,", i ? "," : "", c->text_buf + r->head);
        put_cstr(x->out, r->created_at + prefix);
        if (r->n_samples < 0) {
            fputs(",NULL)", x->out);
            continue;
        }
        fputs(",'[", x->out);
        for (int k = 0; k < r->n_samples; k++) {
            const double *v = bsearch(&c->values[r->first_sample + (size_t)k], c->dict,
                                      c->n_dict, sizeof *c->dict, cmp_double);
            fprintf(x->out, "%s%ld", k ? "," : "", (long)(v - c->dict));
        }
        fputs("]')", x->out);
    }
    fputs("\n) v;\n", x->out);
    chunk_clear(c);
    return 0;
}

static int dump_evaluations(exporter *x)
{
    sqlite3_stmt *ev = NULL, *sm = NULL;
    eval_chunk c;
    int rc, ret = -1;
    memset(&c, 0, sizeof c);
    if (sqlite3_prepare_v2(x->d->h, eval_select, -1, &ev, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(x->d->h, "SELECT idx, us FROM samples WHERE evaluation_id = ?1 "
                           "ORDER BY idx", -1, &sm, NULL) != SQLITE_OK) {
        db_fail(x->d, x->err, x->len, "exporting evaluations");
        goto done;
    }
    fprintf(x->out, "-- evaluations and their samples\n%s\n%s\n", db_dump_view_sql, db_dump_trigger_sql);
    while ((rc = sqlite3_step(ev)) == SQLITE_ROW) {
        if (c.key[0] && (c.n == DUMP_ROWS_PER_STATEMENT || !same_key(&c, ev)) &&
            chunk_flush(x, &c) < 0)
            goto done;
        if (chunk_add(x, &c, ev, sm) < 0)
            goto done;
    }
    if (rc != SQLITE_DONE) {
        db_fail(x->d, x->err, x->len, "exporting evaluations");
        goto done;
    }
    if (chunk_flush(x, &c) < 0)
        goto done;
    fprintf(x->out, "%s\n", db_dump_drop_sql);
    ret = 0;
done:
    chunk_free(&c);
    sqlite3_finalize(sm);
    sqlite3_finalize(ev);
    return ret;
}

/* 1 when some problem has flops, 0 when none has, -1 on error. */
static int has_flops(db *d)
{
    sqlite3_stmt *st = NULL;
    int ret = -1;
    if (sqlite3_prepare_v2(d->h, "SELECT EXISTS (SELECT 1 FROM problems WHERE flops IS NOT NULL)",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        ret = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return ret;
}

int db_export(db *d, FILE *out, char *err, size_t len)
{
    exporter x = {d, out, NULL, NULL, err, len};
    int ret = -1;
    /* One read transaction: the dump is a consistent snapshot even while a run writes. */
    if (db_exec(d, "BEGIN", err, len) < 0)
        return -1;
    if (sqlite3_prepare_v2(d->h, "SELECT CAST(?1 AS REAL)", -1, &x.as_literal, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(d->h, "SELECT json_extract(?1,'$')", -1, &x.as_json, NULL) !=
            SQLITE_OK) {
        db_fail(d, err, len, "exporting");
        goto done;
    }
    fprintf(out, DB_DUMP_HEADER "%d\n", DB_SCHEMA_VERSION);
    fputs("-- Rows are sorted by natural key and refer to each other by natural key (no local ids)."
          "\n-- Load with `sqlite3 new.db < FILE` or `tuner db import FILE`.\n", out);
    fputs(schema_sql, out);
    fprintf(out, "PRAGMA user_version = %d;\nBEGIN;\n", DB_SCHEMA_VERSION);
    int flops = has_flops(d);
    if (flops < 0) {
        db_fail(d, err, len, "exporting");
        goto done;
    }
    for (int i = 0; i < N_PARENT_TABLES; i++) {
        const dump_table *t = &parent_tables[i];
        if (flops && strcmp(t->name, "problems") == 0)
            t = &problems_flops_table;
        if (dump_table_rows(&x, t) < 0)
            goto done;
    }
    if (dump_evaluations(&x) < 0 || dump_table_rows(&x, &peers_table) < 0 ||
        dump_table_rows(&x, &playoffs_table) < 0)
        goto done;
    fputs("COMMIT;\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        db_errf(d, err, len, "exporting: cannot write the dump");
        goto done;
    }
    ret = 0;
done:
    sqlite3_finalize(x.as_literal);
    sqlite3_finalize(x.as_json);
    db_rollback(d);
    return ret;
}

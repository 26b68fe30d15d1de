/* db_dump.c: the deterministic SQL text dump (db_export) and loading one back (db_import).
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
#include "db_xz.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_sql.h"

#define DUMP_HEADER "-- tunekit dump, schema version "
/* Evaluations (or devices, problems, configs) per INSERT: bounds a statement's size. */
#define DUMP_ROWS_PER_STATEMENT 1000

/* ---- the evaluations' temporary view ---- */

static const char eval_view_sql[] =
    "CREATE TEMP VIEW dump_evaluations(device,run_device,run_started_at,op,dtype,shape,"
    "kernel_hash,sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,"
    "created_at_rest,samples) AS SELECT NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,"
    "NULL,NULL,NULL,NULL,NULL,NULL WHERE 0;";

/* stats is [median,min,max,mean,stddev,ci_lo,ci_hi,gbps,frac_copy] (or NULL), followed, for a
 * row with energy (schema version 7), by [energy_j,power_w,energy_window_ms,sm_mhz,mem_mhz,
 * temp_c,throttle]; samples is a JSON array of indexes into sample_values. The trigger's head
 * and its first statement (the evaluation) are shared with the trigger of a summary import
 * (DB_IMPORT_NO_SAMPLES), which leaves out the second (the samples). */
#define EVAL_TRIGGER_HEAD                                                                       \
    "CREATE TEMP TRIGGER dump_evaluations_insert INSTEAD OF INSERT ON dump_evaluations BEGIN\n"
#define EVAL_TRIGGER_COLUMNS                                                                    \
    "INSERT OR IGNORE INTO evaluations(run_id,device_id,problem_id,config_id,kernel_hash,status,"  \
    "error,median_us,min_us,max_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,seq," \
    "created_at"
#define EVAL_TRIGGER_VALUES                                                                     \
    " SELECT r.id,d.id,p.id,c.id,NEW.kernel_hash,NEW.status,NEW.error,"                          \
    "json_extract(NEW.stats,'$[0]'),json_extract(NEW.stats,'$[1]'),"                             \
    "json_extract(NEW.stats,'$[2]'),json_extract(NEW.stats,'$[3]'),"                             \
    "json_extract(NEW.stats,'$[4]'),json_extract(NEW.stats,'$[5]'),"                             \
    "json_extract(NEW.stats,'$[6]'),NEW.n_runs,json_extract(NEW.stats,'$[7]'),"                  \
    "json_extract(NEW.stats,'$[8]'),NEW.seq,NEW.created_at_prefix||NEW.created_at_rest"
#define EVAL_TRIGGER_FROM                                                                       \
    " FROM devices d,devices rd,runs r,problems p,configs c WHERE d.uuid=NEW.device AND "        \
    "rd.uuid=NEW.run_device AND r.device_id=rd.id AND r.started_at=NEW.run_started_at AND "      \
    "p.op=NEW.op AND p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config;\n"
/* The energy after the statistics (a row without it has nine: NULLs) */
#define EVAL_TRIGGER_EVALUATION                                                                 \
    EVAL_TRIGGER_COLUMNS ",energy_j,power_w,energy_window_ms,sm_mhz,mem_mhz,temp_c,throttle)"     \
    EVAL_TRIGGER_VALUES ",json_extract(NEW.stats,'$[9]'),json_extract(NEW.stats,'$[10]'),"       \
    "json_extract(NEW.stats,'$[11]'),json_extract(NEW.stats,'$[12]'),"                           \
    "json_extract(NEW.stats,'$[13]'),json_extract(NEW.stats,'$[14]'),"                           \
    "json_extract(NEW.stats,'$[15]')" EVAL_TRIGGER_FROM
/* The trigger's evaluation as dumps of schema versions 1 to 6 wrote it (no energy): such a dump's
 * trigger is recognised and replaced by this version's, which reads its rows alike. */
#define EVAL_TRIGGER_EVALUATION_V6                                                              \
    EVAL_TRIGGER_COLUMNS ") SELECT r.id,d.id,p.id,c.id,NEW.kernel_hash,NEW.status,NEW.error,"     \
    "json_extract(NEW.stats,'$[0]'),json_extract(NEW.stats,'$[1]'),"                             \
    "json_extract(NEW.stats,'$[2]'),json_extract(NEW.stats,'$[3]'),"                             \
    "json_extract(NEW.stats,'$[4]'),json_extract(NEW.stats,'$[5]'),"                             \
    "json_extract(NEW.stats,'$[6]'),NEW.n_runs,json_extract(NEW.stats,'$[7]'),"                  \
    "json_extract(NEW.stats,'$[8]'),NEW.seq,NEW.created_at_prefix||NEW.created_at_rest "         \
    "FROM devices d,devices rd,runs r,problems p,configs c WHERE d.uuid=NEW.device AND "         \
    "rd.uuid=NEW.run_device AND r.device_id=rd.id AND r.started_at=NEW.run_started_at AND "      \
    "p.op=NEW.op AND p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config;\n"
#define EVAL_TRIGGER_SAMPLES                                                                    \
    "INSERT OR IGNORE INTO samples(evaluation_id,idx,us) SELECT e.id,j.key,"                     \
    "json_extract(NEW.sample_values,'$['||j.value||']') FROM devices d,problems p,configs c,"     \
    "evaluations e,json_each(NEW.samples) j WHERE d.uuid=NEW.device AND p.op=NEW.op AND "        \
    "p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config AND e.device_id=d.id AND "    \
    "e.problem_id=p.id AND e.config_id=c.id AND e.kernel_hash=NEW.kernel_hash AND "              \
    "e.created_at=NEW.created_at_prefix||NEW.created_at_rest AND NOT EXISTS (SELECT 1 FROM "     \
    "samples s WHERE s.evaluation_id=e.id);\n"

static const char eval_trigger_sql[] =
    EVAL_TRIGGER_HEAD EVAL_TRIGGER_EVALUATION EVAL_TRIGGER_SAMPLES "END;";
static const char eval_trigger_no_samples_sql[] =
    EVAL_TRIGGER_HEAD EVAL_TRIGGER_EVALUATION "END;";
static const char eval_trigger_v6_sql[] =
    EVAL_TRIGGER_HEAD EVAL_TRIGGER_EVALUATION_V6 EVAL_TRIGGER_SAMPLES "END;";

static const char eval_drop_sql[] = "DROP VIEW dump_evaluations;";

static const char eval_insert_head[] =
    "INSERT INTO dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,"
    "sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,"
    "samples) SELECT ";

/* The statements besides INSERTs that db_import runs: exactly these (up to white space; the
 * trigger of an older dump as this version's, is_dump_trigger). */
static const char *const dump_temp_sql[] = {eval_view_sql, eval_trigger_sql, eval_trigger_v6_sql,
                                            eval_drop_sql};
#define N_DUMP_TEMP_SQL ((int)(sizeof dump_temp_sql / sizeof dump_temp_sql[0]))

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

    fputs(eval_insert_head, x->out);
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
    fprintf(x->out, "-- evaluations and their samples\n%s\n%s\n", eval_view_sql, eval_trigger_sql);
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
    fprintf(x->out, "%s\n", eval_drop_sql);
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
    fprintf(out, DUMP_HEADER "%d\n", DB_SCHEMA_VERSION);
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
/* ---- import ---- */

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
    for (int i = 0; i < N_DUMP_TEMP_SQL; i++)
        if (same_sql(sql, n, dump_temp_sql[i]))
            return 1;
    return 0;
}

/* 1 when the statement is the evaluations' trigger of this version's export or of an older
 * one's (versions 1 to 6, without the energy). */
static int is_dump_trigger(const char *sql, size_t n)
{
    return same_sql(sql, n, eval_trigger_sql) || same_sql(sql, n, eval_trigger_v6_sql);
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

/* 1 when a statement of dump_evaluations rows (eval_insert_head ...) is of another kernel than
 * `kernel`: its fourth value is the op, "KERNEL.op". 0 when it is of the kernel or when the
 * statement is not one of those. */
static int other_kernel_rows(const char *sql, size_t n, const char *kernel)
{
    size_t head = strlen(eval_insert_head), at = head;
    if (n <= head || !same_sql(sql, head, eval_insert_head)) return 0;
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
                sql = (flags & DB_IMPORT_NO_SAMPLES) ? eval_trigger_no_samples_sql
                                                     : eval_trigger_sql;
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

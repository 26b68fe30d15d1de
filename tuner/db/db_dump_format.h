/* db_dump_format.h: what the dump's writer (db_export.c) and reader (db_import.c) must agree on:
 * the header line and the dump's own SQL texts (db_dump_format.c). */
#pragma once

/* The dump's first line, followed by the schema version. */
#define DB_DUMP_HEADER "-- tunekit dump, schema version "

/* CREATE TEMP VIEW dump_evaluations(...): the rows a dump's evaluation statements insert into. */
extern const char db_dump_view_sql[];
/* Its INSTEAD OF trigger: the evaluation and its samples, resolved by natural keys. */
extern const char db_dump_trigger_sql[];
/* The same trigger without the samples (a summary import, DB_IMPORT_NO_SAMPLES). */
extern const char db_dump_trigger_no_samples_sql[];
/* The trigger as dumps of schema versions 1 to 6 wrote it (no energy), run as this version's. */
extern const char db_dump_trigger_v6_sql[];
/* DROP VIEW dump_evaluations; */
extern const char db_dump_drop_sql[];
/* "INSERT INTO dump_evaluations(...) SELECT ": how a statement of evaluation rows begins. */
extern const char db_dump_insert_head[];
/* The statements besides INSERTs that db_import runs: exactly these (up to white space). */
#define DB_DUMP_N_TEMP_SQL 4
extern const char *const db_dump_temp_sql[DB_DUMP_N_TEMP_SQL];

/* db_dump_format.c: the SQL of its own that a text dump holds, written by db_export (db_export.c)
 * and recognised by db_import (db_import.c): the evaluations' temporary view, its INSTEAD OF
 * trigger (this version's; the one without samples that a summary import runs instead; the one
 * that dumps of schema versions 1 to 6 wrote), the view's DROP, and the head of a statement of
 * evaluation rows. The format as a whole is described at the top of db_export.c. */
#include "db_dump_format.h"

const char db_dump_view_sql[] =
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

const char db_dump_trigger_sql[] =
    EVAL_TRIGGER_HEAD EVAL_TRIGGER_EVALUATION EVAL_TRIGGER_SAMPLES "END;";
const char db_dump_trigger_no_samples_sql[] =
    EVAL_TRIGGER_HEAD EVAL_TRIGGER_EVALUATION "END;";
const char db_dump_trigger_v6_sql[] =
    EVAL_TRIGGER_HEAD EVAL_TRIGGER_EVALUATION_V6 EVAL_TRIGGER_SAMPLES "END;";

const char db_dump_drop_sql[] = "DROP VIEW dump_evaluations;";

const char db_dump_insert_head[] =
    "INSERT INTO dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,"
    "sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,"
    "samples) SELECT ";

/* The statements besides INSERTs that db_import runs: exactly these (up to white space; the
 * trigger of an older dump as this version's, is_dump_trigger). */
const char *const db_dump_temp_sql[] = {db_dump_view_sql, db_dump_trigger_sql,
                                        db_dump_trigger_v6_sql, db_dump_drop_sql};
_Static_assert(sizeof db_dump_temp_sql / sizeof db_dump_temp_sql[0] == DB_DUMP_N_TEMP_SQL,
               "db_dump_format.h counts the statements");

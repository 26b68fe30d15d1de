/* db_peers.c: queries over the `peers` table (see db_peers.h). */
#include "db_peers.h"

#include <sqlite3.h>
#include <stdio.h>

int db_find_peer(db *d, const char *device_uuid, const char *op, const char *dtype,
                 const char *shape, double *median_us, char *library, size_t len)
{
    static const char *sql =
        "SELECT pe.median_us, pe.library FROM peers pe "
        "JOIN devices dv ON dv.id = pe.device_id JOIN problems p ON p.id = pe.problem_id "
        "WHERE dv.uuid = ?1 AND p.op = ?2 AND p.dtype = ?3 AND p.shape = ?4 "
        "ORDER BY pe.median_us, pe.library LIMIT 1";
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_text(st, 1, device_uuid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, dtype, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, shape, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        *median_us = sqlite3_column_double(st, 0);
        snprintf(library, len, "%s", (const char *)sqlite3_column_text(st, 1));
        rc = 1;
    } else if (s == SQLITE_DONE) {
        rc = 0;
    }
done:
    sqlite3_finalize(st);
    return rc;
}

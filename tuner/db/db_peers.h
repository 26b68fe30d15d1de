/* db_peers.h: reading the reference-library times (the `peers` table that scripts/peers.py
 * fills) beside tunekit's own, for `tuner best --compare` and reports. */
#pragma once
#include <stddef.h>
#include "db.h"

/* The fastest peer time recorded for a device (uuid) and problem. Returns 1 with *median_us and
 * library filled, 0 when none is recorded, -1 on a database error. */
int db_find_peer(db *d, const char *device_uuid, const char *op, const char *dtype,
                 const char *shape, double *median_us, char *library, size_t len);

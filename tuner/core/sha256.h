/* sha256.h: SHA-256 of a byte buffer as lowercase hex (FIPS 180-4), for the identity of space
 * files in the database (space.sha256, runs.space_hash). No allocation. */
#pragma once
#include <stddef.h>

/* Writes the 64 hex digits and a NUL to hex[65]. */
void sha256_hex(const void *data, size_t len, char hex[65]);

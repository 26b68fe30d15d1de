/* db_xz.h: the compressed form of a dump. A committed dump (db/results/<gpu-model>.sql.xz) is
 * the dump's SQL text in one .xz stream: written by `tuner db export -o X.sql.xz`, read back by
 * every reader of a dump, and turned into the diffable text by `xzcat`. The encoder settings are
 * fixed (xz preset 9e, CRC64 check, one thread, and the .xz format has no timestamp or file
 * name), so the same text always compresses to the same bytes: `xz -9e -T1` writes them too. */
#pragma once
#include <stddef.h>

/* 1 when path names a compressed dump (ends in ".xz"). */
int db_xz_path(const char *path);

/* Compresses text[0..n) into a new buffer *out of *out_n bytes (the caller frees).
 * Returns 0, or -1 with err. */
int db_xz_compress(const char *text, size_t n, char **out, size_t *out_n, char *err, size_t len);

/* Reads the dump file path whole into a NUL-terminated buffer (the caller frees), decompressing
 * it when it is an .xz stream (by its magic bytes; a name ending in ".xz" must be one). *n (n
 * may be NULL) gets the text's length. NULL with a one-line err ("dump 'PATH': ...") when the
 * file cannot be read, its .xz data is truncated or corrupt, or the text holds a NUL byte. */
char *db_read_dump_text(const char *path, size_t *n, char *err, size_t len);

/* files.h: the file-system helpers the tuner and libtunekit share: a whole small file into
 * memory (sources, compile-cache entries, logs, headers to compare) and a folder with its
 * parents. */
#ifndef TUNEKIT_FILES_H
#define TUNEKIT_FILES_H

#include <stddef.h>

/* path's bytes, malloc'd and NUL-terminated (*n their count, when n is not NULL); NULL when it
 * cannot be opened (errno says why) or memory runs out. */
char *file_read(const char *path, size_t *n);

/* mkdir -p: path and every missing folder above it. 0, or -1 with errno. */
int make_dirs(const char *path);

#endif

/* fuzz.h: what the libFuzzer targets of tests/fuzz/ share. fuzz_path hands a target's input to
 * the loaders that read a file by path (space_load, db_import), through one memory file per
 * process (memfd, named /proc/self/fd/N), so no target writes to the disk; FUZZ_ASSERT aborts with
 * the broken property, which libFuzzer records as a crash with the input that broke it. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_ASSERT(cond, ...)                                                              \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "fuzz: property broken at %s:%d: %s: ", __FILE__, __LINE__,     \
                    #cond);                                                                 \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

/* The input as the contents of a file; returns its path (static storage). */
static inline const char *fuzz_path(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-input", 0);
        FUZZ_ASSERT(fd >= 0, "memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_ASSERT(ftruncate(fd, 0) == 0, "ftruncate failed");
    FUZZ_ASSERT(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size, "pwrite failed");
    return path;
}

/* The input as a NUL-terminated string (cut at its first NUL byte); the caller frees. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_ASSERT(s, "out of memory");
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* An error message is one non-empty line. */
static inline void fuzz_one_line(const char *what, const char *err)
{
    FUZZ_ASSERT(err[0] != 0, "%s: empty error message", what);
    FUZZ_ASSERT(strchr(err, '\n') == NULL, "%s: error message of several lines: %s", what, err);
}

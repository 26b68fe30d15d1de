/* db_xz.c: a dump's compressed form (.xz through liblzma) and reading a dump file whole,
 * compressed or not. The encoder is liblzma's single-threaded stream encoder at a fixed preset,
 * so its output depends on the text alone (db_xz.h). */
#include "db_xz.h"

#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XZ_PRESET (9 | LZMA_PRESET_EXTREME)

static const unsigned char xz_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};

int db_xz_path(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".xz") == 0;
}

int db_xz_compress(const char *text, size_t n, char **out, size_t *out_n, char *err, size_t len)
{
    lzma_stream s = LZMA_STREAM_INIT;
    size_t cap = lzma_stream_buffer_bound(n);
    unsigned char *buf;
    lzma_ret r;
    *out = NULL;
    *out_n = 0;
    if (cap == 0 || !(buf = malloc(cap))) {
        snprintf(err, len, "compressing the dump: out of memory");
        return -1;
    }
    r = lzma_easy_encoder(&s, XZ_PRESET, LZMA_CHECK_CRC64);
    if (r != LZMA_OK) {
        free(buf);
        snprintf(err, len, "compressing the dump: %s", r == LZMA_MEM_ERROR ? "out of memory"
                                                                          : "liblzma refused the "
                                                                            "xz -9e settings");
        return -1;
    }
    s.next_in = (const uint8_t *)text;
    s.avail_in = n;
    s.next_out = buf;
    s.avail_out = cap;
    /* the bound holds the whole stream, so one pass reaches its end */
    while ((r = lzma_code(&s, LZMA_FINISH)) == LZMA_OK)
        ;
    if (r != LZMA_STREAM_END) {
        lzma_end(&s);
        free(buf);
        snprintf(err, len, "compressing the dump: %s",
                 r == LZMA_MEM_ERROR ? "out of memory" : "liblzma failed");
        return -1;
    }
    *out = (char *)buf;
    *out_n = (size_t)s.total_out;
    lzma_end(&s);
    return 0;
}

/* The largest dump text read (a committed dump is tens of MB), and the most memory the .xz
 * decoder may take (xz -9e needs 65 MiB): past either, a clear error rather than a machine out
 * of memory. */
#define DUMP_MAX_BYTES ((size_t)1 << 30)
#define XZ_MEMLIMIT ((uint64_t)256 << 20)

/* Reads the file whole; NULL with err. */
static unsigned char *read_whole(const char *path, size_t *n, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0;
    *n = 0;
    if (!f) {
        snprintf(err, len, "dump '%s': cannot open", path);
        return NULL;
    }
    /* a regular file's size sizes the buffer (one read, no 1 MiB for a small file); a pipe or
     * a file that grows is read on in 64 KiB steps */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size <= DUMP_MAX_BYTES) {
        cap = (size_t)st.st_size + 65537;
        if (!(buf = malloc(cap))) {
            snprintf(err, len, "dump '%s': out of memory", path);
            goto fail;
        }
    }
    for (;;) {
        if (*n > DUMP_MAX_BYTES) {
            snprintf(err, len, "dump '%s': larger than %zu MiB (not a dump?)", path,
                     DUMP_MAX_BYTES >> 20);
            goto fail;
        }
        if (cap - *n < 65536) {
            size_t ncap = cap ? 2 * cap : 65536 * 2;
            unsigned char *p = realloc(buf, ncap);
            if (!p) {
                snprintf(err, len, "dump '%s': out of memory", path);
                goto fail;
            }
            buf = p;
            cap = ncap;
        }
        size_t got = fread(buf + *n, 1, cap - *n - 1, f);
        *n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, len, "dump '%s': read error", path);
        goto fail;
    }
    buf[*n] = 0;
    fclose(f);
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

static const char *xz_error(lzma_ret r)
{
    switch (r) {
    case LZMA_BUF_ERROR:
        return "truncated .xz data (the file ends inside its .xz stream)";
    case LZMA_DATA_ERROR:
    case LZMA_FORMAT_ERROR:
        return "corrupt .xz data (damaged or altered: run xz -t on it)";
    case LZMA_OPTIONS_ERROR:
        return ".xz data with options this liblzma does not support";
    case LZMA_MEM_ERROR:
        return "out of memory while decompressing";
    case LZMA_MEMLIMIT_ERROR:
        return ".xz data that needs more than 256 MiB of memory to decompress";
    default:
        return "cannot decompress the .xz data";
    }
}

/* Decompresses in[0..n) (one or more concatenated .xz streams, as xzcat reads them) into a
 * NUL-terminated buffer; NULL with err. */
static char *xz_decompress(const char *path, const unsigned char *in, size_t n, size_t *out_n,
                           char *err, size_t len)
{
    lzma_stream s = LZMA_STREAM_INIT;
    unsigned char *buf = NULL;
    size_t cap = 0;
    lzma_ret r = lzma_stream_decoder(&s, XZ_MEMLIMIT, LZMA_CONCATENATED);
    if (r != LZMA_OK) {
        snprintf(err, len, "dump '%s': %s", path, xz_error(r));
        return NULL;
    }
    s.next_in = in;
    s.avail_in = n;
    do {
        if (s.avail_out == 0) {
            size_t used = (size_t)s.total_out, ncap = cap ? 2 * cap : 8 * n + 65536;
            if (used > DUMP_MAX_BYTES) {
                lzma_end(&s);
                free(buf);
                snprintf(err, len, "dump '%s': decompresses to more than %zu MiB (not a dump?)",
                         path, DUMP_MAX_BYTES >> 20);
                return NULL;
            }
            unsigned char *p = realloc(buf, ncap);
            if (!p) {
                r = LZMA_MEM_ERROR;
                break;
            }
            buf = p;
            cap = ncap;
            s.next_out = buf + used;
            s.avail_out = cap - 1 - used;   /* room for the terminating NUL */
        }
        r = lzma_code(&s, LZMA_FINISH);
    } while (r == LZMA_OK);
    if (r != LZMA_STREAM_END) {
        lzma_end(&s);
        free(buf);
        snprintf(err, len, "dump '%s': %s", path, xz_error(r));
        return NULL;
    }
    *out_n = (size_t)s.total_out;
    buf[*out_n] = 0;
    lzma_end(&s);
    return (char *)buf;
}

char *db_read_dump_text(const char *path, size_t *n, char *err, size_t len)
{
    size_t raw_n, text_n;
    unsigned char *raw = read_whole(path, &raw_n, err, len);
    char *text;
    if (!raw)
        return NULL;
    if (raw_n < sizeof xz_magic || memcmp(raw, xz_magic, sizeof xz_magic) != 0) {
        if (db_xz_path(path)) {
            free(raw);
            snprintf(err, len, "dump '%s': not an .xz file (it lacks the .xz magic bytes)", path);
            return NULL;
        }
        text = (char *)raw;
        text_n = raw_n;
    } else {
        text = xz_decompress(path, raw, raw_n, &text_n, err, len);
        free(raw);
        if (!text)
            return NULL;
    }
    /* the importer reads up to the first NUL: one inside would end the dump silently */
    if (strlen(text) != text_n) {
        snprintf(err, len, "dump '%s': holds a NUL byte at offset %zu (not SQL text)", path,
                 strlen(text));
        free(text);
        return NULL;
    }
    if (n)
        *n = text_n;
    return text;
}

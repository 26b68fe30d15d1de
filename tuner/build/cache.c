/* cache.c: the compile cache's folder, keys and entries (cache.h). */
#include "cache.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/files.h"
#include "core/sha256.h"

void cache_dir(char *out, size_t len)
{
    const char *v;
    if ((v = getenv("TUNEKIT_CACHE")) && *v)
        snprintf(out, len, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && *v)
        snprintf(out, len, "%s/tunekit/cubin", v);
    else if ((v = getenv("HOME")) && *v)
        snprintf(out, len, "%s/.cache/tunekit/cubin", v);
    else
        snprintf(out, len, ".tunekit-cache/cubin");
}

int cache_make_dir(const char *path, char *err, size_t len)
{
    if (make_dirs(path) != 0) {
        snprintf(err, len, "compile cache %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Appends s and a NUL to a growing buffer. */
static int key_add(char **buf, size_t *n, size_t *cap, const char *s, size_t k)
{
    if (*n + k + 1 > *cap) {
        size_t c = (*n + k + 1) * 2 + 256;
        char *p = realloc(*buf, c);
        if (!p)
            return -1;
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *n, s, k);
    (*buf)[*n + k] = 0;
    *n += k + 1;
    return 0;
}

static int key_str(char **buf, size_t *n, size_t *cap, const char *s)
{
    return key_add(buf, n, cap, s, strlen(s));
}

int cache_key(const cache_compile *c, char key[65])
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    /* the entry's format: -3 added the kernels' launch bounds to the meta file (an entry
     * without them would let a config past __launch_bounds__ through to the GPU) */
    int bad = key_str(&buf, &n, &cap, "tunekit-cubin-3") || key_str(&buf, &n, &cap, c->compiler) ||
              key_str(&buf, &n, &cap, c->version) || key_str(&buf, &n, &cap, c->arch) ||
              key_str(&buf, &n, &cap, c->digest) || key_str(&buf, &n, &cap, "|kernels");
    for (int i = 0; !bad && i < c->n_kernels; i++)
        bad = key_str(&buf, &n, &cap, c->kernels[i]);
    bad = bad || key_str(&buf, &n, &cap, "|symbols");
    for (int i = 0; !bad && i < c->n_symbols; i++)
        bad = key_str(&buf, &n, &cap, c->symbols[i]);
    bad = bad || key_str(&buf, &n, &cap, "|options");
    for (int i = 0; !bad && i < c->n_options; i++) {
        const char *o = c->options[i];
        char real[PATH_MAX + 3];
        if (strncmp(o, "-I", 2) == 0 && o[2] && realpath(o + 2, real + 2)) {
            real[0] = '-';
            real[1] = 'I';
            o = real;
        }
        bad = key_str(&buf, &n, &cap, o);
    }
    if (!bad)
        sha256_hex(buf, n, key);
    free(buf);
    return bad ? -1 : 0;
}

void cache_digest(const cache_text *files, int n, char hex[65])
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += files[i].len + 1;
    char *all = malloc(total ? total : 1);
    if (!all) {
        hex[0] = 0;
        return;
    }
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        memcpy(all + at, files[i].text, files[i].len);
        at += files[i].len;
        all[at++] = 0;   /* file separator */
    }
    sha256_hex(all, total, hex);
    free(all);
}

static int write_file(const char *path, const void *data, size_t n)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, n, f) == n;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int cache_store(const char *prefix, int refused, const cc_output *o, char *err, size_t len)
{
    char path[PATH_MAX + 16];
    if (refused) {
        const char *text = o->log && *o->log ? o->log : "refused, with no log";
        snprintf(path, sizeof path, "%s.fail", prefix);
        if (write_file(path, text, strlen(text)) != 0) {
            snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    char *meta = module_meta_format(o->n_kernels, o->lowered, o->n_params, o->param_sizes,
                                    o->max_threads, o->n_symbols, o->symbol_lowered, o->log);
    if (!meta) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    /* the cubin first, the meta file last: it marks a complete entry */
    snprintf(path, sizeof path, "%s.cubin", prefix);
    int ok = write_file(path, o->cubin, o->cubin_n) == 0;
    snprintf(path, sizeof path, "%s.meta", prefix);
    ok = ok && write_file(path, meta, strlen(meta)) == 0;
    free(meta);
    if (!ok) {
        snprintf(err, len, "cannot write %s.cubin: %s", prefix, strerror(errno));
        return -1;
    }
    return 0;
}

int cache_load(const char *prefix, void **cubin, size_t *n, module_meta *meta, char **log)
{
    char path[PATH_MAX + 16], err[512];
    snprintf(path, sizeof path, "%s.cubin", prefix);
    if (module_meta_read(path, meta, err, sizeof err) == 0) {
        if ((*cubin = file_read(path, n)) != NULL)
            return 0;
        module_meta_clear(meta);
    }
    snprintf(path, sizeof path, "%s.fail", prefix);
    if ((*log = file_read(path, NULL)) != NULL)
        return 1;
    return -1;
}

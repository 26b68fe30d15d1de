/* runtime_capture.c: libtunekit's capture of a real launch (docs/runtime.md, "Capturing
 * launches"), so that the tuner can tune a kernel on the problems and the data a program really
 * gives it.
 *
 * A capture is a folder, dir/<family>.<op>/<dtype>-<field>=<value>..., holding one file per
 * argument the kernel reads (<arg>.bin, the raw elements) and space.yaml: `base:` the kernel's own
 * space (absolute), `dtypes:` and `problems:` the launch's, `inputs:` the files and the scalar
 * values (the tuner's loader, tuner/space/space_load.c, merges it over the base). A reference of
 * files (the base's problems only) becomes the launched config. The folder is written under a
 * temporary name and renamed, so a reader never sees half of one and two processes capturing the
 * same problem leave one. A capture that cannot be written leaves a folder with one file, FAILED
 * or SKIPPED, saying why: the launch goes on either way. */
#include "runtime_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/files.h"
#include "tk_check.h"

size_t rt_type_size(const char *t)
{
    static const struct { const char *name; size_t size; } types[] = {
        {"f64", 8}, {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"i8", 1}, {"i16", 2}, {"i32", 4},
        {"i64", 8}, {"u8", 1}, {"u16", 2}, {"u32", 4}, {"u64", 8},
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(types[i].name, t) == 0)
            return types[i].size;
    return 0;
}

int capture_listed(const tk_kernel_desc *d, const char *list)
{
    char full[512];
    snprintf(full, sizeof full, "%s.%s", d->family, d->op);
    for (const char *s = list; s && *s;) {
        while (*s == ',' || *s == ' ')
            s++;
        size_t n = strcspn(s, ", ");
        if (n && ((n == 3 && strncmp(s, "all", 3) == 0) ||
                  (strlen(full) == n && strncmp(s, full, n) == 0) ||
                  (strlen(d->op) == n && strncmp(s, d->op, n) == 0)))
            return 1;
        s += n;
    }
    return 0;
}

/* Removes a folder this file wrote (plain files inside, no subfolders). */
static void remove_folder(const char *path)
{
    DIR *dp = opendir(path);
    if (dp) {
        struct dirent *e;
        char f[PATH_MAX];
        while ((e = readdir(dp)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                snprintf(f, sizeof f, "%s/%s", path, e->d_name) < (int)sizeof f)
                unlink(f);
        closedir(dp);
    }
    rmdir(path);
}

static int write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = n ? fwrite(data, 1, n, f) : 0;
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* A scalar argument's value as the space file's expression. 0, or -1 with why. */
static int scalar_text(const char *type, const void *p, char *out, size_t n, char *why,
                       size_t why_len)
{
    double f = 0;
    int is_float = 1;
    long long i = 0;
    int small = tk_dtype_parse(type);            /* f32, f16, bf16: the library's widening */
    if (strcmp(type, "f64") == 0)
        memcpy(&f, p, 8);
    else if (small >= 0)
        tk_host_to_double((tk_dtype)small, p, &f, 1);
    else {
        is_float = 0;
        size_t sz = rt_type_size(type);
        int is_signed = type[0] == 'i';
        if (sz == 1)
            i = is_signed ? *(const int8_t *)p : *(const uint8_t *)p;
        else if (sz == 2)
            i = is_signed ? *(const int16_t *)p : *(const uint16_t *)p;
        else if (sz == 4)
            i = is_signed ? *(const int32_t *)p : (long long)*(const uint32_t *)p;
        else if (sz == 8) {
            uint64_t u;
            memcpy(&u, p, 8);
            if (!is_signed && u > (uint64_t)LLONG_MAX) {
                snprintf(why, why_len, "%llu does not fit the tuner's 64-bit integers",
                         (unsigned long long)u);
                return -1;
            }
            i = (long long)u;
        } else {
            snprintf(why, why_len, "an unknown type '%s'", type);
            return -1;
        }
    }
    if (!is_float) {
        snprintf(out, n, "%lld", i);
        return 0;
    }
    if (!isfinite(f)) {
        snprintf(why, why_len, "%s (a space file's number is finite)", isnan(f) ? "nan" : "inf");
        return -1;
    }
    snprintf(out, n, "%.17g", f);
    if (!strpbrk(out, ".e"))                /* a float stays a float: 2 -> 2.0 */
        strncat(out, ".0", n - strlen(out) - 1);
    return 0;
}

/* s as a YAML double-quoted scalar. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The launched config ("a=1,b=x") as a flow mapping, { a: 1, b: x }. */
static void put_config(FILE *f, const char *config)
{
    fputs("{ ", f);
    for (const char *s = config; s && *s;) {
        size_t n = strcspn(s, ",");
        const char *eq = memchr(s, '=', n);
        if (eq)
            fprintf(f, "%s%.*s: %.*s", s == config ? "" : ", ", (int)(eq - s), s,
                    (int)(n - (size_t)(eq - s) - 1), eq + 1);
        s += n + (s[n] == ',');
    }
    fputs(" }", f);
}

/* The capture into the folder tmp: 0 written, 1 a note written (why says it: SKIPPED or
 * FAILED), -1 not even that. */
static int fill_capture(const char *tmp, long long max_bytes, const capture_job *j, char *note,
                        char *why, size_t why_len)
{
    const tk_kernel_desc *d = j->d;
    const char *dtype = d->dtypes[j->dt].name;
    char values[64][64];
    /* what it would take, and the scalars' values */
    long long total = 0;
    for (int i = 0; i < d->n_args && i < 64; i++) {
        const tk_kernel_arg *a = &d->args[i];
        const char *t = strcmp(a->type, "dtype") == 0 ? dtype : a->type;
        if (!a->is_buffer && strcmp(a->type, "pointer") == 0)
            continue;   /* a buffer passed again (or null): its space says which */
        if (!a->is_buffer && strcmp(a->type, "struct") == 0) {
            strcpy(note, "FAILED");
            snprintf(why, why_len, "%s is a struct passed by value: a capture keeps scalars and "
                     "buffers, not a struct's fields", a->name);
            return 1;
        }
        if (!a->is_buffer && (strcmp(a->type, "texture") == 0 ||
                              strcmp(a->type, "tensor_map") == 0)) {
            int tex = strcmp(a->type, "texture") == 0;
            strcpy(note, "FAILED");
            snprintf(why, why_len, "%s is a %s: a capture keeps scalars and buffers, not what "
                     "a %s reads", a->name, tex ? "texture object" : "tensor map",
                     tex ? "texture" : "tensor map");
            return 1;
        }
        if (!a->is_buffer) {
            char w[160];
            if (scalar_text(t, j->args[i], values[i], sizeof values[i], w, sizeof w) != 0) {
                strcpy(note, "FAILED");
                snprintf(why, why_len, "scalar %s: %s", a->name, w);
                return 1;
            }
            continue;
        }
        if (!a->input)
            continue;
        if (j->count[i] < 0) {
            strcpy(note, "FAILED");
            snprintf(why, why_len, "buffer %s: its count '%s' could not be evaluated", a->name,
                     a->count ? a->count : "");
            return 1;
        }
        total += j->count[i] * (long long)rt_type_size(t);
    }
    if (total > max_bytes) {
        strcpy(note, "SKIPPED");
        snprintf(why, why_len, "the inputs are %lld bytes, over the limit of %lld "
                 "(TUNEKIT_CAPTURE_MAX_BYTES, or tk_kernel_capture's max_bytes)", total,
                 max_bytes);
        return 1;
    }
    /* the buffers */
    for (int i = 0; i < d->n_args; i++) {
        const tk_kernel_arg *a = &d->args[i];
        if (!a->is_buffer || !a->input)
            continue;
        const char *t = strcmp(a->type, "dtype") == 0 ? dtype : a->type;
        size_t bytes = (size_t)j->count[i] * rt_type_size(t);
        void *host = malloc(bytes ? bytes : 1);
        if (!host) {
            strcpy(note, "FAILED");
            snprintf(why, why_len, "buffer %s: %zu bytes of host memory refused", a->name, bytes);
            return 1;
        }
        const void *from = *(void *const *)j->args[i];
        if (j->on_device && !a->symbol) {
            cudaError_t e = cudaMemcpyAsync(host, from, bytes, cudaMemcpyDefault, j->stream);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(j->stream);
            if (e != cudaSuccess) {
                cudaGetLastError();
                free(host);
                strcpy(note, "FAILED");
                snprintf(why, why_len, "reading buffer %s (%p, %zu bytes): %s", a->name, from,
                         bytes, cudaGetErrorString(e));
                return 1;
            }
        } else if (bytes) {
            if (!from) {
                free(host);
                strcpy(note, "FAILED");
                snprintf(why, why_len, "buffer %s: a NULL host pointer", a->name);
                return 1;
            }
            memcpy(host, from, bytes);
        }
        char name[128];
        snprintf(name, sizeof name, "%s.bin", a->name);
        int rc = write_file(tmp, name, host, bytes);
        free(host);
        if (rc != 0) {
            snprintf(why, why_len, "writing %s/%s: %s", tmp, name, strerror(errno));
            return -1;
        }
    }
    /* the space file */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/space.yaml", tmp);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(why, why_len, "writing %s: %s", path, strerror(errno));
        return -1;
    }
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if (j->on_device)
        fprintf(f, "# Captured by libtunekit from a launch of %s.%s (config %s), process %ld, "
                   "%s.\n", d->family, d->op, j->config, (long)getpid(), when);
    else
        fprintf(f, "# Captured by libtunekit from the host's copy of the inputs of %s.%s, "
                   "process %ld, %s.\n", d->family, d->op, (long)getpid(), when);
    fputs("# Tune the kernel on it: tuner run <this file>. The inputs are the program's own;\n"
          "# the kernel, its parameters and its checks are the base's.\n", f);
    fputs("base: ", f);
    put_quoted(f, d->space_path);
    fprintf(f, "\ndtypes: [%s]\nproblems:\n  - { ", dtype);
    for (int k = 0; k < d->n_fields; k++)
        fprintf(f, "%s%s: %lld", k ? ", " : "", d->fields[k], j->problem[k]);
    fputs(" }\n", f);
    if (d->reference_files) {
        fputs("reference:\n  config: ", f);
        put_config(f, j->config);
        fputc('\n', f);
    }
    if (j->n_start > 0) {
        /* tuning at run time (runtime_tune.c): a transfer search from the table's winners */
        fprintf(f, "search:\n  strategy: transfer\n  budget: { seconds: %g }\n  start:\n",
                j->budget_seconds);
        for (int i = 0; i < j->n_start; i++) {
            fputs("    - ", f);
            put_quoted(f, j->start[i]);
            fputc('\n', f);
        }
    }
    int any = 0;
    for (int i = 0; i < d->n_args; i++) {
        const tk_kernel_arg *a = &d->args[i];
        if ((a->is_buffer && !a->input) || (!a->is_buffer && strcmp(a->type, "pointer") == 0))
            continue;
        if (!any++)
            fputs("inputs:\n", f);
        if (a->is_buffer)
            fprintf(f, "  %s: { file: %s.bin }\n", a->name, a->name);
        else
            fprintf(f, "  %s: { value: %s }\n", a->name, values[i]);
    }
    if (fclose(f) != 0) {
        snprintf(why, why_len, "writing %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The leaf of a capture's folder, <dtype>-<field>=<value>...; -1 when too long. */
static int capture_leaf(const tk_kernel_desc *d, int dt, const long long *problem, char *leaf,
                        size_t len)
{
    int n = snprintf(leaf, len, "%s", d->dtypes[dt].name);
    for (int k = 0; k < d->n_fields && n < (int)len; k++)
        n += snprintf(leaf + n, len - (size_t)n, "-%s=%lld", d->fields[k], problem[k]);
    return n < (int)len ? 0 : -1;
}

int capture_folder(const char *dir, const tk_kernel_desc *d, int dt, const long long *problem,
                   char *out, size_t len)
{
    char leaf[1024];
    if (capture_leaf(d, dt, problem, leaf, sizeof leaf) != 0)
        return -1;
    return snprintf(out, len, "%s/%s.%s/%s", dir, d->family, d->op, leaf) < (int)len ? 0 : -1;
}

int capture_write(const char *dir, long long max_bytes, const capture_job *j, char *err,
                  size_t len)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static unsigned serial;
    const tk_kernel_desc *d = j->d;
    if (d->n_args > 64) {
        snprintf(err, len, "%s.%s: more than 64 arguments", d->family, d->op);
        return -1;
    }
    char folder[PATH_MAX], leaf[1024], target[PATH_MAX], tmp[PATH_MAX];
    int bad = capture_leaf(d, j->dt, j->problem, leaf, sizeof leaf);
    pthread_mutex_lock(&mu);
    unsigned s = serial++;
    pthread_mutex_unlock(&mu);
    if (bad ||
        snprintf(folder, sizeof folder, "%s/%s.%s", dir, d->family, d->op) >= (int)sizeof folder ||
        snprintf(target, sizeof target, "%s/%s", folder, leaf) >= (int)sizeof target ||
        snprintf(tmp, sizeof tmp, "%s/.%s.%ld.%u", folder, leaf, (long)getpid(), s) >=
            (int)sizeof tmp) {
        snprintf(err, len, "%s.%s: the capture's path is too long", d->family, d->op);
        return -1;
    }
    struct stat st;
    if (stat(target, &st) == 0)
        return 0;                     /* captured before: kept as it is */
    if (make_dirs(folder) != 0 || mkdir(tmp, 0777) != 0) {
        snprintf(err, len, "%s.%s: creating %s: %s", d->family, d->op, tmp, strerror(errno));
        return -1;
    }
    char note[16] = "", why[1024] = "";
    int rc = fill_capture(tmp, max_bytes <= 0 ? 1LL << 30 : max_bytes, j, note, why,
                          sizeof why);
    if (rc != 0) {
        /* what was written is dropped; the note says why, if it can be written */
        remove_folder(tmp);
        if (mkdir(tmp, 0777) != 0) {
            snprintf(err, len, "%s.%s: %s", d->family, d->op, why);
            return -1;
        }
        if (rc < 0)
            strcpy(note, "FAILED");
    }
    if (note[0]) {
        char line[1200];
        int m = snprintf(line, sizeof line, "%s.%s %s: %s\n", d->family, d->op, leaf, why);
        if (write_file(tmp, note, line, (size_t)(m < (int)sizeof line ? m : (int)sizeof line - 1))
            != 0) {
            snprintf(err, len, "%s.%s: %s (and writing the note in %s: %s)", d->family, d->op,
                     why, tmp, strerror(errno));
            remove_folder(tmp);
            return -1;
        }
    }
    if (rename(tmp, target) != 0) {
        int e = errno;
        remove_folder(tmp);
        if (e == EEXIST || e == ENOTEMPTY)
            return 0;                 /* another thread or process captured it first */
        snprintf(err, len, "%s.%s: renaming %s: %s", d->family, d->op, tmp, strerror(e));
        return -1;
    }
    if (note[0]) {
        snprintf(err, len, "%s.%s: capture %s (%s): %s", d->family, d->op, note, target, why);
        return 1;
    }
    return 0;
}

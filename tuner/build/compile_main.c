/* compile_main.c: the compile process, `tuner __compile` (pool.h). It reads one request per
 * line on stdin (`compile compiler= tool= source= arch= out= options= kernels= symbols=`, lists
 * one item per line), runs the compiler of that kind (compiler.h; opened once per process and
 * kept, so NVRTC loads once), writes <out>.cubin and then <out>.meta (module_meta.h: the entry
 * is complete once the meta file exists), or <out>.fail with the log when the compiler refuses
 * the variant, and answers one line on stdout: `compiled status=ok|error [log=] cpu=`, or
 * `error message=` when the compiler cannot run at all. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "compiler.h"
#include "cache.h"
#include "pool.h"
#include "worker/protocol.h"

/* Writes one answer line: `compiled status=ok|error [log=...] cpu=S` or `error message=...`. */
static void answer(const char *type, const char *key, const char *text, double cpu_s)
{
    wp_buf w = {0};
    wp_begin(&w, type);
    if (strcmp(type, "compiled") == 0)
        wp_add(&w, "status", text ? "error" : "ok");
    if (text)
        wp_add(&w, key, text);
    if (cpu_s > 0)
        wp_add_double(&w, "cpu", cpu_s);
    if (wp_end(&w) == 0) {
        size_t off = 0;
        while (off < w.len) {
            ssize_t n = write(1, w.s + off, w.len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            off += (size_t)n;
        }
    }
    wp_buf_free(&w);
}

/* The CPU time of this process and of the children it waited for (nvcc and its tools). */
static double cpu_now(void)
{
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &kids) != 0)
        return 0;
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) +
           1e-6 * (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
                           kids.ru_utime.tv_usec + kids.ru_stime.tv_usec);
}

/* Splits a newline-separated list in place into items[]; returns the count. */
static int split_lines(char *s, char **items, int max)
{
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(s, "\n", &save); tok && n < max;
         tok = strtok_r(NULL, "\n", &save))
        items[n++] = tok;
    return n;
}

/* Removes a folder and the files directly in it (the compiler's temporary files). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[PATH_MAX + 256];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

enum { MAX_ITEMS = 256 };

/* One request: compile, write the cache files, answer. */
static void compile_one(compiler **open, const wp_msg *m)
{
    double cpu0 = cpu_now();
    char err[1024];
    const char *kind = wp_get(m, "compiler"), *source = wp_get(m, "source"),
               *arch = wp_get(m, "arch"), *out = wp_get(m, "out"),
               *options = wp_get(m, "options"), *kernels = wp_get(m, "kernels"),
               *symbols = wp_get(m, "symbols");
    if (strcmp(m->type, "compile") != 0 || !kind || !source || !arch || !out || !options ||
        !kernels || !symbols) {
        answer("error", "message", "compile: incomplete request", 0);
        return;
    }
    int k = strcmp(kind, "nvcc") == 0 ? 1 : 0;
    if (!open[k] && !(open[k] = compiler_open(kind, err, sizeof err))) {
        answer("error", "message", err, 0);
        return;
    }
    char *opts_copy = strdup(options), *kern_copy = strdup(kernels), *sym_copy = strdup(symbols);
    char *opt_items[MAX_ITEMS], *kern_items[MAX_ITEMS], *sym_items[MAX_ITEMS];
    char work[PATH_MAX];
    snprintf(work, sizeof work, "%s.%ld.work", out, (long)getpid());
    cc_output o;
    memset(&o, 0, sizeof o);
    if (!opts_copy || !kern_copy || !sym_copy) {
        answer("error", "message", "out of memory", 0);
        goto done;
    }
    if (mkdir(work, 0777) != 0 && errno != EEXIST) {
        snprintf(err, sizeof err, "cannot make %s: %s", work, strerror(errno));
        answer("error", "message", err, 0);
        goto done;
    }
    cc_input in = {
        .source = source,
        .n_kernels = split_lines(kern_copy, kern_items, MAX_ITEMS),
        .kernels = (const char *const *)kern_items,
        .n_symbols = split_lines(sym_copy, sym_items, MAX_ITEMS),
        .symbols = (const char *const *)sym_items,
        .n_options = split_lines(opts_copy, opt_items, MAX_ITEMS),
        .options = (const char *const *)opt_items,
        .arch = arch,
        .tool = wp_get(m, "tool"),
        .work_dir = work,
    };
    int rc = open[k]->vt->compile(open[k], &in, &o);
    remove_dir(work);
    if (rc == CC_BROKEN) {
        answer("error", "message", o.log ? o.log : "the compiler could not run", 0);
        goto done;
    }
    if (cache_store(out, rc == CC_REFUSED, &o, err, sizeof err) != 0) {
        answer("error", "message", err, 0);
        goto done;
    }
    if (rc == CC_REFUSED) {
        answer("compiled", "log", o.log && *o.log ? o.log : "refused, with no log",
               cpu_now() - cpu0);
        goto done;
    }
    answer("compiled", "log", NULL, cpu_now() - cpu0);
done:
    cc_output_clear(&o);
    free(opts_copy);
    free(kern_copy);
    free(sym_copy);
}

int pool_compile_main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    char err[1024];
    compiler *open[2] = {NULL, NULL};
    /* requests until the pool closes stdin */
    while ((n = getline(&line, &cap, stdin)) > 0) {
        wp_msg m;
        if (wp_parse(line, (size_t)n, &m, err, sizeof err) != 0) {
            answer("error", "message", "compile: bad request", 0);
            wp_msg_clear(&m);
            continue;
        }
        compile_one(open, &m);
        wp_msg_clear(&m);
    }
    free(line);
    _exit(0);   /* nothing needs releasing: NVRTC's teardown would only cost time */
}

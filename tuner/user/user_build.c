/* user_build.c: the compile pool and cache of user kernels (user_build.h), parent side.
 *
 * Every variant has an entry keyed by its cache key. The run loop's thread queues entries and
 * waits for them; one pool thread starts compiler processes (fork + exec of the tuner itself as
 * `tuner __compile`, a request on its stdin, an answer on its stdout, the cache files written by
 * the child) up to `jobs` at once, urgent entries first, and reaps them by their pipes (never by
 * waitpid(-1), which would take the GPU worker's status from the backend). */
#include "user_build.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;
#include "core/sha256.h"
#include "build/nvrtc_load.h"
#include "build/ptx.h"
#include "worker/protocol.h"

enum { E_QUEUED, E_RUNNING, E_OK, E_FAIL };
enum { LOG_KEEP = 65536, MAX_ENTRIES = 1 << 20 };

typedef struct entry {
    char key[65];
    int state;
    int urgent;
    char *path;              /* cache prefix: <dir>/<key> */
    char *cubin;             /* <path>.cubin once compiled */
    char *log;               /* the compiler's log (failures: why), may be NULL */
    char *request;           /* the compile request line for the child */
    int broken;              /* E_FAIL because the compiler could not run at all (not the
                                variant's fault): the run stops */
    struct entry *next;      /* queue link */
} entry;

/* A compiler process: it stays up and compiles request after request (NVRTC loaded once). */
typedef struct child {
    pid_t pid;               /* 0: none */
    int in, out;             /* its stdin (requests), its stdout (answers) */
    entry *e;                /* the variant it compiles now, NULL when idle */
    char buf[LOG_KEEP + 1024];
    size_t n;                /* bytes of the answer being read */
} child;

struct uk_build {
    const space *sp;
    device_info dev;
    char arch[32];
    char exe[PATH_MAX];
    char dir[PATH_MAX];
    char include_dir[1024];
    char nvrtc_version[32];
    char *file_digest;       /* per kernel: sha256 of its files, for the keys */
    char *ref_digest;
    int jobs;
    /* shared with the pool thread, under mu */
    pthread_mutex_t mu;
    pthread_cond_t done;
    entry **table;           /* open addressing by key */
    size_t cap, count;
    entry *q_head, *q_tail;  /* waiting, in order */
    entry *u_head, *u_tail;  /* urgent, in order */
    int stop;
    uk_build_stats stats;
    int wake[2];             /* pipe: a queue changed */
    pthread_t thread;
    int thread_started;
};

void uk_cache_dir(char *out, size_t len)
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

/* mkdir -p */
static int make_dirs(const char *path, char *err, size_t len)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            snprintf(err, len, "compile cache %s: %s", p, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        snprintf(err, len, "compile cache %s: %s", p, strerror(errno));
        return -1;
    }
    return 0;
}

/* sha256 over a kernel's files (the source and what it includes), as hex; malloc'd. */
static char *digest_files(const su_kernel *k, char *err, size_t len)
{
    char **files = NULL;
    int n = su_kernel_files(k, &files, err, len);
    if (n == 0)
        return NULL;
    char *all = NULL;
    size_t all_n = 0;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f) {
            snprintf(err, len, "%s: %s", files[i], strerror(errno));
            ok = 0;
            break;
        }
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            char *p = realloc(all, all_n + got);
            if (!p) {
                ok = 0;
                break;
            }
            all = p;
            memcpy(all + all_n, chunk, got);
            all_n += got;
        }
        fclose(f);
        char *p = realloc(all, all_n + 1);
        if (!p) {
            ok = 0;
            break;
        }
        all = p;
        all[all_n++] = 0;   /* file separator */
    }
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
    char *hex = ok ? malloc(65) : NULL;
    if (hex)
        sha256_hex(all ? all : "", all_n, hex);
    else if (ok)
        snprintf(err, len, "out of memory");
    free(all);
    return hex;
}

/* ---- the table ---- */

static size_t key_hash(const char *key)
{
    size_t h = 0;
    for (int i = 0; i < 16 && key[i]; i++)
        h = h * 16 + (size_t)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
    return h;
}

static entry *table_find(uk_build *b, const char *key)
{
    if (!b->cap)
        return NULL;
    for (size_t i = key_hash(key) & (b->cap - 1);; i = (i + 1) & (b->cap - 1)) {
        if (!b->table[i])
            return NULL;
        if (strcmp(b->table[i]->key, key) == 0)
            return b->table[i];
    }
}

static int table_put(uk_build *b, entry *e)
{
    if ((b->count + 1) * 2 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        entry **t = calloc(cap, sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; i < b->cap; i++) {
            entry *x = b->table[i];
            if (!x)
                continue;
            size_t j = key_hash(x->key) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = x;
        }
        free(b->table);
        b->table = t;
        b->cap = cap;
    }
    size_t j = key_hash(e->key) & (b->cap - 1);
    while (b->table[j])
        j = (j + 1) & (b->cap - 1);
    b->table[j] = e;
    b->count++;
    return 0;
}

static void entry_free(entry *e)
{
    if (!e)
        return;
    free(e->path);
    free(e->cubin);
    free(e->log);
    free(e->request);
    free(e);
}

/* ---- cache files ---- */

static char *suffixed(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", path, suffix);
    return s;
}

static char *slurp_small(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = 0;
    return buf;
}

/* An entry whose files are in the cache becomes done. 1 when it was. */
static int from_cache(entry *e)
{
    char *meta = suffixed(e->path, ".meta"), *fail = suffixed(e->path, ".fail");
    int found = 0;
    if (meta && access(meta, R_OK) == 0 && (e->cubin = suffixed(e->path, ".cubin")) &&
        access(e->cubin, R_OK) == 0) {
        e->state = E_OK;
        found = 1;
    } else if (fail && access(fail, R_OK) == 0) {
        free(e->cubin);
        e->cubin = NULL;
        e->log = slurp_small(fail);
        e->state = E_FAIL;
        found = 1;
    } else {
        free(e->cubin);
        e->cubin = NULL;
    }
    free(meta);
    free(fail);
    return found;
}

/* ---- keys and requests ---- */

/* Builds the request line and the cache key of a compile. *out is the table's entry (new or
 * existing); 0 or -1 with err. Called with mu held. */
static int entry_for(uk_build *b, const su_kernel *k, const su_compile *c, entry **out, char *err,
                     size_t len)
{
    const char *digest = k == &b->sp->user->kernel ? b->file_digest : b->ref_digest;
    /* the key: files, name, options (without -I: the included files are in the digest),
     * architecture, NVRTC version */
    size_t n = 256 + strlen(digest) + strlen(c->name_expr);
    for (int i = 0; i < c->n_options; i++)
        n += strlen(c->options[i]) + 1;
    char *text = malloc(n);
    if (!text) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    size_t at = (size_t)snprintf(text, n, "tunekit-cubin-1%c%s%c%s%c", 0, digest, 0,
                                 c->name_expr, 0);
    for (int i = 0; i < c->n_options; i++)
        if (strncmp(c->options[i], "-I", 2) != 0)
            at += (size_t)snprintf(text + at, n - at, "%s%c", c->options[i], 0);
    at += (size_t)snprintf(text + at, n - at, "%s%c%s", b->arch, 0, b->nvrtc_version);
    char key[65];
    sha256_hex(text, at, key);
    free(text);
    entry *e = table_find(b, key);
    if (e) {
        *out = e;
        return 0;
    }
    if (b->count >= MAX_ENTRIES) {
        snprintf(err, len, "more than %d distinct variants to compile", MAX_ENTRIES);
        return -1;
    }
    e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    memcpy(e->key, key, sizeof key);
    size_t plen = strlen(b->dir) + 70;
    if (!(e->path = malloc(plen)))
        goto oom;
    snprintf(e->path, plen, "%s/%s", b->dir, key);
    if (!from_cache(e)) {
        wp_buf w = {0};
        wp_begin(&w, "compile");
        wp_add(&w, "source", k->source);
        wp_add(&w, "name", c->name_expr);
        wp_add(&w, "arch", b->arch);
        wp_add(&w, "include", b->include_dir);
        wp_add(&w, "out", e->path);
        /* the options, one per line */
        size_t on = 1;
        for (int i = 0; i < c->n_options; i++)
            on += strlen(c->options[i]) + 1;
        char *opts = malloc(on);
        if (!opts) {
            wp_buf_free(&w);
            goto oom;
        }
        opts[0] = 0;
        for (int i = 0, o = 0; i < c->n_options; i++)
            o += snprintf(opts + o, on - (size_t)o, "%s%s", i ? "\n" : "", c->options[i]);
        wp_add(&w, "options", opts);
        free(opts);
        if (wp_end(&w) != 0 || !(e->request = strndup(w.s, w.len))) {
            wp_buf_free(&w);
            goto oom;
        }
        wp_buf_free(&w);
        e->state = E_QUEUED;
    } else {
        b->stats.cached++;
    }
    if (table_put(b, e) != 0)
        goto oom;
    *out = e;
    return 0;
oom:
    entry_free(e);
    snprintf(err, len, "out of memory");
    return -1;
}

static void queue_push(entry **head, entry **tail, entry *e)
{
    e->next = NULL;
    if (*tail)
        (*tail)->next = e;
    else
        *head = e;
    *tail = e;
}

static int queue_remove(entry **head, entry **tail, entry *e)
{
    entry *prev = NULL;
    for (entry *x = *head; x; prev = x, x = x->next)
        if (x == e) {
            if (prev)
                prev->next = x->next;
            else
                *head = x->next;
            if (*tail == x)
                *tail = prev;
            x->next = NULL;
            return 1;
        }
    return 0;
}

static void wake_pool(uk_build *b)
{
    char c = 1;
    ssize_t ignored = write(b->wake[1], &c, 1);
    (void)ignored;
}

/* ---- the pool thread ---- */

/* Starts a compiler process with posix_spawn (a vfork: its cost does not grow with the parent's
 * memory, as fork's does). 0, or -1 with why. */
static int spawn(uk_build *b, child *c, char *why, size_t len)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    int have_fa = 0;
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, len, "cannot start the compiler: pipe: %s", strerror(errno));
        goto fail;
    }
    char *const argv[] = {"tuner", "__compile", NULL};
    pid_t pid;
    int r = posix_spawn_file_actions_init(&fa);
    have_fa = r == 0;
    if (r == 0) r = posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    if (r == 0) r = posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    if (r == 0) r = posix_spawn(&pid, b->exe, &fa, NULL, argv, environ);
    if (r != 0) {
        snprintf(why, len, "cannot start the compiler %s: %s", b->exe, strerror(r));
        goto fail;
    }
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    c->pid = pid;
    c->in = in[1];
    c->out = out[0];
    c->e = NULL;
    c->n = 0;
    return 0;
fail:
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
    }
    return -1;
}

/* Hands e to an idle compiler (its request is one line: it fits in the pipe). 0, or -1 when the
 * process is gone (the caller retires it). */
static int assign(child *c, entry *e)
{
    size_t n = strlen(e->request), off = 0;
    while (off < n) {
        ssize_t w = write(c->in, e->request + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    c->e = e;
    c->n = 0;
    e->state = E_RUNNING;
    return 0;
}

/* A compiler process ended (its stdout closed): reap it; its variant, if it had one, failed
 * (a crash is the variant's failure, an exit without an answer the compiler's). mu held. */
static void retire(uk_build *b, child *c)
{
    int status = 0;
    close(c->in);
    close(c->out);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {}
    entry *e = c->e;
    if (e) {
        char why[512];
        if (WIFSIGNALED(status))
            snprintf(why, sizeof why, "the compiler process died: signal %d (%s)",
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            snprintf(why, sizeof why, "the compiler process (%s __compile) exited with status "
                     "%d and no answer", b->exe, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        e->state = E_FAIL;
        e->broken = !WIFSIGNALED(status);
        e->log = strdup(why);
        b->stats.compiled++;
        b->stats.failed++;
    }
    memset(c, 0, sizeof *c);
}

/* An answer line from c: settle its variant. mu held. */
static void settle(uk_build *b, child *c, const char *line, size_t n)
{
    entry *e = c->e;
    c->e = NULL;
    if (!e)
        return;
    wp_msg m;
    int parsed = wp_parse(line, n, &m, NULL, 0) == 0;
    const char *st = parsed ? wp_get(&m, "status") : NULL, *cpu = parsed ? wp_get(&m, "cpu") : NULL;
    double cpu_s = 0;
    if (cpu && wp_parse_f64(cpu, &cpu_s) == 0 && cpu_s > 0)
        b->stats.cpu_s += cpu_s;
    b->stats.compiled++;
    if (parsed && strcmp(m.type, "compiled") == 0 && st && strcmp(st, "ok") == 0 &&
        (e->cubin = suffixed(e->path, ".cubin"))) {
        e->state = E_OK;
    } else {
        e->state = E_FAIL;
        b->stats.failed++;
        const char *log = parsed ? wp_get(&m, strcmp(m.type, "error") == 0 ? "message" : "log")
                                 : NULL;
        /* "compiled status=error": the compiler refused the variant; "error": it cannot work */
        e->broken = !parsed || strcmp(m.type, "error") == 0;
        e->log = strdup(log ? log : "the compiler's answer was not understood");
    }
    if (parsed)
        wp_msg_clear(&m);
}

static void *pool_main(void *arg)
{
    uk_build *b = arg;
    child *kids = calloc((size_t)b->jobs, sizeof *kids);
    struct pollfd *fds = calloc((size_t)b->jobs + 1, sizeof *fds);
    int *who = calloc((size_t)b->jobs + 1, sizeof *who);
    if (!kids || !fds || !who) {
        free(kids);
        free(fds);
        free(who);
        return NULL;
    }
    pthread_mutex_lock(&b->mu);
    for (;;) {
        /* hand out work: urgent first, to idle compilers, starting one where none is idle */
        while (!b->stop && (b->u_head || b->q_head)) {
            int slot = -1;
            for (int i = 0; i < b->jobs && slot < 0; i++)
                if (kids[i].pid > 0 && !kids[i].e)
                    slot = i;
            for (int i = 0; i < b->jobs && slot < 0; i++)
                if (kids[i].pid == 0) {
                    char why[512];
                    if (spawn(b, &kids[i], why, sizeof why) == 0) {
                        slot = i;
                    } else {
                        /* no compiler can start: fail the next variant with why */
                        entry *e = b->u_head ? b->u_head : b->q_head;
                        queue_remove(e == b->u_head ? &b->u_head : &b->q_head,
                                     e == b->u_head ? &b->u_tail : &b->q_tail, e);
                        e->state = E_FAIL;
                        e->broken = 1;
                        e->log = strdup(why);
                        b->stats.failed++;
                        pthread_cond_broadcast(&b->done);
                    }
                    break;
                }
            if (slot < 0)
                break;   /* all busy */
            entry *e = b->u_head ? b->u_head : b->q_head;
            if (e == b->u_head)
                queue_remove(&b->u_head, &b->u_tail, e);
            else
                queue_remove(&b->q_head, &b->q_tail, e);
            if (assign(&kids[slot], e) != 0) {
                /* the process is gone: its variant goes back first; poll will retire it */
                e->state = E_QUEUED;
                e->urgent = 1;
                queue_push(&b->u_head, &b->u_tail, e);
                kids[slot].e = NULL;
                retire(b, &kids[slot]);
            }
        }
        int busy = 0, alive = 0;
        for (int i = 0; i < b->jobs; i++) {
            alive += kids[i].pid > 0;
            busy += kids[i].pid > 0 && kids[i].e != NULL;
        }
        if (b->stop && busy == 0)
            break;
        int nf = 0;
        fds[nf++] = (struct pollfd){b->wake[0], POLLIN, 0};
        for (int i = 0; i < b->jobs; i++)
            if (kids[i].pid > 0) {
                who[nf] = i;
                fds[nf++] = (struct pollfd){kids[i].out, POLLIN, 0};
            }
        pthread_mutex_unlock(&b->mu);
        int r = poll(fds, (nfds_t)nf, -1);
        pthread_mutex_lock(&b->mu);
        if (r < 0)
            continue;
        if (fds[0].revents) {
            char drain[64];
            ssize_t ignored = read(b->wake[0], drain, sizeof drain);
            (void)ignored;
        }
        for (int f = 1; f < nf; f++) {
            if (!fds[f].revents)
                continue;
            child *c = &kids[who[f]];
            ssize_t got = read(c->out, c->buf + c->n, sizeof c->buf - 1 - c->n);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                retire(b, c);
                pthread_cond_broadcast(&b->done);
                continue;
            }
            c->n += (size_t)got;
            c->buf[c->n] = 0;
            char *nl = memchr(c->buf, '\n', c->n);
            if (!nl && c->n < sizeof c->buf - 1)
                continue;
            size_t line = nl ? (size_t)(nl - c->buf) : c->n;
            settle(b, c, c->buf, line);
            /* an answer longer than the buffer is cut; what follows it is dropped */
            size_t rest = nl ? c->n - line - 1 : 0;
            memmove(c->buf, c->buf + c->n - rest, rest);
            c->n = rest;
            pthread_cond_broadcast(&b->done);
        }
        (void)alive;
    }
    /* the end: close the compilers' input, they exit */
    for (int i = 0; i < b->jobs; i++)
        if (kids[i].pid > 0) {
            kids[i].e = NULL;
            retire(b, &kids[i]);
        }
    pthread_mutex_unlock(&b->mu);
    free(kids);
    free(fds);
    free(who);
    return NULL;
}

/* ---- the interface ---- */

int uk_build_open(const space *sp, const device_info *dev, const char *cache_dir, int jobs,
                  const char *self_exe, uk_build **out, char *err, size_t len)
{
    *out = NULL;
    nvrtc_api api;
    if (nvrtc_load(&api, err, len) != 0)
        return -1;
    int cc = dev->cc_major * 10 + dev->cc_minor;
    if (!nvrtc_supports(&api, cc)) {
        snprintf(err, len, "NVRTC %d.%d (%s) cannot compile for sm_%d, the GPU's architecture",
                 api.major, api.minor, api.path, cc);
        nvrtc_unload(&api);
        return -1;
    }
    uk_build *b = calloc(1, sizeof *b);
    if (!b) {
        nvrtc_unload(&api);
        snprintf(err, len, "out of memory");
        return -1;
    }
    b->sp = sp;
    b->dev = *dev;
    snprintf(b->arch, sizeof b->arch, "sm_%d", cc);
    snprintf(b->nvrtc_version, sizeof b->nvrtc_version, "%d.%d", api.major, api.minor);
    snprintf(b->include_dir, sizeof b->include_dir, "%s", api.include_dir);
    nvrtc_unload(&api);
    snprintf(b->exe, sizeof b->exe, "%s", self_exe ? self_exe : "/proc/self/exe");
    if (cache_dir)
        snprintf(b->dir, sizeof b->dir, "%s", cache_dir);
    else
        uk_cache_dir(b->dir, sizeof b->dir);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b->jobs = jobs > 0 ? jobs : cores > 0 ? (int)cores : 1;
    if (b->jobs > 256)
        b->jobs = 256;
    b->stats.jobs = b->jobs;
    b->wake[0] = b->wake[1] = -1;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->done, NULL);
    if (make_dirs(b->dir, err, len) != 0 ||
        !(b->file_digest = digest_files(&sp->user->kernel, err, len)) ||
        (sp->user->ref == SU_REF_KERNEL &&
         !(b->ref_digest = digest_files(&sp->user->ref_kernel, err, len))))
        goto fail;
    if (pipe2(b->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, len, "compile pool: pipe: %s", strerror(errno));
        goto fail;
    }
    if (pthread_create(&b->thread, NULL, pool_main, b) != 0) {
        snprintf(err, len, "compile pool: cannot start its thread");
        goto fail;
    }
    b->thread_started = 1;
    *out = b;
    return 0;
fail:
    uk_build_close(b);
    return -1;
}

void uk_build_close(uk_build *b)
{
    if (!b)
        return;
    if (b->thread_started) {
        pthread_mutex_lock(&b->mu);
        b->stop = 1;
        /* what is queued is dropped; what runs finishes */
        b->q_head = b->q_tail = b->u_head = b->u_tail = NULL;
        pthread_mutex_unlock(&b->mu);
        wake_pool(b);
        pthread_join(b->thread, NULL);
    }
    for (size_t i = 0; i < b->cap; i++)
        entry_free(b->table[i]);
    free(b->table);
    free(b->file_digest);
    free(b->ref_digest);
    for (int i = 0; i < 2; i++)
        if (b->wake[i] >= 0)
            close(b->wake[i]);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->done);
    free(b);
}

int uk_build_prefetch(uk_build *b, const space_binding *bind, char *err, size_t len)
{
    return uk_build_prefetch_some(b, bind, 0, err, len);
}

int uk_build_prefetch_some(uk_build *b, const space_binding *bind, int64_t most, char *err,
                           size_t len)
{
    const space *sp = b->sp;
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    space_iter it;
    space_iter_init(&it, sp, bind);
    int r = 0, rc = 0, queued = 0;
    int64_t seen = 0;
    pthread_mutex_lock(&b->mu);
    while (rc == 0 && (most <= 0 || seen++ < most) && (r = space_iter_next(&it, choice)) == 1) {
        su_compile c;
        entry *e;
        if (space_user_compile(sp, bind, choice, &sp->user->kernel, &c, err, len) != 0) {
            rc = -1;
            break;
        }
        rc = entry_for(b, &sp->user->kernel, &c, &e, err, len);
        su_compile_clear(&c);
        if (rc == 0 && e->state == E_QUEUED && !e->urgent && !e->next && b->q_tail != e) {
            queue_push(&b->q_head, &b->q_tail, e);
            queued = 1;
        }
    }
    if (rc == 0 && r < 0) {
        snprintf(err, len, "%s", it.err.message);
        rc = -1;
    }
    pthread_mutex_unlock(&b->mu);
    space_iter_free(&it);
    free(choice);
    if (queued)
        wake_pool(b);
    return rc;
}

int uk_build_variant(uk_build *b, const space_binding *bind, const int *choice,
                     const su_kernel *k, const char **cubin, char *log, size_t loglen, char *err,
                     size_t len)
{
    su_compile c;
    entry *e;
    if (space_user_compile(b->sp, bind, choice, k, &c, err, len) != 0)
        return -1;
    pthread_mutex_lock(&b->mu);
    int rc = entry_for(b, k, &c, &e, err, len);
    su_compile_clear(&c);
    if (rc != 0) {
        pthread_mutex_unlock(&b->mu);
        return -1;
    }
    if (e->state == E_QUEUED && !e->urgent) {
        queue_remove(&b->q_head, &b->q_tail, e);
        e->urgent = 1;
        queue_push(&b->u_head, &b->u_tail, e);
        wake_pool(b);
    }
    while (e->state == E_QUEUED || e->state == E_RUNNING)
        pthread_cond_wait(&b->done, &b->mu);
    if (e->state == E_OK) {
        *cubin = e->cubin;
        rc = 0;
    } else if (e->broken) {
        snprintf(err, len, "compiling %s: %s", k->function, e->log ? e->log : "failed");
        rc = -1;
    } else {
        snprintf(log, loglen, "%s", e->log ? e->log : "no log");
        rc = 1;
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

void uk_build_get_stats(const uk_build *b, uk_build_stats *out)
{
    pthread_mutex_lock((pthread_mutex_t *)&b->mu);
    *out = b->stats;
    pthread_mutex_unlock((pthread_mutex_t *)&b->mu);
}

/* The parameter sizes the compiler recorded beside a cubin. */
static int read_params(const char *cubin, int *sizes, int max)
{
    size_t n = strlen(cubin);
    char meta[PATH_MAX];
    snprintf(meta, sizeof meta, "%.*s.meta", (int)(n - 6), cubin);
    char *text = slurp_small(meta);
    if (!text)
        return -1;
    int count = -1;
    /* the numbers after "params" at the start of a line (no pointer before text: that is UB) */
    char *line = strstr(text, "\nparams");
    char *p = line ? line + 7 : strncmp(text, "params", 6) == 0 ? text + 6 : NULL;
    if (p) {
        count = 0;
        while (count < max) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            sizes[count++] = (int)v;
            p = end;
        }
    }
    free(text);
    return count;
}

/* The first lines of a log, on one line. */
static void log_head(const char *log, char *out, size_t len)
{
    size_t o = 0;
    int lines = 0;
    for (const char *p = log; *p && o + 1 < len && lines < 3; p++) {
        if (*p == '\n') {
            lines++;
            if (p[1] && lines < 3 && o + 3 < len) {
                out[o++] = ' ';
                out[o++] = '|';
                out[o++] = ' ';
            }
            continue;
        }
        out[o++] = *p;
    }
    out[o] = 0;
}

int uk_build_precheck(uk_build *b, char *err, size_t len)
{
    const space *sp = b->sp;
    const space_user *u = sp->user;
    space_binding bind = {sp->ops[0], sp->dtypes[0], &sp->problems[0], &b->dev};
    /* a window ahead, not the whole space: a large space must not keep the compilers busy with
     * variants a search will never ask for */
    if (uk_build_prefetch_some(b, &bind, 4 * (int64_t)b->jobs, err, len) != 0)
        return -1;
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    char *first_log = NULL;
    const char *cubin = NULL;
    int r = 0, rc = -1, tried = 0;
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    char log[LOG_KEEP];
    space_iter it;
    space_iter_init(&it, sp, &bind);
    while ((r = space_iter_next(&it, choice)) == 1) {
        tried++;
        int got = uk_build_variant(b, &bind, choice, &u->kernel, &cubin, log, sizeof log, err,
                                   len);
        if (got < 0)
            goto done;
        if (got == 0)
            break;
        if (!first_log)
            first_log = strdup(log);
        cubin = NULL;
    }
    if (r < 0) {
        snprintf(err, len, "%s", it.err.message);
        goto done;
    }
    if (!cubin) {
        char head[1024];
        log_head(first_log ? first_log : "no log", head, sizeof head);
        snprintf(err, len, "%s:%d:%d: error: none of the %d variants of %s %s compiles; the first "
                 "one's log: %s", sp->path, u->kernel.line, u->kernel.col, tried, sp->dtypes[0],
                 sp->problems[0].text, head);
        goto done;
    }
    int sizes[256];
    int n = read_params(cubin, sizes, 256);
    if (n < 0) {
        snprintf(err, len, "%s: the compiler recorded no parameters", cubin);
        goto done;
    }
    if (n != u->n_args) {
        snprintf(err, len, "%s:%d:%d: error: kernel.args lists %d argument%s, but %s takes %d "
                 "parameter%s", sp->path, u->args[0].line, u->args[0].col, u->n_args,
                 u->n_args == 1 ? "" : "s", u->kernel.function, n, n == 1 ? "" : "s");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        const su_arg *a = &u->args[i];
        int want = a->is_buffer ? 8 : (int)su_type_size(a->type);
        if (sizes[i] != want) {
            snprintf(err, len, "%s:%d:%d: error: kernel.args %s: %s (%d bytes), but parameter %d "
                     "of %s takes %d bytes", sp->path, a->line, a->col, a->name,
                     a->is_buffer ? "a pointer" : su_type_name(a->type), want, i + 1,
                     u->kernel.function, sizes[i]);
            goto done;
        }
    }
    if (u->ref == SU_REF_KERNEL) {
        int got = uk_build_variant(b, &bind, NULL, &u->ref_kernel, &cubin, log, sizeof log, err,
                                   len);
        if (got < 0)
            goto done;
        if (got == 1) {
            char head[1024];
            log_head(log, head, sizeof head);
            snprintf(err, len, "%s:%d:%d: error: the reference kernel does not compile: %s",
                     sp->path, u->ref_kernel.line, u->ref_kernel.col, head);
            goto done;
        }
    }
    rc = 0;
done:
    space_iter_free(&it);
    free(choice);
    free(first_log);
    return rc;
}

/* ---- the compiler process ---- */

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

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One request: compile, write the cache files, answer. */
static void compile_one(const nvrtc_api *api, const wp_msg *m)
{
    double cpu0 = cpu_now();
    char err[1024];
    nvrtcProgram prog = NULL;
    char *src = NULL, *log = NULL, *ptx = NULL, *cubin = NULL, *opts_copy = NULL;
    char *meta = NULL, *cubin_path = NULL, *meta_path = NULL, *fail = NULL;
    const char **opts = NULL;
    const char *source = wp_get(m, "source"), *name = wp_get(m, "name"),
               *arch = wp_get(m, "arch"), *include = wp_get(m, "include"),
               *out = wp_get(m, "out"), *options = wp_get(m, "options");
    if (strcmp(m->type, "compile") != 0 || !source || !name || !arch || !out || !options) {
        answer("error", "message", "compile: incomplete request", 0);
        return;
    }
    FILE *f = fopen(source, "rb");
    if (!f) {
        snprintf(err, sizeof err, "%s: %s", source, strerror(errno));
        answer("error", "message", err, 0);
        return;
    }
    src = malloc(16 << 20);
    size_t got = src ? fread(src, 1, (16 << 20) - 1, f) : 0;
    fclose(f);
    /* options: one per line, then the architecture and the toolkit's headers */
    opts_copy = strdup(options);
    int n_opts = 2;
    for (const char *p = options; *p; p++)
        n_opts += *p == '\n';
    opts = calloc((size_t)n_opts + 2, sizeof *opts);
    if (!src || !opts_copy || !opts) {
        answer("error", "message", "out of memory", 0);
        goto done;
    }
    src[got] = 0;
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(opts_copy, "\n", &save); tok;
         tok = strtok_r(NULL, "\n", &save))
        opts[k++] = tok;
    char arch_opt[64], inc_opt[1100];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", arch);
    opts[k++] = arch_opt;
    if (include && *include) {
        snprintf(inc_opt, sizeof inc_opt, "-I%s", include);
        opts[k++] = inc_opt;
    }
    nvrtcResult r = api->create(&prog, src, source, 0, NULL, NULL);
    if (r == NVRTC_SUCCESS)
        r = api->add_name(prog, name);
    if (r != NVRTC_SUCCESS) {
        snprintf(err, sizeof err, "nvrtc: %s", api->error_string(r));
        answer("error", "message", err, 0);
        goto done;
    }
    nvrtcResult cr = api->compile(prog, k, opts);
    size_t log_n = 0;
    api->log_size(prog, &log_n);
    log = calloc(log_n + 1, 1);
    if (log && log_n)
        api->log(prog, log);
    if (cr != NVRTC_SUCCESS) {
        const char *text = log && *log ? log : api->error_string(cr);
        if ((fail = suffixed(out, ".fail")))
            write_file(fail, text, strlen(text));
        answer("compiled", "log", text, cpu_now() - cpu0);
        goto done;
    }
    const char *lowered = NULL;
    size_t ptx_n = 0, cubin_n = 0;
    if (api->lowered_name(prog, name, &lowered) != NVRTC_SUCCESS || !lowered ||
        api->ptx_size(prog, &ptx_n) != NVRTC_SUCCESS ||
        api->cubin_size(prog, &cubin_n) != NVRTC_SUCCESS || !cubin_n) {
        answer("compiled", "log", "NVRTC gave no cubin or no lowered name for the function",
               cpu_now() - cpu0);
        goto done;
    }
    ptx = malloc(ptx_n + 1);
    cubin = malloc(cubin_n);
    if (!ptx || !cubin || api->ptx(prog, ptx) != NVRTC_SUCCESS ||
        api->cubin(prog, cubin) != NVRTC_SUCCESS) {
        answer("error", "message", "reading NVRTC's output failed", 0);
        goto done;
    }
    ptx[ptx_n] = 0;
    int sizes[256];
    int np = ptx_entry_params(ptx, lowered, sizes, 256);
    if (np < 0) {
        snprintf(err, sizeof err, "the PTX has no entry %s", lowered);
        answer("compiled", "log", err, cpu_now() - cpu0);
        goto done;
    }
    /* meta: the lowered name, the parameters' sizes, then the compiler's messages */
    size_t meta_cap = strlen(lowered) + 64 + (size_t)np * 12 + (log ? strlen(log) : 0);
    meta = malloc(meta_cap);
    cubin_path = suffixed(out, ".cubin");
    meta_path = suffixed(out, ".meta");
    if (!meta || !cubin_path || !meta_path) {
        answer("error", "message", "out of memory", 0);
        goto done;
    }
    size_t at = (size_t)snprintf(meta, meta_cap, "lowered %s\nparams", lowered);
    for (int i = 0; i < np; i++)
        at += (size_t)snprintf(meta + at, meta_cap - at, " %d", sizes[i]);
    at += (size_t)snprintf(meta + at, meta_cap - at, "\nlog %s\n", log ? log : "");
    /* meta last: it marks a complete entry */
    if (write_file(cubin_path, cubin, cubin_n) != 0 || write_file(meta_path, meta, at) != 0) {
        snprintf(err, sizeof err, "cannot write %s.cubin: %s", out, strerror(errno));
        answer("error", "message", err, 0);
        goto done;
    }
    answer("compiled", "log", NULL, cpu_now() - cpu0);
done:
    if (prog)
        api->destroy(&prog);
    free(src);
    free(log);
    free(ptx);
    free(cubin);
    free(opts_copy);
    free(opts);
    free(meta);
    free(cubin_path);
    free(meta_path);
    free(fail);
}

int uk_compile_main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    char err[1024];
    nvrtc_api api;
    if (nvrtc_load(&api, err, sizeof err) != 0) {
        /* say so to the first request, then end */
        if (getline(&line, &cap, stdin) > 0)
            answer("error", "message", err, 0);
        free(line);
        return 2;
    }
    /* requests until the pool closes stdin */
    while ((n = getline(&line, &cap, stdin)) > 0) {
        wp_msg m;
        if (wp_parse(line, (size_t)n, &m, err, sizeof err) != 0) {
            answer("error", "message", "compile: bad request", 0);
            wp_msg_clear(&m);
            continue;
        }
        compile_one(&api, &m);
        wp_msg_clear(&m);
    }
    free(line);
    _exit(0);   /* nothing needs releasing: NVRTC's teardown would only cost time */
}

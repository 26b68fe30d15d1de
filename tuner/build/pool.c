/* pool.c: the compile pool and cache (pool.h), parent side.
 *
 * Every compilation has an entry keyed by its cache key. The run loop's thread queues entries
 * and waits for them; one pool thread starts compiler processes (posix_spawn of the tuner itself
 * as `tuner __compile`, a request on its stdin, an answer on its stdout, the cache files written
 * by the child) up to `jobs` at once, urgent entries first, and reaps them by their pipes (never
 * by waitpid(-1), which would take the GPU worker's status from the backend). */
#include "pool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "core/files.h"
#include "core/sha256.h"
#include "worker/protocol.h"

extern char **environ;

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

struct pool {
    char exe[PATH_MAX];
    char dir[PATH_MAX];
    int jobs;
    /* shared with the pool thread, under mu */
    pthread_mutex_t mu;
    pthread_cond_t done;
    entry **table;           /* open addressing by key */
    size_t cap, count;
    entry *q_head, *q_tail;  /* waiting, in order */
    entry *u_head, *u_tail;  /* urgent, in order */
    int stop;
    pool_stats stats;
    int wake[2];             /* pipe: a queue changed */
    pthread_t thread;
    int thread_started;
};

/* ---- the table ---- */

static size_t key_hash(const char *key)
{
    size_t h = 0;
    for (int i = 0; i < 16 && key[i]; i++)
        h = h * 16 + (size_t)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
    return h;
}

static entry *table_find(pool *b, const char *key)
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

static int table_put(pool *b, entry *e)
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
        e->log = file_read(fail, NULL);
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

/* Joins a list into one newline-separated string; malloc'd. */
static char *join_lines(char *const *items, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(items[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = 0;
    for (int i = 0, o = 0; i < n; i++)
        o += snprintf(s + o, len - (size_t)o, "%s%s", i ? "\n" : "", items[i]);
    return s;
}

/* Builds the request line and the cache key of a compilation. *out is the table's entry (new or
 * existing); 0 or -1 with err. Called with mu held. */
static int entry_for(pool *b, const pool_compile *c, entry **out, char *err, size_t len)
{
    char key[65];
    if (cache_key(c, key) != 0) {
        snprintf(err, len, "out of memory");
        return -1;
    }
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
        char *opts = join_lines(c->options, c->n_options);
        char *kernels = join_lines(c->kernels, c->n_kernels);
        char *symbols = join_lines(c->symbols, c->n_symbols);
        wp_begin(&w, "compile");
        wp_add(&w, "compiler", c->compiler);
        if (c->tool)
            wp_add(&w, "tool", c->tool);
        wp_add(&w, "source", c->source);
        wp_add(&w, "arch", c->arch);
        wp_add(&w, "out", e->path);
        wp_add(&w, "options", opts ? opts : "");
        wp_add(&w, "kernels", kernels ? kernels : "");
        wp_add(&w, "symbols", symbols ? symbols : "");
        int bad = !opts || !kernels || !symbols;
        free(opts);
        free(kernels);
        free(symbols);
        if (bad || wp_end(&w) != 0 || !(e->request = strndup(w.s, w.len))) {
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

static void wake_pool(pool *b)
{
    char c = 1;
    ssize_t ignored = write(b->wake[1], &c, 1);
    (void)ignored;
}

/* ---- the pool thread ---- */

/* Starts a compiler process with posix_spawn (a vfork: its cost does not grow with the parent's
 * memory, as fork's does). 0, or -1 with why. */
static int spawn(pool *b, child *c, char *why, size_t len)
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
static void retire(pool *b, child *c)
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
static void settle(pool *b, child *c, const char *line, size_t n)
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
    pool *b = arg;
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

int pool_open(const char *dir, int jobs, const char *self_exe, pool **out, char *err,
              size_t len)
{
    *out = NULL;
    pool *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    snprintf(b->exe, sizeof b->exe, "%s", self_exe ? self_exe : "/proc/self/exe");
    if (dir)
        snprintf(b->dir, sizeof b->dir, "%s", dir);
    else
        cache_dir(b->dir, sizeof b->dir);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b->jobs = jobs > 0 ? jobs : cores > 0 ? (int)cores : 1;
    if (b->jobs > 256)
        b->jobs = 256;
    b->stats.jobs = b->jobs;
    b->wake[0] = b->wake[1] = -1;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->done, NULL);
    if (cache_make_dir(b->dir, err, len) != 0)
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
    pool_close(b);
    return -1;
}

void pool_close(pool *b)
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
    for (int i = 0; i < 2; i++)
        if (b->wake[i] >= 0)
            close(b->wake[i]);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->done);
    free(b);
}

int pool_prefetch(pool *b, const pool_compile *c, char *err, size_t len)
{
    entry *e;
    pthread_mutex_lock(&b->mu);
    int rc = entry_for(b, c, &e, err, len), queued = 0;
    if (rc == 0 && e->state == E_QUEUED && !e->urgent && !e->next && b->q_tail != e) {
        queue_push(&b->q_head, &b->q_tail, e);
        queued = 1;
    }
    pthread_mutex_unlock(&b->mu);
    if (queued)
        wake_pool(b);
    return rc;
}

void pool_drop_queue(pool *b)
{
    pthread_mutex_lock(&b->mu);
    /* unlinked, so that a later prefetch or get queues them again */
    for (entry *e = b->q_head, *next; e; e = next) {
        next = e->next;
        e->next = NULL;
    }
    b->q_head = b->q_tail = NULL;
    pthread_mutex_unlock(&b->mu);
}

int pool_get(pool *b, const pool_compile *c, const char **cubin, char *log, size_t loglen,
             char *err, size_t len)
{
    entry *e;
    pthread_mutex_lock(&b->mu);
    int rc = entry_for(b, c, &e, err, len);
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
        snprintf(err, len, "compiling %s: %s", c->n_kernels ? c->kernels[0] : c->source,
                 e->log ? e->log : "failed");
        rc = -1;
    } else {
        snprintf(log, loglen, "%s", e->log ? e->log : "no log");
        rc = 1;
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

void pool_get_stats(const pool *b, pool_stats *out)
{
    pthread_mutex_lock((pthread_mutex_t *)&b->mu);
    *out = b->stats;
    pthread_mutex_unlock((pthread_mutex_t *)&b->mu);
}

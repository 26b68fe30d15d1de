/* runtime_tune.c: tuning on a GPU the descriptor's table does not know (docs/runtime.md "Tuning
 * at run time").
 *
 * The winners tuned on this machine live in a database of the user's, results.db in the tune
 * folder ($TUNEKIT_TUNE_DIR, else "online" beside the compile cache: ~/.cache/tunekit/online).
 * A plan for a device the table has no entry of takes that database's winner of its exact
 * problem when there is one (read with SQLite, loaded at run time like NVRTC: no SQLite, no
 * winners from it). Otherwise, with tuning on, its first launch captures the problem into the
 * tune folder (runtime_capture.c) with a search of its own: transfer, starting from the table's
 * winners nearest to this device and problem, under a time budget; and starts `tuner run` on it
 * in a process of its own (a session of its own, output in tune.log beside the capture), so that
 * a variant that faults, hangs or computes wrong results is the tuner's worker's problem, never
 * the program's. Until the tuner ends the plan keeps the table's nearest config; a thread of
 * the library waits for the tuner, reads the winner from the database, and the next launch of
 * the problem builds its plan again with it. One tuner per problem at a time, across processes:
 * a lock file in the capture's folder, held by the tuner for as long as it runs. */
#include "runtime_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "build/cache.h"
#include "core/problem.h"

extern char **environ;

/* ---- the database, through SQLite loaded at run time ---- */

typedef struct sqlite_api {
    int (*open_v2)(const char *, void **, int, const char *);
    int (*busy_timeout)(void *, int);
    int (*prepare_v2)(void *, const char *, int, void **, const char **);
    int (*bind_text)(void *, int, const char *, int, void (*)(void *));
    int (*step)(void *);
    const unsigned char *(*column_text)(void *, int);
    int (*finalize)(void *);
    int (*close)(void *);
} sqlite_api;

enum { SQLITE_OPEN_READONLY_ = 1, SQLITE_ROW_ = 100 };

static sqlite_api sql;
static int sql_ok;
static pthread_once_t sql_once = PTHREAD_ONCE_INIT;

static void sql_load(void)
{
    void *h = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libsqlite3.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    *(void **)&sql.open_v2 = dlsym(h, "sqlite3_open_v2");
    *(void **)&sql.busy_timeout = dlsym(h, "sqlite3_busy_timeout");
    *(void **)&sql.prepare_v2 = dlsym(h, "sqlite3_prepare_v2");
    *(void **)&sql.bind_text = dlsym(h, "sqlite3_bind_text");
    *(void **)&sql.step = dlsym(h, "sqlite3_step");
    *(void **)&sql.column_text = dlsym(h, "sqlite3_column_text");
    *(void **)&sql.finalize = dlsym(h, "sqlite3_finalize");
    *(void **)&sql.close = dlsym(h, "sqlite3_close");
    sql_ok = sql.open_v2 && sql.busy_timeout && sql.prepare_v2 && sql.bind_text && sql.step &&
             sql.column_text && sql.finalize && sql.close;
}

void rt_tune_dir(char *out, size_t len)
{
    const char *v = getenv("TUNEKIT_TUNE_DIR");
    if (v && *v) {
        snprintf(out, len, "%s", v);
        return;
    }
    char cache[PATH_MAX];
    cache_dir(cache, sizeof cache);
    char *slash = strrchr(cache, '/');
    if (slash && slash != cache)
        *slash = '\0';
    else if (!slash)
        snprintf(cache, sizeof cache, ".");
    snprintf(out, len, "%s/online", cache);
}

/* The canonical text of a problem (the database's problems.shape: fields sorted by name). */
static int shape_text(const tk_kernel_desc *d, const long long *fields, char *out, size_t len)
{
    value vals[64];
    if (d->n_fields > 64)
        return -1;
    for (int f = 0; f < d->n_fields; f++)
        vals[f] = value_int(fields[f]);
    problem p;
    if (problem_init(&p, d->n_fields, d->fields, vals) != 0)
        return -1;
    int n = snprintf(out, len, "%s", p.text);
    problem_clear(&p);
    return n < (int)len ? 0 : -1;
}

int rt_online_winner(const char *tune_dir, const tk_kernel_desc *d, const char *device, int dt,
                     const long long *problem, char *config, size_t len)
{
    char path[PATH_MAX], shape[1024], op[512];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/results.db", tune_dir) >= (int)sizeof path ||
        stat(path, &st) != 0 || shape_text(d, problem, shape, sizeof shape) != 0)
        return 0;
    pthread_once(&sql_once, sql_load);
    if (!sql_ok)
        return 0;
    snprintf(op, sizeof op, "%s.%s", d->family, d->op);
    void *db = NULL, *q = NULL;
    int found = 0;
    if (sql.open_v2(path, &db, SQLITE_OPEN_READONLY_, NULL) != 0)
        goto done;
    sql.busy_timeout(db, 200);
    /* the database's own `best` view: the winner as every reader of results takes it */
    if (sql.prepare_v2(db, "SELECT config FROM best WHERE device = ?1 AND op = ?2 AND dtype = ?3 "
                           "AND shape = ?4 AND kernel_hash = ?5", -1, &q, NULL) != 0)
        goto done;
    void (*transient)(void *) = (void (*)(void *))-1;
    sql.bind_text(q, 1, device, -1, transient);
    sql.bind_text(q, 2, op, -1, transient);
    sql.bind_text(q, 3, d->dtypes[dt].name, -1, transient);
    sql.bind_text(q, 4, shape, -1, transient);
    sql.bind_text(q, 5, d->kernel_hash, -1, transient);
    if (sql.step(q) == SQLITE_ROW_) {
        const unsigned char *c = sql.column_text(q, 0);
        if (c && snprintf(config, len, "%s", (const char *)c) < (int)len)
            found = 1;
    }
done:
    if (q)
        sql.finalize(q);
    if (db)
        sql.close(db);
    return found;
}

/* ---- starting the tuner ---- */

/* The tuner to start: $TUNEKIT_TUNER, else the one built with this library (when it is still
 * there), else the one installed with it, else `tuner` on the PATH. */
static const char *tuner_path(void)
{
    const char *v = getenv("TUNEKIT_TUNER");
    if (v && *v)
        return v;
#ifdef TK_BUILD_TUNER
    if (access(TK_BUILD_TUNER, X_OK) == 0)
        return TK_BUILD_TUNER;
#endif
#ifdef TK_INSTALL_TUNER
    if (access(TK_INSTALL_TUNER, X_OK) == 0)
        return TK_INSTALL_TUNER;
#endif
    return "tuner";
}

static void job_release(tune_job *j)
{
    if (j && __atomic_sub_fetch(&j->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(j->problem);
        free(j);
    }
}

void rt_tune_job_release(tune_job *j)
{
    job_release(j);
}

static void *watch(void *arg)
{
    tune_job *j = arg;
    int status;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* a program that reaps its children itself (or ignores SIGCHLD) took the tuner's end from
     * us: its lock, free again, says it has ended */
    int fd = open(j->lock, O_RDONLY);
    if (fd >= 0) {
        while (flock(fd, LOCK_SH) != 0 && errno == EINTR)
            ;
        close(fd);
    }
    /* whether the tuner ended well or not (or the program reaped it), the database says what
     * it found */
    char config[sizeof j->config];
    if (rt_online_winner(j->tune_dir, j->d, j->device, j->dt, j->problem, config,
                         sizeof config))
        memcpy(j->config, config, sizeof config);
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    job_release(j);
    return NULL;
}

tune_job *rt_tune_begin(tk_kernel *k, const device_info *dev, int device, int dt,
                        const long long *problem, const long long *count, const char *config,
                        const char *const *start, int n_start, void **args, cudaStream_t stream)
{
    const tk_kernel_desc *d = k->d;
    char tdir[PATH_MAX], folder[PATH_MAX], lock[PATH_MAX], log[PATH_MAX], space[PATH_MAX],
        db[PATH_MAX], cache[PATH_MAX], backend[32], err[1400];
    pthread_mutex_lock(&k->mu);
    snprintf(tdir, sizeof tdir, "%s", k->tune_dir);
    double seconds = k->tune_seconds;
    long long max = k->capture_max > 0 ? k->capture_max : 1LL << 30;
    pthread_mutex_unlock(&k->mu);
    /* the problem, captured with its own search */
    capture_job j = {d, dt, problem, count, config, args, 1, stream, start, n_start, seconds};
    if (capture_write(tdir, max, &j, err, sizeof err) != 0 ||
        capture_folder(tdir, d, dt, problem, folder, sizeof folder) != 0)
        return NULL;   /* a note in the folder says why (or it could not even be written) */
    snprintf(space, sizeof space, "%s/space.yaml", folder);
    struct stat st;
    if (stat(space, &st) != 0)
        return NULL;   /* SKIPPED or FAILED: nothing to tune */
    /* one tuner per problem: the lock is the tuner's for as long as it runs */
    snprintf(lock, sizeof lock, "%s/tune.lock", folder);
    int fd = open(lock, O_RDWR | O_CREAT, 0644);
    if (fd < 0)
        return NULL;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return NULL;   /* tuned now by another process: its winner reaches later processes */
    }
    tune_job *job = calloc(1, sizeof *job);
    long long *prob = malloc((size_t)d->n_fields * sizeof *prob);
    if (!job || !prob) {
        free(job);
        free(prob);
        close(fd);
        return NULL;
    }
    memcpy(prob, problem, (size_t)d->n_fields * sizeof *prob);
    job->d = d;
    job->dt = dt;
    job->problem = prob;
    snprintf(job->device, sizeof job->device, "%s", dev->name);
    snprintf(job->lock, sizeof job->lock, "%s", lock);
    snprintf(job->tune_dir, sizeof job->tune_dir, "%s", tdir);
    snprintf(db, sizeof db, "%s/results.db", tdir);
    snprintf(log, sizeof log, "%s/tune.log", folder);
    snprintf(backend, sizeof backend, "cuda:%d", device);
    cache_dir(cache, sizeof cache);
    const char *tuner = tuner_path();
    char *argv[] = {(char *)tuner, "run", space, "--db", db, "--backend", backend,
                    "--cache", cache, "-q", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    /* the lock goes with the tuner as its fd 3 (the program's copy is closed below); the
     * program's other files do not */
    posix_spawn_file_actions_adddup2(&fa, fd, 3);
    posix_spawn_file_actions_addclosefrom_np(&fa, 4);
    posix_spawn_file_actions_addchdir_np(&fa, folder);
    /* a session of its own: the terminal's signals to the program do not reach it; signals
     * the program blocks or ignores are the tuner's to take */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGCHLD, SIGUSR1,
                               SIGUSR2, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaddset(&dfl, sigs[i]);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    pid_t pid;
    int rc = strchr(tuner, '/') ? posix_spawn(&pid, tuner, &fa, &at, argv, environ)
                                : posix_spawnp(&pid, tuner, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fd);
    if (rc != 0) {
        FILE *f = fopen(log, "w");
        if (f) {
            fprintf(f, "libtunekit: starting %s: %s (set TUNEKIT_TUNER to the tuner's path)\n",
                    tuner, strerror(rc));
            fclose(f);
        }
        free(prob);
        free(job);
        return NULL;
    }
    job->pid = pid;
    job->refs = 2;                    /* the plan's and the watcher's */
    pthread_t t;
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &ta, watch, job) != 0) {
        /* no watcher: the winner still reaches later processes through the database */
        job->refs = 1;
    }
    pthread_attr_destroy(&ta);
    return job;
}

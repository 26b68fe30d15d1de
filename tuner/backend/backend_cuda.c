/* backend_cuda.c: the "cuda" backend, parent side. It never touches CUDA: it starts a worker
 * process (`tuner __worker ORDINAL`, tuner/worker/worker.c) lazily, talks to it over a socket pair that
 * is the worker's stdin and stdout (protocol in tuner/worker/protocol.h), keeps the last lines of its stderr,
 * and watches every evaluation with poll(): a worker that hangs past measure.timeout_s is killed
 * (EVAL_TIMEOUT), one that dies is reaped (EVAL_FAULT with its signal and last stderr line), and
 * the next request starts a fresh one; one SIGKILLed from outside has its evaluation repeated
 * once first. A bad variant costs one row, never the run. A worker that dies after changing the
 * GPU's clocks or power limit has them put back here, from the state file its requests named. */
#include "backend.h"
#include "measure/device_settings.h"
#include "worker/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

enum {
    STARTUP_TIMEOUT_S = 180,     /* CUDA initialisation, also after killing a hung kernel */
    PREPARE_TIMEOUT_S = 600,     /* random inputs + CPU reference of a 256 Mi element problem */
    COPY_TIMEOUT_S = 600,
    QUIT_GRACE_MS = 2000,
    MAX_LINE = 64 << 20,
    TAIL_BYTES = 4096,
};

typedef struct cuda_backend {
    backend base;
    int ordinal;
    char exe[PATH_MAX];
    pid_t pid;               /* 0: no worker */
    int fd;                  /* our end of the worker's stdin/stdout; -1 */
    int err_fd;              /* read end of the worker's stderr; -1 */
    char *rbuf;              /* bytes read from fd, not yet returned as lines */
    size_t rlen, rcap;
    size_t consumed;         /* length of the line handed out last, dropped on the next read */
    char tail[TAIL_BYTES];   /* the last bytes the worker wrote to stderr */
    size_t tail_len;
    int have_device;
    device_info dev;
    int copy_done;
    double copy_gbps;
    wp_buf out;
    const eval_request *submitted;   /* sent by cuda_submit, not yet collected; NULL */
    char device_state[PATH_MAX];     /* the GPU's settings' state file its requests named ("") */
} cuda_backend;

typedef enum { READ_LINE, READ_EOF, READ_TIMEOUT, READ_ERROR } read_outcome;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

/* ---- stderr tail ---- */

static void tail_append(cuda_backend *cb, const char *s, size_t n)
{
    if (n >= TAIL_BYTES) {
        memcpy(cb->tail, s + n - TAIL_BYTES, TAIL_BYTES);
        cb->tail_len = TAIL_BYTES;
        return;
    }
    if (cb->tail_len + n > TAIL_BYTES) {
        size_t drop = cb->tail_len + n - TAIL_BYTES;
        memmove(cb->tail, cb->tail + drop, cb->tail_len - drop);
        cb->tail_len -= drop;
    }
    memcpy(cb->tail + cb->tail_len, s, n);
    cb->tail_len += n;
}

/* Reads what the worker's stderr holds now. Returns 1 at end of file, else 0. */
static int drain_stderr(cuda_backend *cb)
{
    char buf[4096];
    for (;;) {
        ssize_t r = read(cb->err_fd, buf, sizeof buf);
        if (r > 0) { tail_append(cb, buf, (size_t)r); continue; }
        if (r < 0 && errno == EINTR) continue;
        return r == 0;
    }
}

/* The last non-empty line of the stderr tail, into out (empty when there is none). */
static void last_stderr_line(const cuda_backend *cb, char *out, size_t len)
{
    size_t end = cb->tail_len;
    while (end > 0 && (cb->tail[end - 1] == '\n' || cb->tail[end - 1] == '\r' ||
                       cb->tail[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && cb->tail[start - 1] != '\n') start--;
    size_t n = end - start < len - 1 ? end - start : len - 1;
    memcpy(out, cb->tail + start, n);
    out[n] = 0;
}

/* ---- the worker process ---- */

static void close_fds(cuda_backend *cb)
{
    if (cb->fd >= 0) close(cb->fd);
    if (cb->err_fd >= 0) close(cb->err_fd);
    cb->fd = cb->err_fd = -1;
    cb->rlen = cb->consumed = 0;
}

/* Waits up to grace_ms for the worker to exit, then kills it; reaps it. Returns its wait status
 * (-1 when it could not be reaped). Closes the pipes first so a blocked worker sees EOF. */
static int worker_reap(cuda_backend *cb, int grace_ms)
{
    int status = -1;
    if (cb->fd >= 0) { close(cb->fd); cb->fd = -1; }
    if (cb->pid > 0) {
        for (int waited = 0;; waited += 10) {
            pid_t r = waitpid(cb->pid, &status, WNOHANG);
            if (r == cb->pid) break;
            if (r < 0 && errno != EINTR) { status = -1; break; }
            if (waited >= grace_ms) {
                kill(cb->pid, SIGKILL);
                while (waitpid(cb->pid, &status, 0) < 0 && errno == EINTR) {}
                break;
            }
            sleep_ms(10);
        }
    }
    cb->pid = 0;
    if (cb->err_fd >= 0) drain_stderr(cb);
    close_fds(cb);
    /* a worker that changed the GPU's clocks or power limit and did not put them back (it
     * died, or was killed by the watchdog) left its state file: restored here */
    char err[PATH_MAX + 256];
    if (cb->device_state[0] && devset_restore_file(cb->device_state, err, sizeof err) < 0)
        fprintf(stderr, "tuner: %s\n", err);
    return status;
}

static void worker_kill(cuda_backend *cb)
{
    if (cb->pid > 0) kill(cb->pid, SIGKILL);
    worker_reap(cb, 0);
}

/* "worker died: signal N (<last stderr line>)" or "worker died: exit status N (...)". */
static void death_message(cuda_backend *cb, int status, char *out, size_t len)
{
    char line[512];
    last_stderr_line(cb, line, sizeof line);
    if (status >= 0 && WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        snprintf(out, len, "worker died: signal %d (%s)", sig, line[0] ? line : strsignal(sig));
    } else if (status >= 0 && WIFEXITED(status)) {
        snprintf(out, len, "worker died: exit status %d%s%s%s", WEXITSTATUS(status),
                 line[0] ? " (" : "", line, line[0] ? ")" : "");
    } else {
        snprintf(out, len, "worker died%s%s%s", line[0] ? " (" : "", line, line[0] ? ")" : "");
    }
}

/* Reads the next line into *line (NUL-terminated, without its LF; valid until the next call).
 * deadline: absolute now_s() time, or 0 for none. */
static read_outcome read_line(cuda_backend *cb, double deadline, char **line, size_t *n,
                              char *err, size_t len)
{
    if (cb->consumed) {
        memmove(cb->rbuf, cb->rbuf + cb->consumed, cb->rlen - cb->consumed);
        cb->rlen -= cb->consumed;
        cb->consumed = 0;
    }
    for (;;) {
        char *nl = cb->rlen ? memchr(cb->rbuf, '\n', cb->rlen) : NULL;
        if (nl) {
            *nl = 0;
            *line = cb->rbuf;
            *n = (size_t)(nl - cb->rbuf);
            cb->consumed = *n + 1;
            return READ_LINE;
        }
        if (cb->rlen >= MAX_LINE) {
            snprintf(err, len, "worker protocol: a line longer than %d bytes", MAX_LINE);
            return READ_ERROR;
        }
        int timeout_ms = -1;
        if (deadline > 0) {
            double left = deadline - now_s();
            if (left <= 0) return READ_TIMEOUT;
            timeout_ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
        }
        struct pollfd pfd[2] = { { cb->fd, POLLIN, 0 }, { cb->err_fd, POLLIN, 0 } };
        int np = cb->err_fd >= 0 ? 2 : 1;
        int r = poll(pfd, (nfds_t)np, timeout_ms);
        if (r < 0) {
            if (errno == EINTR) continue;
            snprintf(err, len, "poll on the worker: %s", strerror(errno));
            return READ_ERROR;
        }
        if (r == 0) continue;   /* the deadline check above decides */
        if (np == 2 && pfd[1].revents) {
            if (drain_stderr(cb)) { close(cb->err_fd); cb->err_fd = -1; }
        }
        if (pfd[0].revents) {
            if (cb->rcap - cb->rlen < 65536) {
                size_t cap = cb->rcap ? cb->rcap * 2 : 131072;
                char *b = realloc(cb->rbuf, cap);
                if (!b) { snprintf(err, len, "out of memory reading the worker"); return READ_ERROR; }
                cb->rbuf = b;
                cb->rcap = cap;
            }
            ssize_t got = read(cb->fd, cb->rbuf + cb->rlen, cb->rcap - cb->rlen - 1);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got <= 0) return READ_EOF;   /* ECONNRESET counts as the worker's end too */
            cb->rlen += (size_t)got;
        }
    }
}

/* Sends b's line. 0, or -1 when the worker is gone (err says so). */
static int send_all(cuda_backend *cb, const wp_buf *b, char *err, size_t len)
{
    if (b->failed) { snprintf(err, len, "out of memory formatting a request"); return -1; }
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = send(cb->fd, b->s + off, b->len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pfd = { cb->fd, POLLOUT, 0 };
            if (poll(&pfd, 1, 1000) < 0 && errno != EINTR) break;
            continue;
        }
        if (w <= 0) {
            snprintf(err, len, "cannot write to the worker: %s", strerror(errno));
            return -1;
        }
        off += (size_t)w;
    }
    return off == b->len ? 0 : -1;
}

/* Starts a worker and reads its device line. 0, or -1 with err (the worker is reaped). */
static int worker_start(cuda_backend *cb, char *err, size_t len)
{
    int sv[2] = { -1, -1 }, ep[2] = { -1, -1 };
    char ordinal[16];
    snprintf(ordinal, sizeof ordinal, "%d", cb->ordinal);
    char *const argv[] = { "tuner", "__worker", ordinal, NULL };
    cb->tail_len = 0;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || pipe2(ep, O_CLOEXEC)) {
        snprintf(err, len, "cannot create the worker's pipes: %s", strerror(errno));
        goto fail;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, len, "cannot start the worker: fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        /* Child: only async-signal-safe calls until exec. Dies with the parent. No core file:
         * a GPU process's core is huge and useless, and dumping it would outlast the watchdog
         * (a crash would read as a timeout). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(126);
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0 || dup2(ep[1], 2) < 0) _exit(126);
        execv(cb->exe, argv);
        static const char msg[] = "tuner worker: exec failed: ";
        const char *why = strerror(errno);
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        ignored = write(2, cb->exe, strlen(cb->exe));
        ignored = write(2, ": ", 2);
        ignored = write(2, why, strlen(why));
        ignored = write(2, "\n", 1);
        (void)ignored;
        _exit(127);
    }
    close(sv[1]);
    close(ep[1]);
    cb->pid = pid;
    cb->fd = sv[0];
    cb->err_fd = ep[0];
    cb->rlen = cb->consumed = 0;
    fcntl(cb->fd, F_SETFL, fcntl(cb->fd, F_GETFL) | O_NONBLOCK);
    fcntl(cb->err_fd, F_SETFL, fcntl(cb->err_fd, F_GETFL) | O_NONBLOCK);

    char *line;
    size_t n;
    read_outcome ro = read_line(cb, now_s() + STARTUP_TIMEOUT_S, &line, &n, err, len);
    if (ro == READ_TIMEOUT) {
        snprintf(err, len, "the worker did not start within %d s", STARTUP_TIMEOUT_S);
        worker_kill(cb);
        return -1;
    }
    if (ro == READ_EOF) {
        int status = worker_reap(cb, QUIT_GRACE_MS);
        char why[768];
        death_message(cb, status, why, sizeof why);
        snprintf(err, len, "cannot start the worker: %s", why);
        return -1;
    }
    if (ro == READ_ERROR) { worker_kill(cb); return -1; }

    wp_msg m;
    device_info dev;
    int rc = -1;
    if (wp_parse(line, n, &m, err, len)) goto parsed;
    if (strcmp(m.type, "error") == 0) {
        const char *msg = wp_get(&m, "message");
        snprintf(err, len, "%s", msg ? msg : "the worker could not open its device");
        goto parsed;
    }
    if (wp_parse_device(&m, &dev, err, len)) goto parsed;
    if (cb->have_device && strcmp(dev.uuid, cb->dev.uuid) != 0) {
        snprintf(err, len, "the restarted worker sees another device (%s, was %s)", dev.uuid,
                 cb->dev.uuid);
        goto parsed;
    }
    cb->dev = dev;
    cb->have_device = 1;
    rc = 0;
parsed:
    wp_msg_clear(&m);
    if (rc) worker_reap(cb, QUIT_GRACE_MS);
    return rc;
fail:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0) close(sv[i]);
        if (ep[i] >= 0) close(ep[i]);
    }
    return -1;
}

static int worker_ensure(cuda_backend *cb, char *err, size_t len)
{
    return cb->pid > 0 ? 0 : worker_start(cb, err, len);
}

/* ---- the vtable ---- */

static int cuda_device(backend *b, device_info *out, char *err, size_t len)
{
    cuda_backend *cb = (cuda_backend *)b;
    if (!cb->have_device && worker_ensure(cb, err, len)) return -1;
    *out = cb->dev;
    return 0;
}

static double cuda_copy_gbps(backend *b)
{
    cuda_backend *cb = (cuda_backend *)b;
    char err[512];
    if (cb->copy_done) return cb->copy_gbps;
    cb->copy_done = 1;
    if (worker_ensure(cb, err, sizeof err)) return 0;
    wp_begin(&cb->out, "copy");
    if (wp_end(&cb->out) || send_all(cb, &cb->out, err, sizeof err)) {
        worker_kill(cb);
        return 0;
    }
    char *line;
    size_t n;
    read_outcome ro = read_line(cb, now_s() + COPY_TIMEOUT_S, &line, &n, err, sizeof err);
    if (ro != READ_LINE) {
        worker_kill(cb);
        return 0;
    }
    wp_msg m;
    double gbps;
    if (wp_parse(line, n, &m, err, sizeof err) == 0 && strcmp(m.type, "copy") == 0 &&
        wp_parse_f64(wp_get(&m, "gbps"), &gbps) == 0 && gbps > 0)
        cb->copy_gbps = gbps;
    else if (strcmp(m.type, "error") != 0)
        worker_kill(cb);   /* not the protocol: start afresh next time */
    wp_msg_clear(&m);
    return cb->copy_gbps;
}

/* The worker died (EOF): reap it and record the death as the evaluation's fault; *killed says
 * whether it was a SIGKILL (the watchdog's own kills never come here). */
static int result_died(cuda_backend *cb, eval_result *out, int *killed)
{
    int status = worker_reap(cb, QUIT_GRACE_MS);
    out->status = EVAL_FAULT;
    death_message(cb, status, out->error, sizeof out->error);
    *killed = status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    return 0;
}

/* Sends req to the worker (started or restarted as needed). A worker that died while idle is
 * restarted once; a second failure stops the run (-1). */
static int send_request(cuda_backend *cb, const eval_request *req, char *err, size_t len)
{
    if (req->device_state) snprintf(cb->device_state, sizeof cb->device_state, "%s", req->device_state);
    if (wp_format_eval(&cb->out, req)) { snprintf(err, len, "out of memory"); return -1; }
    for (int attempt = 0;; attempt++) {
        if (worker_ensure(cb, err, len)) return -1;
        if (send_all(cb, &cb->out, err, len) == 0) return 0;
        worker_reap(cb, QUIT_GRACE_MS);
        if (attempt == 1) return -1;
    }
}

/* One evaluation on the worker: req is sent unless cuda_submit sent it already; *killed: the
 * worker was SIGKILLed during it (see cuda_evaluate). The watchdog's clock starts here, so the
 * time the caller spent between submitting and collecting counts towards the preparing
 * deadline only, which is ten minutes. */
static int evaluate_once(cuda_backend *cb, const eval_request *req, eval_result *out,
                         int *killed, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    *killed = 0;
    int sent = cb->submitted == req;
    cb->submitted = NULL;
    if (!sent && send_request(cb, req, err, len)) return -1;

    int prepared = 0;
    double deadline = now_s() + PREPARE_TIMEOUT_S;
    for (;;) {
        char *line;
        size_t n;
        read_outcome ro = read_line(cb, deadline, &line, &n, err, len);
        if (ro == READ_EOF) return result_died(cb, out, killed);
        if (ro == READ_ERROR) { worker_kill(cb); return -1; }
        if (ro == READ_TIMEOUT) {
            worker_kill(cb);
            out->status = EVAL_TIMEOUT;
            if (prepared)
                snprintf(out->error, sizeof out->error,
                         "watchdog: no result within %g s; worker killed", req->measure.timeout_s);
            else
                snprintf(out->error, sizeof out->error,
                         "watchdog: preparing the problem took over %d s; worker killed",
                         PREPARE_TIMEOUT_S);
            return 0;
        }
        wp_msg m;
        int rc = -1;
        if (wp_parse(line, n, &m, err, len)) goto protocol_error;
        if (strcmp(m.type, "prepared") == 0 && !prepared) {
            prepared = 1;
            /* a playoff times each of its configs as long as one evaluation may take */
            deadline = req->measure.timeout_s > 0
                           ? now_s() + req->measure.timeout_s * (req->n_playoff > 1 ? req->n_playoff : 1)
                           : 0;
            wp_msg_clear(&m);
            continue;
        }
        if (strcmp(m.type, "result") == 0) {
            if (wp_parse_result(&m, out, err, len)) goto protocol_error;
            /* The worker exits after a fault (its context is lost): reap it now. */
            if (out->status == EVAL_FAULT) worker_reap(cb, QUIT_GRACE_MS);
            rc = 0;
        } else if (strcmp(m.type, "error") == 0) {
            const char *msg = wp_get(&m, "message");
            snprintf(err, len, "worker: %s", msg ? msg : "unspecified error");
        } else {
            snprintf(err, len, "worker protocol: unexpected '%s' message", m.type);
            goto protocol_error;
        }
        wp_msg_clear(&m);
        return rc;
    protocol_error:
        wp_msg_clear(&m);
        worker_kill(cb);
        return -1;
    }
}

/* A worker killed from outside by SIGKILL (an operator, the out-of-memory killer) says nothing
 * about the config: the evaluation is repeated once on a fresh worker, and said on stderr. A
 * second death, or any other (a signal the worker raised itself, an exit, a fault it reported),
 * is the config's and recorded as its fault. */
static int cuda_evaluate(backend *b, const eval_request *req, eval_result *out, char *err,
                         size_t len)
{
    cuda_backend *cb = (cuda_backend *)b;
    if (cb->submitted && cb->submitted != req) {
        cb->submitted = NULL;
        snprintf(err, len, "cuda backend: an evaluation was submitted and another collected");
        worker_kill(cb);   /* its answer to the submitted request must not be read as this one's */
        return -1;
    }
    int killed;
    int rc = evaluate_once(cb, req, out, &killed, err, len);
    if (rc == 0 && out->status == EVAL_FAULT && killed) {
        fprintf(stderr, "\ntuner: cuda:%d: %s during an evaluation, not by its own doing; "
                "evaluating it again on a fresh worker\n", cb->ordinal, out->error);
        eval_result_clear(out);
        rc = evaluate_once(cb, req, out, &killed, err, len);
    }
    return rc;
}

/* Sends req ahead: the worker starts on it while the caller does other work; the caller's next
 * cuda_evaluate with the same req collects the result. */
static int cuda_submit(backend *b, const eval_request *req, char *err, size_t len)
{
    cuda_backend *cb = (cuda_backend *)b;
    if (cb->submitted) {
        snprintf(err, len, "cuda backend: an evaluation is submitted already");
        return -1;
    }
    if (send_request(cb, req, err, len)) return -1;
    cb->submitted = req;
    return 0;
}

static void cuda_close(backend *b)
{
    cuda_backend *cb = (cuda_backend *)b;
    if (!cb) return;
    if (cb->pid > 0) {
        char err[128];
        wp_begin(&cb->out, "quit");
        if (wp_end(&cb->out) == 0) send_all(cb, &cb->out, err, sizeof err);
        worker_reap(cb, QUIT_GRACE_MS);
    }
    close_fds(cb);
    free(cb->rbuf);
    wp_buf_free(&cb->out);
    free(cb);
}

static const backend_vtable cuda_vtable = {
    .device = cuda_device,
    .copy_gbps = cuda_copy_gbps,
    .evaluate = cuda_evaluate,
    .submit = cuda_submit,
    .close = cuda_close,
};

backend *backend_cuda_open(int device_ordinal, const char *self_exe, char *err, size_t len)
{
    if (device_ordinal < 0) {
        snprintf(err, len, "cuda backend: device ordinal %d is negative", device_ordinal);
        return NULL;
    }
    const char *exe = self_exe ? self_exe : "/proc/self/exe";
    cuda_backend *cb = calloc(1, sizeof *cb);
    if (!cb) { snprintf(err, len, "out of memory"); return NULL; }
    if (strlen(exe) >= sizeof cb->exe) {
        snprintf(err, len, "cuda backend: executable path too long");
        free(cb);
        return NULL;
    }
    /* "/proc/self/exe" is resolved by the child at exec time: the running binary, even if the
     * file was rebuilt since. */
    snprintf(cb->exe, sizeof cb->exe, "%s", exe);
    cb->base.vt = &cuda_vtable;
    cb->base.needs_modules = 1;
    if (device_ordinal == 0) snprintf(cb->base.spec, sizeof cb->base.spec, "cuda");
    else snprintf(cb->base.spec, sizeof cb->base.spec, "cuda:%d", device_ordinal);
    cb->ordinal = device_ordinal;
    cb->pid = 0;
    cb->fd = cb->err_fd = -1;
    return &cb->base;
}

/* compiler_nvcc.c: nvcc behind the compiler interface (compiler.h), for kernels NVRTC cannot
 * take: a source with host code (main, std::vector, cudaMemcpyToSymbol) or headers only nvcc
 * has. Each variant is one nvcc process (posix_spawn, no shell, in its own process group with
 * TMPDIR in the variant's work folder, killed past a time limit) that compiles a wrapper file,
 * which includes the source and takes the address of each templated kernel so that nvcc
 * instantiates it, to a cubin, keeping the PTX. Kernels and variables are then found in that
 * PTX by demangling its names and comparing them with the name expressions, as NVRTC's lowered
 * names would have said: exactly (blanks aside), then without integer suffixes ("64u") and
 * leading "::", then (kernels only) by the unique entry of the same base name. */
#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "kernel_signature.h"
#include "nvrtc_load.h"
#include "ptx.h"
#include "source_hint.h"

extern char **environ;

enum {
    NVCC_LIMIT_S = 300,           /* one variant's compile */
    NVCC_PROBE_LIMIT_S = 60,      /* --version, --list-gpu-arch */
    LOG_CAP = 64 << 10,           /* what is kept of nvcc's output */
};

typedef struct nvcc_compiler {
    compiler base;
    char path[PATH_MAX];          /* nvcc, absolute */
} nvcc_compiler;

/* ---- finding nvcc ---- */

static int is_program(const char *path)
{
    struct stat st;
    return path[0] && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* path made absolute (against the current directory) into out. */
static void absolute(const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(out, len, "%s/%s", cwd, path);
    else
        snprintf(out, len, "%s", path);
}

/* The first nvcc program in $PATH into out. 0, or -1. */
static int search_path(const char *name, char *out, size_t len)
{
    const char *p = getenv("PATH");
    while (p && *p) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%.*s%s%s", (int)n, p, n ? "/" : "", name);
        if (is_program(cand)) {
            absolute(cand, out, len);
            return 0;
        }
        p = colon ? colon + 1 : NULL;
    }
    return -1;
}

/* nvcc's path into out: $TUNEKIT_NVCC (only it, when set), $CUDA_HOME/bin/nvcc, the toolkit
 * beside NVRTC, /usr/local/cuda/bin/nvcc, PATH. 0, or -1 with err saying what was tried. */
static int find_nvcc(char *out, size_t len, char *err, size_t elen)
{
    const char *env = getenv("TUNEKIT_NVCC");
    if (env) {
        if (!strchr(env, '/') && env[0] && search_path(env, out, len) == 0)
            return 0;
        if (strchr(env, '/') && is_program(env)) {
            absolute(env, out, len);
            return 0;
        }
        snprintf(err, elen, "nvcc not found: $TUNEKIT_NVCC is '%s', which is not an executable "
                 "program (unset it to search $CUDA_HOME/bin, /usr/local/cuda/bin and PATH)", env);
        return -1;
    }
    char tried[2048] = "", cand[PATH_MAX + 64];
    size_t at = 0;
    const char *home = getenv("CUDA_HOME");
    if (home && home[0]) {
        snprintf(cand, sizeof cand, "%s/bin/nvcc", home);
        if (is_program(cand)) {
            absolute(cand, out, len);
            return 0;
        }
        at += (size_t)snprintf(tried + at, sizeof tried - at, "%s ($CUDA_HOME), ", cand);
    }
    nvrtc_api api;
    char ignored[512];
    if (nvrtc_load(&api, ignored, sizeof ignored) == 0) {
        size_t n = strlen(api.include_dir);
        int found = 0;
        if (n > 8 && strcmp(api.include_dir + n - 8, "/include") == 0) {
            snprintf(cand, sizeof cand, "%.*s/bin/nvcc", (int)(n - 8), api.include_dir);
            if ((found = is_program(cand)))
                absolute(cand, out, len);
            else if (at < sizeof tried)
                snprintf(tried + at, sizeof tried - at, "%s (beside NVRTC), ", cand);
        }
        nvrtc_unload(&api);
        if (found)
            return 0;
    }
    if (is_program("/usr/local/cuda/bin/nvcc")) {
        snprintf(out, len, "/usr/local/cuda/bin/nvcc");
        return 0;
    }
    if (search_path("nvcc", out, len) == 0)
        return 0;
    snprintf(err, elen, "nvcc not found (tried %s/usr/local/cuda/bin/nvcc, PATH): install the CUDA "
             "toolkit or set kernel.compiler: nvrtc", tried);
    return -1;
}

/* ---- running a program ---- */

typedef struct run_result {
    int exited;                   /* 1 when it exited (status), 0 when a signal ended it */
    int status;                   /* exit status, or the signal */
    int timed_out;                /* killed past the limit */
    char *out;                    /* stdout and stderr together, NUL-terminated, at most LOG_CAP
                                     bytes kept (then cut = 1) */
    size_t out_n;
    int cut;
} run_result;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* environ with TMPDIR=tmpdir. NULL when memory ran out; free the last entry and the array. */
static char **env_with_tmpdir(const char *tmpdir)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    size_t k = 0, len = strlen(tmpdir) + 8;
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "TMPDIR=", 7) != 0)
            env[k++] = environ[i];
    if (!(env[k] = malloc(len))) {
        free(env);
        return NULL;
    }
    snprintf(env[k], len, "TMPDIR=%s", tmpdir);
    return env;
}

static void env_free(char **env)
{
    if (!env)
        return;
    size_t k = 0;
    while (env[k] && strncmp(env[k], "TMPDIR=", 7) != 0)
        k++;
    free(env[k]);
    free(env);
}

/* Runs argv (argv[0] a path) with stdin from /dev/null and stdout and stderr into r->out, in
 * its own process group (so that killing it past limit_s kills what it started: cicc, ptxas),
 * with TMPDIR=tmpdir when tmpdir is not NULL. 0 with *r (free r->out), or -1 with err when it
 * could not be started. */
static int run_program(char *const argv[], const char *tmpdir, int limit_s, run_result *r,
                       char *err, size_t len)
{
    int p[2] = {-1, -1}, rc = -1, have_fa = 0, have_attr = 0;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    char **env = NULL;
    pid_t pid = -1;
    memset(r, 0, sizeof *r);
    if (!(r->out = malloc(LOG_CAP + 1))) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (tmpdir && !(env = env_with_tmpdir(tmpdir))) {
        snprintf(err, len, "out of memory");
        goto done;
    }
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, len, "cannot start %s: pipe: %s", argv[0], strerror(errno));
        goto done;
    }
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    int e = posix_spawn_file_actions_init(&fa);
    have_fa = e == 0;
    if (e == 0) e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (e == 0) e = posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    if (e == 0) e = posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    if (e == 0) e = posix_spawnattr_init(&attr);
    have_attr = have_fa && e == 0;
    if (e == 0) e = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                        POSIX_SPAWN_SETSIGDEF);
    if (e == 0) e = posix_spawnattr_setpgroup(&attr, 0);
    if (e == 0) e = posix_spawnattr_setsigmask(&attr, &none);
    if (e == 0) e = posix_spawnattr_setsigdefault(&attr, &dfl);
    if (e == 0) e = posix_spawn(&pid, argv[0], &fa, &attr, argv, env ? env : environ);
    if (e != 0) {
        snprintf(err, len, "cannot start %s: %s", argv[0], strerror(e));
        goto done;
    }
    close(p[1]);
    p[1] = -1;
    double deadline = now_s() + limit_s;
    char chunk[8192];
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            r->timed_out = 1;
            break;
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int ready = poll(&pf, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR) {
            kill(-pid, SIGKILL);
            break;
        }
        if (ready <= 0)
            continue;
        ssize_t got = read(p[0], chunk, sizeof chunk);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            break;   /* end of its output */
        size_t keep = (size_t)got;
        if (keep > LOG_CAP - r->out_n) {
            keep = LOG_CAP - r->out_n;
            r->cut = 1;
        }
        memcpy(r->out + r->out_n, chunk, keep);
        r->out_n += keep;
    }
    r->out[r->out_n] = 0;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    r->exited = WIFEXITED(st);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? WTERMSIG(st) : -1;
    rc = 0;
done:
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    if (have_attr)
        posix_spawnattr_destroy(&attr);
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
    env_free(env);
    if (rc != 0) {
        free(r->out);
        r->out = NULL;
    }
    return rc;
}

/* ---- the probe ---- */

/* "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88" (or the release alone). */
static int parse_version(const char *text, char *out, size_t len)
{
    const char *rel = strstr(text, "release ");
    if (!rel)
        return -1;
    const char *v = strstr(rel, ", V");
    const char *s = v ? v + 3 : rel + 8;
    size_t n = strspn(s, "0123456789.");
    if (n == 0)
        return -1;
    snprintf(out, len, "%.*s", (int)n, s);
    return 0;
}

/* 1 when the output of --list-gpu-arch has the line compute_<cc>. */
static int lists_arch(const char *text, int cc)
{
    char want[32];
    int n = snprintf(want, sizeof want, "compute_%d", cc);
    for (const char *p = strstr(text, want); p; p = strstr(p + 1, want))
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\r' || p[n] == 0))
            return 1;
    return 0;
}

/* First line of text into out, for an error message. */
static void first_line(const char *text, char *out, size_t len)
{
    while (*text == '\n' || *text == '\r')
        text++;
    snprintf(out, len, "%.*s", (int)strcspn(text, "\r\n"), text);
}

int compiler_nvcc_probe(int cc, compiler_info *out, char *err, size_t len)
{
    char path[PATH_MAX], version[64], line[256];
    run_result r;
    if (find_nvcc(path, sizeof path, err, len) != 0)
        return -1;
    char *const ver_argv[] = {path, "--version", NULL};
    if (run_program(ver_argv, NULL, NVCC_PROBE_LIMIT_S, &r, err, len) != 0)
        return -1;
    int ok = r.exited && r.status == 0 && parse_version(r.out, version, sizeof version) == 0;
    if (!ok) {
        first_line(r.out, line, sizeof line);
        snprintf(err, len, "%s --version %s%s%s", path, r.timed_out ? "did not answer" :
                 "gave no release", line[0] ? ": " : "", line);
        free(r.out);
        return -1;
    }
    free(r.out);
    char *const arch_argv[] = {path, "--list-gpu-arch", NULL};
    if (run_program(arch_argv, NULL, NVCC_PROBE_LIMIT_S, &r, err, len) != 0)
        return -1;
    if (!r.exited || r.status != 0) {
        first_line(r.out, line, sizeof line);
        snprintf(err, len, "nvcc %s (%s) cannot list its GPU architectures (--list-gpu-arch)%s%s",
                 version, path, line[0] ? ": " : "", line);
        free(r.out);
        return -1;
    }
    ok = lists_arch(r.out, cc);
    free(r.out);
    if (!ok) {
        snprintf(err, len, "nvcc %s (%s) cannot compile for sm_%d", version, path, cc);
        return -1;
    }
    snprintf(out->kind, sizeof out->kind, "nvcc");
    snprintf(out->version, sizeof out->version, "%s", version);
    snprintf(out->tool, sizeof out->tool, "%s", path);
    return 0;
}

/* ---- names: demangled and compared ---- */

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The name of a demangled function or variable, in place: without the parameter list (the last
 * top-level "(...)") and the return type (up to the last top-level blank). Returns s. */
static char *strip_signature(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    if (n && s[n - 1] == ')') {
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (s[i] == ')')
                depth++;
            else if (s[i] == '(' && --depth == 0) {
                s[i] = 0;
                break;
            }
        }
    }
    int depth = 0;
    char *start = s;
    for (char *p = s; *p; p++) {
        if (*p == '<' || *p == '(')
            depth++;
        else if ((*p == '>' || *p == ')') && depth > 0)
            depth--;
        else if (*p == ' ' && depth == 0)
            start = p + 1;
    }
    if (start != s)
        memmove(s, start, strlen(start) + 1);
    return s;
}

/* s without blanks, in place. */
static char *squeeze(char *s)
{
    char *w = s;
    for (const char *p = s; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            *w++ = *p;
    *w = 0;
    return s;
}

/* The looser form of a squeezed name, in place: integer literals without their suffixes (64u,
 * 5ull), true and false as 1 and 0, a function argument &(f(float*,int)) or &f as f, no "::"
 * that starts a name, and no anonymous-namespace or nvcc-internal first component
 * ("(anonymousnamespace)::", "_INTERNAL_..._cu_...::"). */
static char *loosen(char *s)
{
    static const char anon[] = "(anonymousnamespace)::";
    if (strncmp(s, anon, sizeof anon - 1) == 0)
        memmove(s, s + sizeof anon - 1, strlen(s + sizeof anon - 1) + 1);
    if (strncmp(s, "_INTERNAL_", 10) == 0 && strstr(s, "::")) {
        char *rest = strstr(s, "::") + 2;
        memmove(s, rest, strlen(rest) + 1);
    }
    char *w = s;
    for (const char *p = s; *p;) {
        int starts = p == s || !is_ident(p[-1]);
        if (starts && p[0] == ':' && p[1] == ':') {
            p += 2;
            continue;
        }
        /* a bool template argument: the demangler writes true and false, a space 1 and 0 */
        if (starts && (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0)) {
            size_t wn = *p == 't' ? 4 : 5;
            if (!is_ident(p[wn])) {
                *w++ = *p == 't' ? '1' : '0';
                p += wn;
                continue;
            }
        }
        /* a function as a template argument: the demangler writes &(f(float*,int)), a user
         * writes f or &f; each is f */
        if (*p == '&' && p > s && (p[-1] == '<' || p[-1] == ',')) {
            const char *q = p + 1;
            if (*q == '(') {
                const char *n = ++q;
                while (is_ident(*q) || (q[0] == ':' && q[1] == ':'))
                    q += q[0] == ':' ? 2 : 1;
                int depth = 0;
                const char *e = q;
                if (q > n && *q == '(') {
                    for (; *e; e++) {
                        if (*e == '(')
                            depth++;
                        else if (*e == ')' && --depth == 0)
                            break;
                    }
                }
                if (q > n && *q == '(' && e[0] == ')' && e[1] == ')') {
                    while (n < q)
                        *w++ = *n++;
                    p = e + 2;
                    continue;
                }
            } else if (is_ident(*q) || *q == ':') {
                p = q;
                continue;
            }
        }
        if (starts && *p >= '0' && *p <= '9') {
            while (is_ident(*p) && !strchr("uUlL", *p))
                *w++ = *p++;
            const char *q = p;
            while (*q && strchr("uUlL", *q))
                q++;
            if (q - p <= 3 && !is_ident(*q))
                p = q;        /* a suffix: dropped */
            continue;
        }
        *w++ = *p++;
    }
    *w = 0;
    return s;
}

/* The base name of a stripped name, into out: after the last "::", before the first '<'. */
static void base_name(const char *s, char *out, size_t len)
{
    size_t n = strcspn(s, "<");
    const char *b = s;
    for (const char *p = s; p < s + n; p++)
        if (p[0] == ':' && p[1] == ':')
            b = p + 2;
    snprintf(out, len, "%.*s", (int)(s + n - b), b);
}

/* The names of a PTX list, demangled (full) and stripped, squeezed and loosened, for matching. */
typedef struct name_set {
    size_t n;
    char **full, **exact, **loose;
} name_set;

static void name_set_free(name_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->full[i]);
        free(s->exact[i]);
        free(s->loose[i]);
    }
    free(s->full);
    free(s->exact);
    free(s->loose);
    memset(s, 0, sizeof *s);
}

/* 0, or -1 when memory ran out. */
static int name_set_make(name_set *s, char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    memset(s, 0, sizeof *s);
    s->full = calloc(n + 1, sizeof *s->full);
    s->exact = calloc(n + 1, sizeof *s->exact);
    s->loose = calloc(n + 1, sizeof *s->loose);
    if (!s->full || !s->exact || !s->loose) {
        name_set_free(s);
        return -1;
    }
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        if (!(s->full[i] = kernel_demangle(names[i])) || !(s->exact[i] = strdup(s->full[i])) ||
            !(s->loose[i] = strdup(s->full[i]))) {
            name_set_free(s);
            return -1;
        }
        squeeze(strip_signature(s->exact[i]));
        loosen(squeeze(strip_signature(s->loose[i])));
    }
    return 0;
}

/* The index in s of the name expression expr: an exact match, else a loose one, else (when
 * by_base) the only name of the same base name. -1 when none, -2 when several share the base
 * name and none matches better, -3 when memory ran out. */
static long name_match(const name_set *s, const char *expr, int by_base)
{
    char *e = strdup(expr), *l = strdup(expr);
    long found = -1;
    if (!e || !l) {
        found = -3;
        goto done;
    }
    squeeze(e);
    loosen(squeeze(l));
    for (size_t i = 0; i < s->n && found < 0; i++)
        if (strcmp(s->exact[i], e) == 0)
            found = (long)i;
    for (size_t i = 0; i < s->n && found < 0; i++)
        if (strcmp(s->loose[i], l) == 0)
            found = (long)i;
    if (found < 0 && by_base) {
        char want[512], have[512];
        base_name(l, want, sizeof want);
        for (size_t i = 0; i < s->n && found != -2; i++) {
            base_name(s->loose[i], have, sizeof have);
            if (strcmp(have, want) == 0)
                found = found == -1 ? (long)i : -2;
        }
    }
done:
    free(e);
    free(l);
    return found;
}

/* "what (its kernels: a, b)" or "... (it has no kernels)", malloc'd. */
static char *refusal(const char *what, const name_set *s)
{
    size_t n = strlen(what) + 64;
    for (size_t i = 0; i < s->n; i++)
        n += strlen(s->full[i]) + 2;
    char *log = malloc(n);
    if (!log)
        return NULL;
    size_t at = (size_t)snprintf(log, n, "%s (%s", what, s->n ? "its kernels: " :
                                 "it has no kernels");
    for (size_t i = 0; i < s->n; i++)
        at += (size_t)snprintf(log + at, n - at, "%s%s", i ? ", " : "", s->full[i]);
    snprintf(log + at, n - at, ")");
    return log;
}

/* ---- compiling ---- */

/* The whole file at path, NUL-terminated. NULL when it cannot be read. */
static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1))) {
            *n = fread(buf, 1, (size_t)size, f);
            buf[*n] = 0;
            if (*n != (size_t)size) {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    return buf;
}

/* out->log = a copy of text (with a line saying it was cut when it was), or NULL when text is
 * empty or only blanks. */
static void set_log(cc_output *out, const char *prefix, const char *text, int cut)
{
    free(out->log);
    out->log = NULL;
    const char *p = text ? text : "";
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    if (!*p && !prefix)
        return;
    size_t n = (prefix ? strlen(prefix) + 1 : 0) + strlen(p) + 64;
    if ((out->log = malloc(n)))
        snprintf(out->log, n, "%s%s%s%s", prefix ? prefix : "", prefix && *p ? "\n" : "", p,
                 cut ? "\n[nvcc's output cut at 64 KiB]" : "");
}

static int nvcc_compile(compiler *base, const cc_input *in, cc_output *out)
{
    nvcc_compiler *c = (nvcc_compiler *)base;
    const char *tool = in->tool && in->tool[0] ? in->tool : c->path;
    char src[PATH_MAX], dir[PATH_MAX], wrapper[PATH_MAX + 32], cubin[PATH_MAX + 32],
        ptx_path[PATH_MAX + 32], inc[PATH_MAX + 8], arch[80], why[PATH_MAX + 512];
    char **argv = NULL, *ptx = NULL, **entries = NULL, **globals = NULL;
    name_set ks = {0}, gs = {0};
    run_result r = {0};
    int rc = CC_BROKEN;
    if (cc_output_alloc(out, in->n_kernels, in->n_symbols) != 0) {
        out->log = NULL;
        return CC_BROKEN;
    }
    if (!realpath(in->source, src)) {
        snprintf(why, sizeof why, "%s: cannot open: %s", in->source, strerror(errno));
        out->log = strdup(why);
        return CC_BROKEN;
    }
    if (strpbrk(src, "\"\n\\")) {
        snprintf(why, sizeof why, "%s: nvcc cannot #include a path with a quote, a backslash or a "
                 "newline", src);
        out->log = strdup(why);
        return CC_REFUSED;
    }
    snprintf(dir, sizeof dir, "%s", src);
    *strrchr(dir, '/') = 0;   /* realpath gave an absolute path */
    snprintf(wrapper, sizeof wrapper, "%s/tk_variant.cu", in->work_dir);
    snprintf(cubin, sizeof cubin, "%s/tk_variant.cubin", in->work_dir);
    snprintf(ptx_path, sizeof ptx_path, "%s/tk_variant.ptx", in->work_dir);
    snprintf(inc, sizeof inc, "-I%s", dir[0] ? dir : "/");
    snprintf(arch, sizeof arch, "-arch=%s", in->arch);

    /* 1. the wrapper: the source, and the templated kernels' instantiations */
    FILE *f = fopen(wrapper, "w");
    if (!f) {
        snprintf(why, sizeof why, "cannot write %s: %s", wrapper, strerror(errno));
        out->log = strdup(why);
        return CC_BROKEN;
    }
    fprintf(f, "/* tunekit: the variant's source, and its kernel templates instantiated */\n"
            "#include \"%s\"\n", src);
    for (int i = 0; i < in->n_kernels; i++)
        if (strchr(in->kernels[i], '<'))
            fprintf(f, "static auto tunekit_instance_%d __attribute__((unused)) = &%s;\n", i,
                    in->kernels[i]);
    if (fclose(f) != 0) {
        snprintf(why, sizeof why, "cannot write %s: %s", wrapper, strerror(errno));
        out->log = strdup(why);
        return CC_BROKEN;
    }

    /* 2. nvcc */
    if (!(argv = calloc((size_t)in->n_options + 16, sizeof *argv))) {
        out->log = strdup("out of memory");
        goto done;
    }
    int k = 0;
    argv[k++] = (char *)tool;
    argv[k++] = "-cubin";
    argv[k++] = arch;
    for (int i = 0; i < in->n_options; i++)
        argv[k++] = (char *)in->options[i];
    argv[k++] = inc;
    argv[k++] = "--keep";
    argv[k++] = "--keep-dir";
    argv[k++] = (char *)in->work_dir;
    argv[k++] = "-o";
    argv[k++] = cubin;
    argv[k++] = wrapper;
    if (run_program(argv, in->work_dir, NVCC_LIMIT_S, &r, why, sizeof why) != 0) {
        out->log = strdup(why);
        goto done;
    }
    if (r.timed_out) {
        snprintf(why, sizeof why, "nvcc took longer than %d s on this variant (killed)",
                 NVCC_LIMIT_S);
        set_log(out, why, r.out, r.cut);
        rc = CC_REFUSED;
        goto done;
    }
    if (!r.exited || r.status != 0) {
        if (r.exited)
            snprintf(why, sizeof why, "nvcc exited with status %d", r.status);
        else
            snprintf(why, sizeof why, "nvcc died: signal %d (%s)", r.status, strsignal(r.status));
        /* nvcc's own words when it has some (after the hint for a feature CUDA removed), else
         * why it stopped */
        set_log(out, r.out_n ? cc_removed_feature_hint(r.out) : why, r.out, r.cut);
        if (!out->log)
            out->log = strdup(why);
        rc = CC_REFUSED;
        goto done;
    }

    /* 3. the cubin and the PTX */
    size_t ptx_n = 0;
    if (!(out->cubin = read_all(cubin, &out->cubin_n)) || !out->cubin_n ||
        !(ptx = read_all(ptx_path, &ptx_n))) {
        snprintf(why, sizeof why, "nvcc left no %s", out->cubin ? ptx_path : cubin);
        set_log(out, why, r.out, r.cut);
        rc = CC_REFUSED;
        goto done;
    }

    /* 4. the kernels */
    if (!(entries = ptx_entries(ptx)) || !(globals = ptx_globals(ptx)) ||
        name_set_make(&ks, entries) != 0 || name_set_make(&gs, globals) != 0) {
        out->log = strdup("out of memory");
        goto done;
    }
    for (int i = 0; i < in->n_kernels; i++) {
        long at = name_match(&ks, in->kernels[i], 1);
        int sizes[256], np = -1;
        if (at == -3) {
            out->log = strdup("out of memory");
            goto done;
        }
        if (at >= 0)
            np = ptx_entry_params(ptx, entries[at], sizes, 256);
        if (np < 0) {
            snprintf(why, sizeof why, at == -2 ? "%s is not exactly one kernel of %s" :
                     "%s is not a kernel of %s", in->kernels[i], in->source);
            out->log = refusal(why, &ks);
            rc = CC_REFUSED;
            goto done;
        }
        out->n_params[i] = np;
        out->param_sizes[i] = malloc((size_t)(np ? np : 1) * sizeof(int));
        out->lowered[i] = strdup(entries[at]);
        if (!out->param_sizes[i] || !out->lowered[i]) {
            out->log = strdup("out of memory");
            goto done;
        }
        memcpy(out->param_sizes[i], sizes, (size_t)np * sizeof(int));
        out->max_threads[i] = ptx_entry_max_threads(ptx, entries[at]);
    }

    /* 5. the variables */
    for (int i = 0; i < in->n_symbols; i++) {
        long at = name_match(&gs, in->symbols[i], 0);
        if (at == -3) {
            out->log = strdup("out of memory");
            goto done;
        }
        if (at < 0) {
            snprintf(why, sizeof why, "no variable %s in %s", in->symbols[i], in->source);
            out->log = strdup(why);
            rc = CC_REFUSED;
            goto done;
        }
        if (!(out->symbol_lowered[i] = strdup(globals[at]))) {
            out->log = strdup("out of memory");
            goto done;
        }
    }

    /* 6. the warnings */
    set_log(out, NULL, r.out, r.cut);
    rc = CC_OK;
done:
    free(argv);
    free(ptx);
    free(r.out);
    ptx_names_free(entries);
    ptx_names_free(globals);
    name_set_free(&ks);
    name_set_free(&gs);
    return rc;
}

static void nvcc_close(compiler *base)
{
    free(base);
}

static const compiler_vt nvcc_vt = {"nvcc", nvcc_compile, nvcc_close};

compiler *compiler_nvcc_open(char *err, size_t len)
{
    nvcc_compiler *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    if (find_nvcc(c->path, sizeof c->path, err, len) != 0) {
        free(c);
        return NULL;
    }
    c->base.vt = &nvcc_vt;
    return &c->base;
}

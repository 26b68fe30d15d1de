/* device_settings.c: applying a config's clocks and power limit to the GPU through NVML, and
 * putting back what the GPU had (device_settings.h, docs/energy.md "Clocks and power limit").
 * NVML's calls come from energy.c's one loader (nvml_calls.h). The state file holds one
 * key=value a line: uuid, power_limit_mw (the limit before the first change), and changed (the
 * settings the run has touched, written before each is first changed: gpu_clock_mhz,
 * mem_clock_mhz, power_limit_w; absent: all three). NVML cannot read a lock back, so the tuner
 * takes a GPU's clocks as unlocked before its run and restores by resetting the locks it
 * touched. Restoring tries every touched setting, whatever fails before it; a lock reset the
 * GPU does not support counts as done (a GPU that cannot reset a lock has none set by us); what
 * does fail stays in the state file for the next run. */
#include "device_settings.h"
#include "nvml_calls.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const devset_names[DEVSET_N] = {"gpu_clock_mhz", "mem_clock_mhz", "power_limit_w"};
static const char *const set_calls[DEVSET_N] = {
    "nvmlDeviceSetGpuLockedClocks", "nvmlDeviceSetMemoryLockedClocks",
    "nvmlDeviceSetPowerManagementLimit"};
static const char *const reset_calls[DEVSET_N] = {
    "nvmlDeviceResetGpuLockedClocks", "nvmlDeviceResetMemoryLockedClocks",
    "nvmlDeviceSetPowerManagementLimit"};

int devset_param_index(const char *name)
{
    for (int i = 0; name && i < DEVSET_N; i++)
        if (strcmp(devset_names[i], name) == 0) return i;
    return -1;
}

int devset_from_config(const char *config, devset_values *out)
{
    memset(out, 0, sizeof *out);
    int found = 0;
    for (const char *p = config; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (eq) {
            char name[64];
            size_t k = (size_t)(eq - p);
            if (k < sizeof name) {
                memcpy(name, p, k);
                name[k] = 0;
                int i = devset_param_index(name);
                if (i >= 0) {
                    char *stop;
                    errno = 0;
                    long v = strtol(eq + 1, &stop, 10);
                    if (stop == eq + 1 || stop != p + n || errno || v < 0 || v > DEVSET_MAX_VALUE)
                        return -1;
                    out->v[i] = (int)v;
                    found++;
                }
            }
        }
        p = end ? end + 1 : NULL;
    }
    return found;
}

int devset_state_path(const char *db_path, const char *uuid, char *out, size_t len)
{
    char dir[PATH_MAX], abs_dir[PATH_MAX];
    const char *slash = strrchr(db_path, '/');
    const char *base = slash ? slash + 1 : db_path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - db_path) + (slash == db_path) : 1,
             slash ? db_path : ".");
    if (!realpath(dir, abs_dir)) return -1;
    int n = snprintf(out, len, "%s/%s.device-settings.%s", strcmp(abs_dir, "/") ? abs_dir : "",
                     base, uuid);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

struct devset {
    char uuid[96];
    char path[PATH_MAX];
    nvml_device dev;
    int have_dev;
    int saved;               /* the state file is written: something may have changed */
    unsigned power_mw;       /* the power limit before the first change */
    unsigned changed;        /* bit i: setting i touched (in the state file before the change) */
    devset_values applied;   /* what the GPU has now, as far as this process set it */
};

devset *devset_open(const char *uuid, const char *state_path)
{
    devset *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    snprintf(d->uuid, sizeof d->uuid, "%s", uuid);
    snprintf(d->path, sizeof d->path, "%s", state_path ? state_path : "");
    return d;
}

/* The GPU's NVML handle. 0, or -1 with why. */
static int device_handle(const char *uuid, nvml_device *dev, char *why, size_t len)
{
    const nvml_calls *n = nvml_get();
    if (!n->ok) {
        snprintf(why, len, "%s", n->why);
        return -1;
    }
    int rc = n->by_uuid(uuid, dev);
    if (rc != NVML_OK) {
        snprintf(why, len, "nvmlDeviceGetHandleByUUID(%s): %s", uuid, nvml_error(rc));
        return -1;
    }
    return 0;
}

/* Writes a state file whole: a temporary file beside it, renamed. 0, or -1 with why. */
static int write_state_file(const char *path, const char *uuid, unsigned power_mw,
                            unsigned changed, char *why, size_t len)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(why, len, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# tunekit: the GPU settings to put back after a run (docs/energy.md)\n"
               "uuid=%s\npower_limit_mw=%u\nchanged=",
            uuid, power_mw);
    for (int i = 0, sep = 0; i < DEVSET_N; i++)
        if (changed >> i & 1u) fprintf(f, "%s%s", sep++ ? "," : "", devset_names[i]);
    fprintf(f, "\n");
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int write_state(const devset *d, char *why, size_t len)
{
    return write_state_file(d->path, d->uuid, d->power_mw, d->changed, why, len);
}

/* Sets setting i to v on dev (0: back to what the driver had: the locks reset, the power limit
 * to power_mw). 0, or the NVML return code with *call the call that failed; -2 when NVML lacks
 * the call, -3 (with range) when v is out of the GPU's range. */
static int set_one(nvml_device dev, int i, int v, unsigned power_mw, const char **call,
                   char *range, size_t range_len)
{
    const nvml_calls *n = nvml_get();
    *call = v ? set_calls[i] : reset_calls[i];
    unsigned lo = 0, hi = 0;
    switch (i) {
    case DEVSET_GPU_CLOCK:
    case DEVSET_MEM_CLOCK: {
        int (*reset)(nvml_device) = i == DEVSET_GPU_CLOCK ? n->reset_gpu_locked : n->reset_mem_locked;
        int (*set)(nvml_device, unsigned, unsigned) =
            i == DEVSET_GPU_CLOCK ? n->set_gpu_locked : n->set_mem_locked;
        if (!v) return reset ? reset(dev) : -2;
        if (!set) return -2;
        if (n->max_clock &&
            n->max_clock(dev, i == DEVSET_GPU_CLOCK ? NVML_CLOCK_GRAPHICS_ID : NVML_CLOCK_MEM_ID,
                         &hi) == NVML_OK && (unsigned)v > hi) {
            snprintf(range, range_len, "above the GPU's highest %s clock, %u MHz",
                     i == DEVSET_GPU_CLOCK ? "graphics" : "memory", hi);
            return -3;
        }
        return set(dev, (unsigned)v, (unsigned)v);
    }
    default:
        if (!n->set_power_limit) return -2;
        if (!v) return n->set_power_limit(dev, power_mw);
        if (n->power_limit_range && n->power_limit_range(dev, &lo, &hi) == NVML_OK &&
            ((unsigned)v * 1000u < lo || (unsigned)v * 1000u > hi)) {
            snprintf(range, range_len, "outside the GPU's power limits, %u-%u W", lo / 1000,
                     hi / 1000);
            return -3;
        }
        return n->set_power_limit(dev, (unsigned)v * 1000u);
    }
}

int devset_apply(devset *d, const devset_values *want, char *why, size_t len)
{
    int first = -1;
    for (int i = 0; i < DEVSET_N && first < 0; i++)
        if (want->v[i] != d->applied.v[i]) first = i;
    if (first < 0) return 0;   /* nothing to change */
    const nvml_calls *n = nvml_get();
    char what[128];
    snprintf(what, sizeof what, "%s=%d", devset_names[first], want->v[first]);
    if (!d->have_dev) {
        char because[256];
        if (device_handle(d->uuid, &d->dev, because, sizeof because) != 0) {
            snprintf(why, len, "%s: %s", what, because);
            return -1;
        }
        d->have_dev = 1;
    }
    if (!d->saved) {
        /* what the GPU has, on disk before anything changes */
        int rc = n->get_power_limit ? n->get_power_limit(d->dev, &d->power_mw) : -2;
        if (rc != NVML_OK) {
            snprintf(why, len, "%s: nvmlDeviceGetPowerManagementLimit: %s", what,
                     rc == -2 ? "not in this NVML" : nvml_error(rc));
            return -1;
        }
        if (!d->path[0]) {
            snprintf(why, len, "%s: no state file to restore the GPU from", what);
            return -1;
        }
        char because[PATH_MAX + 64];
        if (write_state(d, because, sizeof because) != 0) {
            snprintf(why, len, "%s: %s", what, because);
            return -1;
        }
        d->saved = 1;
    }
    for (int i = 0; i < DEVSET_N; i++) {
        if (want->v[i] == d->applied.v[i]) continue;
        if (!(d->changed >> i & 1u)) {   /* on disk before the GPU changes */
            char because[PATH_MAX + 64];
            d->changed |= 1u << i;
            if (write_state(d, because, sizeof because) != 0) {
                d->changed &= ~(1u << i);
                snprintf(why, len, "%s=%d: %s", devset_names[i], want->v[i], because);
                return -1;
            }
        }
        const char *call;
        char range[128] = "";
        int rc = set_one(d->dev, i, want->v[i], d->power_mw, &call, range, sizeof range);
        if (rc == NVML_OK) {
            d->applied.v[i] = want->v[i];
            continue;
        }
        if (want->v[i])
            snprintf(why, len, "%s=%d: %s", devset_names[i], want->v[i],
                     rc == -3 ? range : "");
        else
            snprintf(why, len, "%s as the driver had it: ", devset_names[i]);
        if (rc != -3) {
            size_t at = strlen(why);
            snprintf(why + at, len - at, "%s: %s", call,
                     rc == -2 ? "not in this NVML" : nvml_error(rc));
        }
        return -1;
    }
    return 0;
}

/* Puts back the settings of `changed` on dev: the power limit to power_mw first, then the locks
 * reset. Every one is tried; a lock reset the GPU does not support counts as done. Returns the
 * settings that could not be put back (0: all), the first failure in err. */
static unsigned put_back(nvml_device dev, unsigned power_mw, unsigned changed, char *err,
                         size_t len)
{
    static const int order[DEVSET_N] = {DEVSET_POWER_LIMIT, DEVSET_GPU_CLOCK, DEVSET_MEM_CLOCK};
    unsigned failed = 0;
    for (int k = 0; k < DEVSET_N; k++) {
        const int i = order[k];
        if (!(changed >> i & 1u)) continue;
        const char *call;
        char range[8];
        int rc = set_one(dev, i, 0, power_mw, &call, range, sizeof range);
        if (rc == NVML_OK || (i != DEVSET_POWER_LIMIT && rc == NVML_ERR_NOT_SUPPORTED)) continue;
        if (!failed)
            snprintf(err, len, "%s: %s", call, rc == -2 ? "not in this NVML" : nvml_error(rc));
        failed |= 1u << i;
    }
    return failed;
}

int devset_restore(devset *d, char *err, size_t len)
{
    if (!d || !d->saved) return 0;
    const unsigned failed = put_back(d->dev, d->power_mw, d->changed, err, len);
    if (failed) {   /* what is left, for a later restore */
        char why[PATH_MAX + 64];
        d->changed = failed;
        if (write_state(d, why, sizeof why) != 0) {
            size_t at = strlen(err);
            snprintf(err + at, len - at, "; and %s", why);
        }
        return -1;
    }
    memset(&d->applied, 0, sizeof d->applied);
    d->saved = 0;
    d->changed = 0;
    if (unlink(d->path) != 0 && errno != ENOENT) {
        snprintf(err, len, "cannot remove %s: %s", d->path, strerror(errno));
        return -1;
    }
    return 0;
}

void devset_close(devset *d)
{
    char err[512];
    if (d && devset_restore(d, err, sizeof err) != 0)
        fprintf(stderr, "tuner: the GPU settings of %s were not put back: %s (kept in %s)\n",
                d->uuid, err, d->path);
    free(d);
}

int devset_restore_file(const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char line[256], uuid[96] = "";
    long long power = -1;
    unsigned changed = (1u << DEVSET_N) - 1;   /* no changed= line: every setting */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "uuid=", 5) == 0) snprintf(uuid, sizeof uuid, "%s", line + 5);
        else if (strncmp(line, "power_limit_mw=", 15) == 0) power = strtoll(line + 15, NULL, 10);
        else if (strncmp(line, "changed=", 8) == 0) {
            changed = 0;
            for (int i = 0; i < DEVSET_N; i++)
                if (strstr(line + 8, devset_names[i])) changed |= 1u << i;
        }
    }
    fclose(f);
    if (!uuid[0] || power <= 0 || power > 10000000) {
        snprintf(err, len, "%s: not a state file of the tuner's (no uuid= or power_limit_mw=)", path);
        return -1;
    }
    nvml_device dev;
    char why[256];
    unsigned failed = 0;
    if (device_handle(uuid, &dev, why, sizeof why) != 0 ||
        (failed = put_back(dev, (unsigned)power, changed, why, sizeof why)) != 0) {
        snprintf(err, len, "cannot restore the GPU settings in %s: %s", path, why);
        char w2[PATH_MAX + 64];
        if (failed) write_state_file(path, uuid, (unsigned)power, failed, w2, sizeof w2);
        return -1;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, len, "cannot remove %s: %s", path, strerror(errno));
        return -1;
    }
    return 1;
}

int devset_restore_stale(const char *db_path, FILE *note, char *err, size_t len)
{
    char probe[PATH_MAX];
    if (devset_state_path(db_path, "", probe, sizeof probe) != 0) return 0;   /* no folder yet */
    char *slash = strrchr(probe, '/');
    const char *prefix = slash + 1;
    *slash = 0;
    const char *dir = probe[0] ? probe : "/";
    DIR *dh = opendir(dir);
    if (!dh) return 0;
    int restored = 0, rc = 0;
    char done[1024] = "";
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t k = strlen(prefix), n = strlen(e->d_name);
        if (n <= k || strncmp(e->d_name, prefix, k) != 0 || strstr(e->d_name + k, ".tmp"))
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", probe, e->d_name);
        int got = devset_restore_file(path, err, len);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got > 0) {
            size_t at = strlen(done);
            snprintf(done + at, sizeof done - at, "%s%s", restored ? ", " : "", e->d_name + k);
            restored++;
        }
    }
    closedir(dh);
    if (restored && note)
        fprintf(note, "tuner: restored the GPU settings (clocks, power limit) a killed run left "
                      "changed on %s\n", done);
    return rc ? -1 : restored;
}

/* ---- SIGINT and SIGTERM ---- */

#define WATCH_MAX 64
static char watched[WATCH_MAX][PATH_MAX];
static volatile sig_atomic_t n_watched;

void devset_watch_path(const char *path)
{
    for (int i = 0; i < n_watched; i++)
        if (strcmp(watched[i], path) == 0) return;
    if (n_watched < WATCH_MAX) {
        snprintf(watched[n_watched], sizeof watched[0], "%s", path);
        n_watched++;
    }
}

/* Not async-signal-safe (stdio, NVML): the process ends right after, and a GPU left at a locked
 * clock is worse than the small risk; what cannot be restored here stays in its state file for
 * the next run. */
static void on_signal(int sig)
{
    char err[256];
    for (int i = 0; i < n_watched; i++) devset_restore_file(watched[i], err, sizeof err);
    signal(sig, SIG_DFL);
    raise(sig);
}

void devset_watch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* tuned_lookup.c: the run-time lookup over the generated tables (tuned_lookup.h): the pure
 * matching functions, the lock-free cache behind tk_tuned_values, and the one instance of that
 * cache over the compiled-in tables of tuned_configs.h (included here and nowhere else).
 *
 * Cache layout: per device ordinal (< 64) a record, published with an atomic pointer, holding the
 * matched device and an open-addressing table of 256 slots keyed by the (op, dtype) pointers.
 * A slot holds an immutable key record, published with release and read with acquire: the
 * sizes and the parsed config values of the matching entries. Records are built under the
 * cache's mutex on the first call for a key and never change or move afterwards, so the fast
 * path is an atomic load, a short probe and a scan of a few precomputed bounds (the nearest size
 * on a log scale, decided once per pair of neighbouring sizes: no 128-bit products per call).
 * More than 256 distinct
 * (op, dtype) pointer pairs on one device: the extra ones get NULL (the built-in default). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "current_device.h"
#include "tuned_lookup.h"
#include "tuned_configs.h"

#define CACHE_DEVICES 64
#define CACHE_SLOTS 256 /* a power of two */
#define DEVICE_NAME_LEN 256

/* The tuned entries of one device for one (op, dtype): n sizes (ascending) and n * n_params
 * values. bounds[k] (k < n - 1): the largest size whose nearest entry is k rather than k + 1, so a
 * lookup takes the first k with size <= bounds[k] (else the last). */
typedef struct key_rec {
    const char *op, *dtype;
    int n, n_params;
    int64_t *sizes;
    int64_t *bounds;
    int64_t *values;
} key_rec;

typedef struct dev_rec {
    int match;                           /* index into the cache's devices, or -1 */
    _Atomic(key_rec *) slots[CACHE_SLOTS];
} dev_rec;

struct tk_tuned_cache {
    const tk_tuned_device *devs;
    int n_devs;
    const tk_tuned_entry *entries;
    tk_tuned_describe_fn describe;
    pthread_mutex_t mutex;               /* held only while building records */
    _Atomic(dev_rec *) dev[CACHE_DEVICES];
    _Atomic int uniform;                 /* tk_tuned_cache_uniform's answer; -1 not yet asked */
};

/* ---- pure functions ------------------------------------------------------------------------- */

int tk_tuned_match_device(const tk_tuned_device *devs, int n, const char *name, int cc_major,
                          int cc_minor, int sm_count)
{
    if (!devs || n <= 0) return -1;
    if (name) {
        for (int i = 0; i < n; i++)
            if (devs[i].name && strcmp(devs[i].name, name) == 0) return i;
    }
    int best = -1;
    int64_t best_dist = 0;
    for (int i = 0; i < n; i++) {
        if (devs[i].cc_major != cc_major || devs[i].cc_minor != cc_minor) continue;
        int64_t dist = (int64_t)devs[i].sm_count - sm_count;
        if (dist < 0) dist = -dist;
        if (best < 0 || dist < best_dist ||
            (dist == best_dist && devs[i].sm_count > devs[best].sm_count)) {
            best = i;
            best_dist = dist;
        }
    }
    return best;
}

/* 1 when size a is nearer to s than size b on a log scale, i.e. max(a/s, s/a) <
 * max(b/s, s/b), or as near and a < b. Sizes below 1 count as 1. Exact: the ratios are compared
 * by cross-multiplying in 128 bits. */
static int nearer(int64_t a, int64_t b, int64_t s)
{
    if (a < 1) a = 1;
    if (b < 1) b = 1;
    if (s < 1) s = 1;
    unsigned __int128 lhs = (unsigned __int128)(a > s ? a : s) * (unsigned __int128)(b < s ? b : s);
    unsigned __int128 rhs = (unsigned __int128)(b > s ? b : s) * (unsigned __int128)(a < s ? a : s);
    if (lhs != rhs) return lhs < rhs;
    return a < b;
}

/* The largest s for which `nearer(a, b, s)` holds, for 1 <= a < b: on a log scale s is nearer
 * to a while s * s <= a * b (ties go to the smaller size), so this is floor(sqrt(a * b)), found
 * exactly in 128 bits. */
static int64_t nearer_bound(int64_t a, int64_t b)
{
    const unsigned __int128 ab = (unsigned __int128)a * (unsigned __int128)b;
    /* a <= sqrt(ab) < b: bisect on [a, b) for the largest s with s * s <= ab */
    int64_t lo = a, hi = b - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if ((unsigned __int128)mid * (unsigned __int128)mid <= ab) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int tk_tuned_nearest(const tk_tuned_entry *entries, const tk_tuned_device *dev, const char *op,
                     const char *dtype, int64_t size)
{
    if (!entries || !dev || !op || !dtype) return -1;
    int best = -1;
    for (int k = dev->first; k < dev->first + dev->count; k++) {
        const tk_tuned_entry *e = &entries[k];
        if (!e->op || !e->dtype || strcmp(e->op, op) != 0 || strcmp(e->dtype, dtype) != 0)
            continue;
        if (best < 0 || nearer(e->size, entries[best].size, size)) best = k;
    }
    return best;
}

/* ---- the cache ------------------------------------------------------------------------------ */

tk_tuned_cache *tk_tuned_cache_new(const tk_tuned_device *devs, int n_devs,
                                   const tk_tuned_entry *entries, tk_tuned_describe_fn describe)
{
    if (!describe || n_devs < 0 || (n_devs > 0 && (!devs || !entries))) return NULL;
    tk_tuned_cache *c = malloc(sizeof *c);
    if (!c) return NULL;
    c->devs = devs;
    c->n_devs = n_devs;
    c->entries = entries;
    c->describe = describe;
    if (pthread_mutex_init(&c->mutex, NULL) != 0) {
        free(c);
        return NULL;
    }
    for (int d = 0; d < CACHE_DEVICES; d++)
        atomic_init(&c->dev[d], NULL);
    atomic_init(&c->uniform, -1);
    return c;
}

void tk_tuned_cache_free(tk_tuned_cache *cache)
{
    if (!cache) return;
    for (int d = 0; d < CACHE_DEVICES; d++) {
        dev_rec *dr = atomic_load_explicit(&cache->dev[d], memory_order_acquire);
        if (!dr) continue;
        for (int s = 0; s < CACHE_SLOTS; s++)
            free(atomic_load_explicit(&dr->slots[s], memory_order_acquire));
        free(dr);
    }
    pthread_mutex_destroy(&cache->mutex);
    free(cache);
}

/* The first slot to probe for (op, dtype). */
static unsigned slot_of(const char *op, const char *dtype)
{
    uint64_t h = (uint64_t)(uintptr_t)op * 0x9E3779B97F4A7C15u;
    h ^= (uint64_t)(uintptr_t)dtype * 0xC2B2AE3D27D4EB4Fu;
    return (unsigned)(h >> 32) & (CACHE_SLOTS - 1);
}

/* The published record for (op, dtype) in dr, or NULL. With free_slot non-NULL, also the first
 * empty slot on the probe path (-1 when the table is full); call it so only under the mutex. */
static key_rec *find_key(dev_rec *dr, const char *op, const char *dtype, int *free_slot)
{
    unsigned h = slot_of(op, dtype);
    if (free_slot) *free_slot = -1;
    for (unsigned i = 0; i < CACHE_SLOTS; i++) {
        unsigned s = (h + i) & (CACHE_SLOTS - 1);
        key_rec *r = atomic_load_explicit(&dr->slots[s], memory_order_acquire);
        if (!r) {
            if (free_slot) *free_slot = (int)s;
            return NULL;
        }
        if (r->op == op && r->dtype == dtype) return r;
    }
    return NULL;
}

/* The record of device ordinal d, built and published when missing (mutex held). NULL when the
 * device cannot be described or out of memory (nothing is cached then). */
static dev_rec *device_record(tk_tuned_cache *c, int d)
{
    dev_rec *dr = atomic_load_explicit(&c->dev[d], memory_order_acquire);
    if (dr) return dr;
    char name[DEVICE_NAME_LEN];
    int major = 0, minor = 0, sms = 0;
    if (c->describe(d, name, sizeof name, &major, &minor, &sms) != 0) return NULL;
    name[sizeof name - 1] = '\0';
    dr = malloc(sizeof *dr);
    if (!dr) return NULL;
    dr->match = tk_tuned_match_device(c->devs, c->n_devs, name, major, minor, sms);
    for (int s = 0; s < CACHE_SLOTS; s++)
        atomic_init(&dr->slots[s], NULL);
    atomic_store_explicit(&c->dev[d], dr, memory_order_release);
    return dr;
}

/* A new record of the entries of device record dr for (op, dtype) whose configs parse against
 * space, in one allocation (freed by tk_tuned_cache_free). NULL when out of memory. */
static key_rec *build_key(const tk_tuned_cache *c, const dev_rec *dr,
                          const tk_config_space *space, const char *op, const char *dtype)
{
    int first = 0, count = 0;
    if (dr->match >= 0) {
        first = c->devs[dr->match].first;
        count = c->devs[dr->match].count;
    }
    int n_params = space->n_params > 0 ? space->n_params : 0;
    size_t bytes = sizeof(key_rec) + (size_t)count * sizeof(int64_t) * (size_t)(2 + n_params);
    key_rec *r = malloc(bytes);
    if (!r) return NULL;
    r->op = op;
    r->dtype = dtype;
    r->n = 0;
    r->n_params = n_params;
    r->sizes = (int64_t *)(r + 1);
    r->bounds = r->sizes + count;
    r->values = r->bounds + count;
    for (int k = first; k < first + count; k++) {
        const tk_tuned_entry *e = &c->entries[k];
        if (!e->op || !e->dtype || !e->config || strcmp(e->op, op) != 0 ||
            strcmp(e->dtype, dtype) != 0)
            continue;
        int64_t parsed[n_params + 1];
        if (tk_config_parse(space, e->config, parsed) != TK_OK) continue;
        /* sizes below 1 count as 1 (as in nearer); ascending (the header writes them so; an
         * out-of-order entry is moved into place); a repeated size keeps its first entry, as
         * tk_tuned_nearest does */
        const int64_t size = e->size < 1 ? 1 : e->size;
        int k = r->n;
        while (k > 0 && r->sizes[k - 1] > size) k--;
        if (k > 0 && r->sizes[k - 1] == size) continue;
        memmove(r->sizes + k + 1, r->sizes + k, (size_t)(r->n - k) * sizeof(int64_t));
        memmove(r->values + (size_t)(k + 1) * n_params, r->values + (size_t)k * n_params,
                (size_t)(r->n - k) * n_params * sizeof(int64_t));
        r->sizes[k] = size;
        memcpy(r->values + (size_t)k * n_params, parsed, (size_t)n_params * sizeof(int64_t));
        r->n++;
    }
    for (int k = 0; k + 1 < r->n; k++)
        r->bounds[k] = nearer_bound(r->sizes[k], r->sizes[k + 1]);
    return r;
}

/* The slow path: builds what is missing for (d, op, dtype) under the mutex. */
static key_rec *key_record_slow(tk_tuned_cache *c, int d, const tk_config_space *space,
                                const char *op, const char *dtype)
{
    key_rec *r = NULL;
    int free_slot = -1;
    if (pthread_mutex_lock(&c->mutex) != 0) return NULL;
    dev_rec *dr = device_record(c, d);
    if (!dr) goto done;
    r = find_key(dr, op, dtype, &free_slot);
    if (r || free_slot < 0) goto done;
    r = build_key(c, dr, space, op, dtype);
    if (r) atomic_store_explicit(&dr->slots[free_slot], r, memory_order_release);
done:
    pthread_mutex_unlock(&c->mutex);
    return r;
}

const int64_t *tk_tuned_cache_values(tk_tuned_cache *cache, int dev,
                                     const tk_config_space *space, const char *op,
                                     const char *dtype, int64_t size)
{
    if (!cache || !space || !op || !dtype || dev < 0 || dev >= CACHE_DEVICES) return NULL;
    dev_rec *dr = atomic_load_explicit(&cache->dev[dev], memory_order_acquire);
    if (dr && dr->match < 0) return NULL;
    key_rec *r = dr ? find_key(dr, op, dtype, NULL) : NULL;
    if (!r) r = key_record_slow(cache, dev, space, op, dtype);
    if (!r || r->n == 0) return NULL;
    int best = 0;
    while (best + 1 < r->n && size > r->bounds[best]) best++;
    return r->values + (size_t)best * r->n_params;
}

int tk_tuned_cache_uniform(tk_tuned_cache *cache, int n_devices)
{
    if (!cache) return 0;
    int u = atomic_load_explicit(&cache->uniform, memory_order_acquire);
    if (u >= 0) return u;
    u = n_devices >= 1 && n_devices <= CACHE_DEVICES;
    if (u && pthread_mutex_lock(&cache->mutex) == 0) {
        int first = 0;
        for (int d = 0; d < n_devices && u; d++) {
            const dev_rec *dr = device_record(cache, d);
            if (!dr) u = 0; /* cannot be described: ask per call */
            else if (d == 0) first = dr->match;
            else if (dr->match != first) u = 0;
        }
        pthread_mutex_unlock(&cache->mutex);
    } else {
        u = 0;
    }
    atomic_store_explicit(&cache->uniform, u, memory_order_release);
    return u;
}

/* ---- the compiled-in tables ----------------------------------------------------------------- */

/* Describes a CUDA device through the runtime (the cache calls it once per device). */
static int describe_cuda_device(int dev, char *name, size_t len, int *cc_major, int *cc_minor,
                                int *sm_count)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return -1;
    size_t n = strnlen(prop.name, sizeof prop.name);
    if (n >= len) n = len - 1;
    memcpy(name, prop.name, n);
    name[n] = '\0';
    *cc_major = prop.major;
    *cc_minor = prop.minor;
    *sm_count = prop.multiProcessorCount;
    return 0;
}

static tk_tuned_cache compiled_cache = {
    .devs = tk_tuned_devices,
    .n_devs = TK_TUNED_N_DEVICES,
    .entries = tk_tuned_entries,
    .describe = describe_cuda_device,
    .mutex = PTHREAD_MUTEX_INITIALIZER,
    .uniform = -1,
};

const int64_t *tk_tuned_values(const tk_config_space *space, const char *op, const char *dtype,
                               int64_t size)
{
    if (compiled_cache.n_devs == 0) return NULL;
    int uniform = atomic_load_explicit(&compiled_cache.uniform, memory_order_acquire);
    if (uniform < 0) {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            n = 0;
        }
        uniform = tk_tuned_cache_uniform(&compiled_cache, n);
    }
    /* every visible device matches the same tuned device (one GPU, or several of one model):
     * the answer does not depend on the current device, so it is not asked for (~35 ns) */
    int dev = 0;
    if (!uniform && tk_current_device(&dev) != 0) return NULL;
    return tk_tuned_cache_values(&compiled_cache, dev, space, op, dtype, size);
}

int tk_tuned_device_count(void) { return TK_TUNED_N_DEVICES; }
int tk_tuned_entry_count(void) { return TK_TUNED_N_ENTRIES; }

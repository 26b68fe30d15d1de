/* tuned_lookup.h: the run-time lookup over the generated tables in tuned_configs.h.
 *
 * Device match, in order: exact name; else the same compute capability with the nearest SM count
 * (ties: the larger); else none (the caller uses its built-in default). Within a device, the
 * entry for the op and dtype whose problem size is nearest on a log scale (ties: the smaller).
 * The pure functions take the tables as arguments so they are unit-tested on the CPU with made-up
 * devices; tk_tuned_values() is the cached path the library's NULL-config calls use. */
#ifndef TUNEKIT_TUNED_LOOKUP_H
#define TUNEKIT_TUNED_LOOKUP_H

#include <stddef.h>
#include <stdint.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_tuned_device {
    const char *name;        /* cudaDeviceProp.name */
    int cc_major, cc_minor, sm_count;
    int first, count;        /* its entries: tk_tuned_entries[first .. first+count) */
} tk_tuned_device;

/* Entries are sorted by device, op, dtype, size. */
typedef struct tk_tuned_entry {
    const char *op;          /* "elementwise.mul" */
    const char *dtype;       /* "f32" */
    int64_t size;            /* the problem size key (elements for elementwise) */
    const char *config;      /* canonical config text */
} tk_tuned_entry;

/* Index of the matching device in devs[0..n), or -1. */
int tk_tuned_match_device(const tk_tuned_device *devs, int n, const char *name, int cc_major,
                          int cc_minor, int sm_count);

/* Index into entries of the nearest-size entry of dev for op and dtype, or -1. */
int tk_tuned_nearest(const tk_tuned_entry *entries, const tk_tuned_device *dev, const char *op,
                     const char *dtype, int64_t size);

/* The cached path over the compiled-in tables, for the current CUDA device: the parsed values
 * (in space's parameter order, see tk_config_parse) of the tuned entry for op, dtype and size,
 * or NULL when the header has none (use the default). The returned array lives for the process.
 * When every visible device matches the same tuned device (tk_tuned_cache_uniform), the current
 * device is not asked for (the answer is the same on each).
 * op and dtype must be string literals or otherwise live for the process (pointers are cached).
 * Thread-safe; after the first call for a given (device, op, dtype) it takes no lock and
 * allocates nothing. */
const int64_t *tk_tuned_values(const tk_config_space *space, const char *op, const char *dtype,
                               int64_t size);

/* ---- The cache behind tk_tuned_values, over any tables (the library keeps one over the
 * compiled-in tables; tests build their own over made-up tables and a made-up device). ------ */

/* Describes device ordinal dev: its name (NUL-terminated, into name[0..len)), compute
 * capability and SM count. Returns 0, or -1 when the device cannot be described. */
typedef int (*tk_tuned_describe_fn)(int dev, char *name, size_t len, int *cc_major,
                                    int *cc_minor, int *sm_count);

typedef struct tk_tuned_cache tk_tuned_cache;

/* A new cache over devs[0..n_devs) and entries (borrowed: they must outlive the cache), using
 * describe on the first lookup per device ordinal. NULL when out of memory. The caller frees it
 * with tk_tuned_cache_free. */
tk_tuned_cache *tk_tuned_cache_new(const tk_tuned_device *devs, int n_devs,
                                   const tk_tuned_entry *entries, tk_tuned_describe_fn describe);
/* Frees the cache and every values array it returned; no other thread may be using it. */
void tk_tuned_cache_free(tk_tuned_cache *cache);

/* What tk_tuned_values does, for device ordinal dev (0..63; NULL beyond) and this cache.
 * The first call for a (dev, op, dtype) matches the device, collects its entries for op and
 * dtype and parses their configs against space (an entry whose config does not parse counts as
 * absent), under a mutex; later calls take no lock and allocate nothing. The returned array
 * lives as long as the cache. The same op must always be looked up with the same space. */
const int64_t *tk_tuned_cache_values(tk_tuned_cache *cache, int dev,
                                     const tk_config_space *space, const char *op,
                                     const char *dtype, int64_t size);

/* 1 when device ordinals 0..n_devices-1 (1..64 of them) can all be described and all match the
 * same tuned device, or all match none: then what the cache returns does not depend on the
 * ordinal, and tk_tuned_values skips asking CUDA for the current device on every call. Asked
 * once per cache (later calls return the first answer); 0 otherwise. */
int tk_tuned_cache_uniform(tk_tuned_cache *cache, int n_devices);

/* What the compiled-in header holds: number of devices and entries. */
int tk_tuned_device_count(void);
int tk_tuned_entry_count(void);

#ifdef __cplusplus
}
#endif
#endif

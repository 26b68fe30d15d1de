/* tuned_lookup.h: the run-time lookup over the generated tables in tuned_configs.h.
 *
 * Device match, in order: exact name; else the same compute capability with the nearest SM count;
 * else none (the caller uses its built-in default). Within a device, the entry for the op and
 * dtype whose problem size is nearest on a log scale (ties: the smaller size).
 * The pure functions take the tables as arguments so they are unit-tested on the CPU with made-up
 * devices; tk_tuned_values() is the cached path the library's NULL-config calls use. */
#ifndef TUNEKIT_TUNED_LOOKUP_H
#define TUNEKIT_TUNED_LOOKUP_H

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
 * op and dtype must be string literals or otherwise live for the process (pointers are cached).
 * Thread-safe; after the first call for a given (device, op, dtype) it takes no lock and
 * allocates nothing. */
const int64_t *tk_tuned_values(const tk_config_space *space, const char *op, const char *dtype,
                               int64_t size);

/* What the compiled-in header holds: number of devices and entries. */
int tk_tuned_device_count(void);
int tk_tuned_entry_count(void);

#ifdef __cplusplus
}
#endif
#endif

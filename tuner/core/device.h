/* device.h: what the tuner knows about one GPU. The worker fills it from the CUDA runtime; the
 * replay backend reads it from a recorded database; the parent process never touches CUDA.
 * Constraint expressions see some of these fields as identifiers (device_attr_lookup). */
#pragma once
#include <stdint.h>
#include "value.h"

typedef struct device_info {
    char name[256];          /* cudaDeviceProp.name, e.g. "NVIDIA H100 80GB HBM3" */
    char uuid[64];           /* "GPU-xxxxxxxx-...", the device's identity in the database */
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_sm;
    int max_threads_per_block;
    int regs_per_sm;
    int64_t smem_per_sm;
    int64_t l2_bytes;
    int64_t mem_bytes;
    int sm_clock_khz;
    int mem_clock_khz;
    int mem_bus_bits;
    int driver_version;      /* cudaDriverGetVersion, e.g. 13000 */
    int runtime_version;     /* cudaRuntimeGetVersion */
    int device_count;        /* the GPUs the process that opened it sees (not stored: a fact
                                about that machine, for --devices all) */
} device_info;

/* The device attributes an expression may name: sm_count, max_threads_per_sm,
 * max_threads_per_block, l2_bytes, mem_bytes, cc (major*10+minor), regs_per_sm, smem_per_sm,
 * smem_per_block (device_smem_per_block).
 * Returns 1 and sets *out when name is one of them, 0 otherwise. dev may be NULL only for
 * device_attr_is_name-style checks: then the function returns 1 for known names and sets *out
 * to 0. */
int device_attr_lookup(const device_info *dev, const char *name, value *out);

/* The most shared memory one block may opt in to (static + dynamic), in bytes, by compute
 * capability, as the CUDA programming guide's table gives it (9.0: 227 KiB). Derived rather
 * than stored so that a recorded device (replay) answers exactly as the live one. */
int64_t device_smem_per_block(int cc_major, int cc_minor);

/* Thread block clusters: at most DEVICE_CLUSTER_PORTABLE blocks portably, DEVICE_CLUSTER_MAX with
 * the kernel's consent to non-portable sizes (Hopper). */
enum { DEVICE_CLUSTER_PORTABLE = 8, DEVICE_CLUSTER_MAX = 16 };
/* Whether clusters of cluster[] blocks can tile grid[] on a device of compute capability
 * cc_major.cc_minor (cc_major < 0: not known, not checked): compute capability 9.0 on, whole
 * clusters along every axis, at most DEVICE_CLUSTER_MAX blocks a cluster. -1 when they can,
 * else the axis (0-2) of a grid that is not whole clusters, or 3, with why (one line). The
 * tuner's space checks and libtunekit's plans both ask here. */
int device_cluster_check(int cc_major, int cc_minor, const int64_t grid[3],
                         const int64_t cluster[3], char *why, size_t len);

/* The GPU's peak floating-point rate in FLOP/s, FP64 when fp64 is non-zero, else FP32: SMs x SM
 * clock x 2 (a fused multiply-add is two operations) x the lanes per SM of the compute
 * capability (device.c has the table). 0 when the compute capability is not in the table or the
 * clock or SM count is not known. What TFLOP/s are compared with (core/throughput.h). */
double device_peak_flops(const device_info *d, int fp64);

/* 1 when a and b are cards of one GPU model: the same name, compute capability and SM count.
 * The replay backend answers for a model from all its cards' measurements. */
int device_same_model(const device_info *a, const device_info *b);

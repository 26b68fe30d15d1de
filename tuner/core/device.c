/* device.c: the device attributes expressions may name (device.h), looked up by name in one
 * table so the space loader, the enumerator and user kernels agree on the list; what makes
 * two cards one GPU model; the GPU's peak FP32 and FP64 rates by compute capability; and
 * what thread block clusters a device allows. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "device.h"

typedef enum {
    ATTR_SM_COUNT, ATTR_MAX_THREADS_PER_SM, ATTR_MAX_THREADS_PER_BLOCK, ATTR_L2_BYTES,
    ATTR_MEM_BYTES, ATTR_CC, ATTR_REGS_PER_SM, ATTR_SMEM_PER_SM, ATTR_SMEM_PER_BLOCK
} device_attr;

static const struct {
    const char *name;
    device_attr attr;
} device_attrs[] = {
    {"sm_count", ATTR_SM_COUNT},
    {"max_threads_per_sm", ATTR_MAX_THREADS_PER_SM},
    {"max_threads_per_block", ATTR_MAX_THREADS_PER_BLOCK},
    {"l2_bytes", ATTR_L2_BYTES},
    {"mem_bytes", ATTR_MEM_BYTES},
    {"cc", ATTR_CC},
    {"regs_per_sm", ATTR_REGS_PER_SM},
    {"smem_per_sm", ATTR_SMEM_PER_SM},
    {"smem_per_block", ATTR_SMEM_PER_BLOCK},
};

int64_t device_smem_per_block(int cc_major, int cc_minor)
{
    int cc = cc_major * 10 + cc_minor;
    if (cc >= 100 && cc < 110) return 232448;                 /* Blackwell datacenter: 227 KiB */
    if (cc >= 110) return 101376;                             /* later consumer parts: 99 KiB */
    if (cc == 90) return 232448;                              /* H100, H200: 227 KiB */
    if (cc == 80 || cc == 87) return 166912;                  /* A100: 163 KiB */
    if (cc >= 86) return 101376;                              /* 8.6, 8.9: 99 KiB */
    if (cc == 75) return 65536;                               /* Turing: 64 KiB */
    if (cc >= 70) return 98304;                               /* Volta: 96 KiB */
    return 49152;
}

int device_cluster_check(int cc_major, int cc_minor, const int64_t grid[3],
                         const int64_t cluster[3], char *why, size_t len)
{
    static const char *const axis[] = {"x", "y", "z"};
    if (cc_major >= 0 && cc_major < 9) {
        snprintf(why, len, "thread block clusters need compute capability 9.0; the device has "
                 "%d.%d", cc_major, cc_minor);
        return 3;
    }
    for (int i = 0; i < 3; i++)
        if (grid[i] % cluster[i]) {
            snprintf(why, len, "grid.%s is %" PRId64 ", not a multiple of cluster.%s (%" PRId64
                     ")", axis[i], grid[i], axis[i], cluster[i]);
            return i;
        }
    int64_t blocks = cluster[0] * cluster[1] * cluster[2];
    if (blocks > DEVICE_CLUSTER_MAX) {
        snprintf(why, len, "a cluster of %" PRId64 " x %" PRId64 " x %" PRId64 " = %" PRId64
                 " blocks: at most %d (%d portable)", cluster[0], cluster[1], cluster[2], blocks,
                 DEVICE_CLUSTER_MAX, DEVICE_CLUSTER_PORTABLE);
        return 3;
    }
    return -1;
}

static int64_t device_attr_value(const device_info *dev, device_attr attr)
{
    switch (attr) {
    case ATTR_SM_COUNT: return dev->sm_count;
    case ATTR_MAX_THREADS_PER_SM: return dev->max_threads_per_sm;
    case ATTR_MAX_THREADS_PER_BLOCK: return dev->max_threads_per_block;
    case ATTR_L2_BYTES: return dev->l2_bytes;
    case ATTR_MEM_BYTES: return dev->mem_bytes;
    case ATTR_CC: return (int64_t)dev->cc_major * 10 + dev->cc_minor;
    case ATTR_REGS_PER_SM: return dev->regs_per_sm;
    case ATTR_SMEM_PER_SM: return dev->smem_per_sm;
    case ATTR_SMEM_PER_BLOCK: return device_smem_per_block(dev->cc_major, dev->cc_minor);
    }
    return 0;
}

int device_attr_lookup(const device_info *dev, const char *name, value *out)
{
    for (size_t k = 0; k < sizeof device_attrs / sizeof device_attrs[0]; k++) {
        if (strcmp(device_attrs[k].name, name) != 0)
            continue;
        if (out)
            *out = value_int(dev ? device_attr_value(dev, device_attrs[k].attr) : 0);
        return 1;
    }
    return 0;
}

/* FMA lanes per SM (results per clock) by compute capability, from the CUDA programming guide's
 * table of arithmetic instruction throughput; 0 when the capability is not in it. FP32: 64 on
 * 6.0, 7.x and 8.0, 128 on 6.1, 8.6, 8.7, 8.9, 9.0, 10.x and 12.x. FP64: the data-centre parts
 * have their own units (32 lanes on 6.0, 7.0 and 8.0; 64 on 9.0 and 10.0); the others run FP64
 * at a sliver of their FP32 rate: 2 lanes (1/64 of 128 on the consumer parts, 1/32 of 64 on
 * 7.2 and 7.5), and 4 on 6.1 (1/32 of 128). */
static int device_lanes(int cc_major, int cc_minor, int fp64)
{
    int cc = cc_major * 10 + cc_minor, fp32;
    if (cc == 60 || cc_major == 7 || cc == 80)
        fp32 = 64;
    else if (cc == 61 || cc == 86 || cc == 87 || cc == 89 || cc == 90 || cc_major == 10 ||
             cc_major == 12)
        fp32 = 128;
    else
        return 0;
    if (!fp64)
        return fp32;
    if (cc == 60 || cc == 70 || cc == 80)
        return 32;
    if (cc == 90 || cc == 100)
        return 64;
    return cc == 61 ? 4 : 2;
}

double device_peak_flops(const device_info *d, int fp64)
{
    int lanes = device_lanes(d->cc_major, d->cc_minor, fp64);
    if (d->sm_count <= 0 || d->sm_clock_khz <= 0)
        return 0;
    return (double)d->sm_count * d->sm_clock_khz * 1e3 * 2 * lanes;
}

int device_same_model(const device_info *a, const device_info *b)
{
    return strcmp(a->name, b->name) == 0 && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor && a->sm_count == b->sm_count;
}

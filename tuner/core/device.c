/* device.c: the device attributes expressions may name (device.h), looked up by name in one
 * table so the space loader, the enumerator and user kernels agree on the list; and what makes
 * two cards one GPU model. */
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

int device_same_model(const device_info *a, const device_info *b)
{
    return strcmp(a->name, b->name) == 0 && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor && a->sm_count == b->sm_count;
}

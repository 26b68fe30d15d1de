/* throughput.h: what a measured time means for a problem, worked out and written in one place for
 * every command that shows it (the run's per-problem line, `tuner best`, the header of a user
 * kernel, the report). A problem whose floating-point operations are known (a compute-bound user
 * kernel's kernel.flops, problems.flops) is shown in TFLOP/s and as a share of the GPU's peak:
 * FP64 for dtype f64, FP32 otherwise (device_peak_flops). Any other in GB/s, counting the fewest
 * bytes the op must move, and as a share of the copy rate measured in its run. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "device.h"

typedef struct throughput {
    int flops;              /* 1: rate in TFLOP/s, share of the peak; 0: GB/s, share of copy */
    double rate;            /* TFLOP/s or GB/s; 0 when the time is not known */
    double frac;            /* rate / ceiling_rate; 0 when either is not known */
    double ceiling_rate;    /* the peak in TFLOP/s or the copy rate in GB/s; 0: not known */
    int digits;             /* decimals the rate is written with: 2 for TFLOP/s, 1 for GB/s */
    const char *unit;       /* "TFLOP/s" or "GB/s" */
    const char *ceiling;    /* what frac is a share of: "FP32 peak", "FP64 peak" or "copy" */
} throughput;

/* The throughput of a problem of bytes (read + written) and flops (0: not known) run in us
 * microseconds, on dev (NULL: not known, no peak) in a run whose copy rate was copy_gbps GB/s
 * (0: not known), for dtype ("f64" takes the FP64 peak). */
throughput throughput_of(int64_t bytes, int64_t flops, double us, double copy_gbps,
                         const device_info *dev, const char *dtype);

/* Ways of writing one: THROUGHPUT_PROSE "48.80 TFLOP/s, 72.9% of FP32 peak" or "2746.2 GB/s,
 * 92.1% of copy"; THROUGHPUT_COLUMNS, for lines that keep columns, "   48.80 TFLOP/s  72.9% of
 * FP32 peak" or "  2746.2 GB/s  92.1%" (the rate right-aligned in 8, the share in 5; a share of
 * the copy rate unnamed, as the run's line has always written it). The share is left out when
 * it is not known. */
typedef enum { THROUGHPUT_PROSE, THROUGHPUT_COLUMNS } throughput_style;

/* Writes t in style into buf (len bytes) and returns buf. */
const char *throughput_text(const throughput *t, throughput_style style, char *buf, size_t len);

/* throughput_text of throughput_of, for a line that shows nothing else of it. */
const char *throughput_format(int64_t bytes, int64_t flops, double us, double copy_gbps,
                              const device_info *dev, const char *dtype, throughput_style style,
                              char *buf, size_t len);

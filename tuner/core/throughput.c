/* throughput.c: a problem's measured time as TFLOP/s and a share of the GPU's peak, or as GB/s and
 * a share of the copy rate, and the text of either (throughput.h). */
#include "throughput.h"

#include <stdio.h>
#include <string.h>

throughput throughput_of(int64_t bytes, int64_t flops, double us, double copy_gbps,
                         const device_info *dev, const char *dtype)
{
    throughput t;
    memset(&t, 0, sizeof t);
    if (flops > 0) {
        int fp64 = dtype && strcmp(dtype, "f64") == 0;
        double peak = dev ? device_peak_flops(dev, fp64) : 0;
        t.flops = 1;
        t.digits = 2;
        t.unit = "TFLOP/s";
        t.ceiling = fp64 ? "FP64 peak" : "FP32 peak";
        t.ceiling_rate = peak / 1e12;
        if (us > 0) {
            t.rate = (double)flops / (us * 1e6);
            if (peak > 0)
                t.frac = (double)flops / (us * 1e-6) / peak;
        }
        return t;
    }
    t.digits = 1;
    t.unit = "GB/s";
    t.ceiling = "copy";
    t.ceiling_rate = copy_gbps > 0 ? copy_gbps : 0;
    if (us > 0) {
        t.rate = (double)bytes / (us * 1e3);
        if (copy_gbps > 0)
            t.frac = t.rate / copy_gbps;
    }
    return t;
}

const char *throughput_text(const throughput *t, throughput_style style, char *buf, size_t len)
{
    int n;
    if (style == THROUGHPUT_COLUMNS)
        n = snprintf(buf, len, "%8.*f %s", t->digits, t->rate, t->unit);
    else
        n = snprintf(buf, len, "%.*f %s", t->digits, t->rate, t->unit);
    if (n < 0 || (size_t)n >= len || !(t->frac > 0))
        return buf;
    if (style == THROUGHPUT_COLUMNS && !t->flops)
        snprintf(buf + n, len - (size_t)n, " %5.1f%%", 100.0 * t->frac);
    else if (style == THROUGHPUT_COLUMNS)
        snprintf(buf + n, len - (size_t)n, " %5.1f%% of %s", 100.0 * t->frac, t->ceiling);
    else
        snprintf(buf + n, len - (size_t)n, ", %.1f%% of %s", 100.0 * t->frac, t->ceiling);
    return buf;
}

const char *throughput_format(int64_t bytes, int64_t flops, double us, double copy_gbps,
                              const device_info *dev, const char *dtype, throughput_style style,
                              char *buf, size_t len)
{
    throughput t = throughput_of(bytes, flops, us, copy_gbps, dev, dtype);
    return throughput_text(&t, style, buf, len);
}

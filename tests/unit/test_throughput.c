/* test_throughput.c: unit tests of a problem's throughput (tuner/core/throughput.c): TFLOP/s and
 * the share of the FP32 or FP64 peak when the problem has flops, GB/s and the share of the copy
 * rate when it has none, the text of each in both styles, and the shares left out when the
 * peak, the copy rate or the time is not known. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "core/throughput.h"

static device_info h100(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.sm_clock_khz = 1980000;
    return d;
}

/* SGEMM 4096^3 in 2815.76 us on an H100: 2 * 4096^3 operations, 48.81 TFLOP/s, 72.9% of the
 * 66.9 TFLOP/s FP32 peak; the bytes (three 64 MiB matrices) are not what is shown. */
static void test_flops(void)
{
    device_info d = h100();
    char buf[128];
    int64_t flops = 2LL * 4096 * 4096 * 4096, bytes = 3LL * 4096 * 4096 * 4;
    throughput t = throughput_of(bytes, flops, 2815.76, 2980.2, &d, "f32");
    CHECK(t.flops == 1 && t.digits == 2);
    CHECK(fabs(t.rate - 48.81) < 0.005);
    CHECK(fabs(t.frac - t.rate * 1e12 / device_peak_flops(&d, 0)) < 1e-12);
    CHECK(fabs(t.frac - 0.7297) < 0.0005);
    CHECK_STR(t.unit, "TFLOP/s");
    CHECK_STR(t.ceiling, "FP32 peak");
    CHECK_STR(throughput_text(&t, THROUGHPUT_PROSE, buf, sizeof buf),
              "48.81 TFLOP/s, 73.0% of FP32 peak");
    CHECK_STR(throughput_text(&t, THROUGHPUT_COLUMNS, buf, sizeof buf),
              "   48.81 TFLOP/s  73.0% of FP32 peak");
    /* f64 takes the FP64 peak (half the FP32 one on 9.0); f16 the FP32 one */
    t = throughput_of(bytes, flops, 2815.76, 2980.2, &d, "f64");
    CHECK_STR(t.ceiling, "FP64 peak");
    CHECK(fabs(t.frac - 2 * 0.7297) < 0.001);
    t = throughput_of(bytes, flops, 2815.76, 2980.2, &d, "f16");
    CHECK_STR(t.ceiling, "FP32 peak");
    /* no device, or one whose peak is not known: the rate without a share */
    t = throughput_of(bytes, flops, 2815.76, 2980.2, NULL, "f32");
    CHECK(t.flops == 1 && t.frac == 0);
    CHECK_STR(throughput_text(&t, THROUGHPUT_PROSE, buf, sizeof buf), "48.81 TFLOP/s");
    d.cc_major = 3;
    CHECK_STR(throughput_format(bytes, flops, 2815.76, 2980.2, &d, "f32", THROUGHPUT_COLUMNS, buf,
                                sizeof buf),
              "   48.81 TFLOP/s");
}

/* saxpy n=16777216 in 73.31 us: 12 bytes per element (x read, y read and written), 2746.2 GB/s,
 * 92.1% of a 2980.2 GB/s copy; the run's line keeps its columns as before. */
static void test_bytes(void)
{
    device_info d = h100();
    char buf[128];
    throughput t = throughput_of(12LL * 16777216, 0, 73.31, 2980.2, &d, "f32");
    CHECK(t.flops == 0 && t.digits == 1);
    CHECK(fabs(t.rate - 2746.2) < 0.05);
    CHECK(fabs(t.frac - 2746.2 / 2980.2) < 1e-4);
    CHECK_STR(t.unit, "GB/s");
    CHECK_STR(t.ceiling, "copy");
    CHECK_STR(throughput_text(&t, THROUGHPUT_PROSE, buf, sizeof buf), "2746.2 GB/s, 92.1% of copy");
    CHECK_STR(throughput_text(&t, THROUGHPUT_COLUMNS, buf, sizeof buf), "  2746.2 GB/s  92.1%");
    /* no copy rate: no share; no time: nothing to divide by */
    CHECK_STR(throughput_format(12LL * 16777216, 0, 73.31, 0, &d, "f32", THROUGHPUT_COLUMNS, buf,
                                sizeof buf),
              "  2746.2 GB/s");
    t = throughput_of(12LL * 16777216, 0, 0, 2980.2, &d, "f32");
    CHECK(t.rate == 0 && t.frac == 0);
    /* a buffer too small for the whole text is cut, never overrun */
    char small[8];
    CHECK_STR(throughput_format(12LL * 16777216, 0, 73.31, 2980.2, &d, "f32", THROUGHPUT_PROSE,
                                small, sizeof small),
              "2746.2 ");
}

int main(void)
{
    test_flops();
    test_bytes();
    return CHECK_DONE();
}

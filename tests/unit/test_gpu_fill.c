/* test_gpu_fill.c: the host twin of the GPU input generator (tuner/ops/gpu_fill.h) on the CPU:
 * the same (seed, stream, index) always gives the same value, pinned values guard the hash
 * against accidental change (the GPU tests compare the GPU's bits with this twin), values lie in
 * [lo, hi), never 0, fill the range evenly, and the three input streams and different seeds are
 * unrelated (correlation near 0). */
#include "check.h"
#include "ops/gpu_fill.h"
#include "tk_check.h"

#include <math.h>
#include <stdint.h>

static double corr(uint64_t seed_a, int stream_a, uint64_t seed_b, int stream_b, int64_t n)
{
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    for (int64_t i = 0; i < n; i++) {
        const double a = gpu_fill_value(seed_a, stream_a, i, -1.0, 1.0);
        const double b = gpu_fill_value(seed_b, stream_b, i, -1.0, 1.0);
        sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b;
    }
    const double ca = saa - sa * sa / (double)n, cb = sbb - sb * sb / (double)n;
    return (sab - sa * sb / (double)n) / sqrt(ca * cb);
}

int main(void)
{
    /* determinism, and the hash itself pinned (splitmix64's published first output for seed 0) */
    CHECK(gpu_fill_mix64(0) == 0xe220a8397b1dcdafull);
    CHECK(gpu_fill_value(7, 1, 123456789, -4.0, 4.0) == gpu_fill_value(7, 1, 123456789, -4.0, 4.0));
    const double v0 = gpu_fill_value(42, 0, 0, -4.0, 4.0);
    int differs = 0;
    for (int64_t i = 1; i < 100; i++) differs += gpu_fill_value(42, 0, i, -4.0, 4.0) != v0;
    CHECK(differs == 99);

    /* ranges as the harnesses use them: elementwise [-4, 4), reduce [-1, 2) */
    const double ranges[2][2] = { { -4.0, 4.0 }, { -1.0, 2.0 } };
    const int64_t n = 1 << 20;
    for (int r = 0; r < 2; r++) {
        const double lo = ranges[r][0], hi = ranges[r][1];
        int64_t out = 0, zero = 0, bins[8] = { 0 };
        double sum = 0;
        for (int64_t i = 0; i < n; i++) {
            const double v = gpu_fill_value(99, r, i, lo, hi);
            out += !(v >= lo && v < hi);
            zero += v == 0.0;
            sum += v;
            int k = (int)((v - lo) / (hi - lo) * 8);
            bins[k < 0 ? 0 : k > 7 ? 7 : k]++;
        }
        CHECK(out == 0 && zero == 0);
        CHECK(fabs(sum / (double)n - 0.5 * (lo + hi)) < 0.01 * (hi - lo));
        for (int k = 0; k < 8; k++) CHECK(fabs((double)bins[k] / (double)n - 0.125) < 0.005);
        /* rounded to each dtype (what the GPU stores): still in range, and 0 only when a value
         * below the dtype's smallest step rounds to it, which these widths make rarer than 1 in 2^20 */
        const tk_dtype dts[3] = { TK_F32, TK_F16, TK_BF16 };
        for (int d = 0; d < 3; d++) {
            int64_t bad = 0;
            for (int64_t i = 0; i < 4096; i++) {
                const double v = tk_host_round(dts[d], gpu_fill_value(99, r, i, lo, hi));
                bad += !(v >= lo && v <= hi) || v == 0.0;
            }
            CHECK(bad == 0);
        }
    }

    /* streams (x, y, z of one problem) and seeds (problems) are unrelated */
    CHECK(fabs(corr(5, 0, 5, 1, n)) < 0.01);
    CHECK(fabs(corr(5, 1, 5, 2, n)) < 0.01);
    CHECK(fabs(corr(5, 0, 6, 0, n)) < 0.01);
    int64_t same = 0;
    for (int64_t i = 0; i < n; i++)
        same += gpu_fill_value(5, 0, i, -4.0, 4.0) == gpu_fill_value(5, 1, i, -4.0, 4.0);
    CHECK(same == 0);
    /* nor is one stream a shifted copy of another */
    int64_t shifted = 0;
    for (int64_t i = 0; i + 1 < 4096; i++)
        shifted += gpu_fill_value(5, 1, i, -4.0, 4.0) == gpu_fill_value(5, 0, i + 1, -4.0, 4.0);
    CHECK(shifted == 0);
    return CHECK_DONE();
}

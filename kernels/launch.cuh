/* launch.cuh: THE one grid-size rule of the kernel library (OneFlow's), for every family.
 *   grid_stride: grid = max(1, min(ceil_div(n_units, block_size),
 *                                  sm_count * (max_threads_per_sm / block_size) * waves))
 *   one_shot:    grid = ceil_div(n_units, block_size)   (at least 1)
 * n_units is the number of work items one thread handles one at a time (packs, plus one more
 * when a tail remains). The device attributes come from device_limits(), which caches them per
 * device ordinal (launch.cu): after the first call on a device, tk_current_device
 * (current_device.h) is its only CUDA call. Nothing here exits or prints; errors come back as tk_status. */
#pragma once
#include <cstdint>
#include "tunekit.h"

namespace tk {

/* The largest block any kernel of the library is launched with (__launch_bounds__ of all). */
constexpr int kMaxBlockSize = 1024;

struct DeviceLimits {
    int sm_count;
    int max_threads_per_sm;
};

/* The current device's SM count and resident threads per SM (cached per device ordinal).
 * TK_ERR_CUDA when the runtime cannot say (no device). */
tk_status device_limits(DeviceLimits *out);

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The rule itself, for given device limits (pure; unit-tested with made-up limits): the grid
 * for n_units (>= 0) work items with block_size threads (1..1024), for a grid-stride loop of
 * `waves` (>= 1) full waves, or one thread per item. TK_ERR_UNSUPPORTED_CONFIG when the grid
 * would exceed the 2^31 - 1 blocks a launch allows (one_shot over a huge n),
 * TK_ERR_INVALID_ARGUMENT for arguments out of range. */
inline tk_status grid_for_limits(tk_loop loop, int64_t n_units, int block_size, int64_t waves,
                                 const DeviceLimits &lim, unsigned *grid)
{
    if (n_units < 0 || block_size < 1 || block_size > kMaxBlockSize || waves < 1 ||
        (loop != TK_LOOP_GRID_STRIDE && loop != TK_LOOP_ONE_SHOT))
        return TK_ERR_INVALID_ARGUMENT;
    int64_t blocks = ceil_div(n_units, block_size);
    if (loop == TK_LOOP_GRID_STRIDE) {
        const int64_t resident = static_cast<int64_t>(lim.sm_count) *
                                 (lim.max_threads_per_sm / block_size);
        /* waves beyond the blocks needed change nothing; clamp before multiplying */
        const int64_t wave_cap = waves < blocks ? waves : blocks;
        if (blocks > resident * wave_cap) blocks = resident * wave_cap;
    }
    if (blocks < 1) blocks = 1;
    if (blocks > INT32_MAX) return TK_ERR_UNSUPPORTED_CONFIG;
    *grid = static_cast<unsigned>(blocks);
    return TK_OK;
}

/* grid_for_limits on the current device (one_shot needs no device limits and asks for none);
 * TK_ERR_CUDA when the limits are unavailable. */
inline tk_status grid_size(tk_loop loop, int64_t n_units, int block_size, int64_t waves,
                           unsigned *grid)
{
    DeviceLimits lim = {0, 0};
    if (loop == TK_LOOP_GRID_STRIDE) {
        const tk_status st = device_limits(&lim);
        if (st != TK_OK) return st;
    }
    return grid_for_limits(loop, n_units, block_size, waves, lim, grid);
}

} // namespace tk

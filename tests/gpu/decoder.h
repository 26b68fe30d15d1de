/* decoder.h: the GPU tests' fast decoder of dtype storage to double (the 16-bit types through a
 * table of all 65536 patterns, built once with tk_host_to_double), for comparing millions of
 * outputs on the host. */
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>
#include "tk_check.h"
#include "tunekit.h"

struct Decoder {
    tk_dtype dt;
    std::vector<double> table;
    explicit Decoder(tk_dtype d) : dt(d)
    {
        if (dt == TK_F32) return;
        std::vector<uint16_t> all(65536);
        for (uint32_t i = 0; i < 65536; i++)
            all[i] = static_cast<uint16_t>(i);
        table.resize(65536);
        tk_host_to_double(dt, all.data(), table.data(), 65536);
    }
    double operator()(const unsigned char *storage, int64_t i) const
    {
        if (dt == TK_F32) {
            float f;
            std::memcpy(&f, storage + i * 4, 4);
            return f;
        }
        uint16_t h;
        std::memcpy(&h, storage + i * 2, 2);
        return table[h];
    }
};

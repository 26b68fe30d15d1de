/* source_hint.c: the hint for compile logs that show CUDA features the toolkit removed
 * (source_hint.h). Kernels written for CUDA 11 or older meet three of them:
 *   - texture references (texture<T, dim, mode> at namespace scope, removed in CUDA 12): the
 *     log says "texture is not a template"; no option brings them back, and the space's
 *     `texture:` argument is the texture object that replaces them;
 *   - the cudaThread* calls (removed in CUDA 12), in host code beside the kernel: each has a
 *     cudaDevice* successor with the same arguments, so a -D in kernel.options maps it;
 *   - cudaDeviceProp members that CUDA 13 removed (clockRate, deviceOverlap, ...): host code
 *     reads them, and no option maps a member. */
#include "source_hint.h"
#include "nvrtc_headers.h"

#include <stdio.h>
#include <string.h>

const char *cc_removed_feature_hint(const char *log)
{
    static char hint[900];
    static const struct { const char *old, *now; } calls[] = {
        {"cudaThreadSynchronize", "cudaDeviceSynchronize"},
        {"cudaThreadExit", "cudaDeviceReset"},
        {"cudaThreadSetLimit", "cudaDeviceSetLimit"},
        {"cudaThreadGetLimit", "cudaDeviceGetLimit"},
        {"cudaThreadSetCacheConfig", "cudaDeviceSetCacheConfig"},
        {"cudaThreadGetCacheConfig", "cudaDeviceGetCacheConfig"},
    };
    if (!log)
        return NULL;
    const char *tex = strstr(log, "texture is not a template");
    if (tex) {
        snprintf(hint, sizeof hint,
                 "%s declares a texture reference (texture<T, dim, mode>), which CUDA 12 "
                 "removed: neither nvcc nor NVRTC compiles it; the kernel must read through a "
                 "cudaTextureObject_t parameter, which a `texture:` argument of the space gives "
                 "(docs/user-kernels.md, Textures)", nvrtc_log_where(log, tex));
        return hint;
    }
    char defs[400] = "";
    size_t n = 0;
    int found = 0;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        char pat[80];
        snprintf(pat, sizeof pat, "identifier \"%s\" is undefined", calls[i].old);
        if (!strstr(log, pat))
            continue;
        n += (size_t)snprintf(defs + n, n < sizeof defs ? sizeof defs - n : 0, "%s\"-D%s=%s\"",
                              found++ ? ", " : "", calls[i].old, calls[i].now);
    }
    size_t h = 0;
    if (found)
        h = (size_t)snprintf(hint, sizeof hint,
                             "host code in the kernel's files calls %s CUDA 12 removed; their "
                             "successors take the same arguments: kernel.options: [%s] maps %s",
                             found > 1 ? "functions that" : "a function that", defs,
                             found > 1 ? "them" : "it");
    static const char member[] = "class \"cudaDeviceProp\" has no member \"";
    const char *m = strstr(log, member);
    if (m && h < sizeof hint) {
        char names[300] = "";
        size_t k = 0;
        int count = 0;
        for (const char *p = m; (p = strstr(p, member)); p += sizeof member - 1) {
            const char *id = p + sizeof member - 1, *q = strchr(id, '"');
            if (!q || q - id > 64)
                continue;
            char name[70];
            snprintf(name, sizeof name, "%.*s", (int)(q - id), id);
            if (strstr(names, name))
                continue;
            k += (size_t)snprintf(names + k, k < sizeof names ? sizeof names - k : 0, "%s%s",
                                  count++ ? ", " : "", name);
        }
        snprintf(hint + h, sizeof hint - h,
                 "%shost code in the kernel's files (%s) reads cudaDeviceProp's %s, which CUDA "
                 "13 removed, and no option maps a member: that host code does not compile with "
                 "this toolkit; give kernel.source a file that holds the kernel without it",
                 h ? "; " : "", nvrtc_log_where(log, m), names);
        return hint;
    }
    return found ? hint : NULL;
}

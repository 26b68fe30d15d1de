/* nvrtc_load.c: dlopen of NVRTC and the CUDA include directory beside it (nvrtc_load.h). */
#include "nvrtc_load.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The toolkit's include directory for a library at lib: <root>/include where lib is
 * <root>/lib64/... or <root>/targets/<arch>/lib/...; "" when none holds cuda_fp16.h. */
static void find_include(const char *lib, char *out, size_t len)
{
    char real[PATH_MAX], try[PATH_MAX + 64];
    out[0] = 0;
    if (!realpath(lib, real))
        snprintf(real, sizeof real, "%s", lib);
    for (int up = 1; up <= 4; up++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", real);
        for (int k = 0; k < up; k++) {
            char *slash = strrchr(dir, '/');
            if (!slash)
                break;
            *slash = 0;
        }
        snprintf(try, sizeof try, "%s/include/cuda_fp16.h", dir);
        if (access(try, R_OK) == 0) {
            snprintf(out, len, "%s/include", dir);
            return;
        }
    }
    const char *home = getenv("CUDA_HOME");
    const char *const fallback[] = {home, "/usr/local/cuda"};
    for (int i = 0; i < 2; i++) {
        if (!fallback[i])
            continue;
        snprintf(try, sizeof try, "%s/include/cuda_fp16.h", fallback[i]);
        if (access(try, R_OK) == 0) {
            snprintf(out, len, "%s/include", fallback[i]);
            return;
        }
    }
}

int nvrtc_load(nvrtc_api *api, char *err, size_t len)
{
    memset(api, 0, sizeof *api);
    char home_lib[PATH_MAX];
    const char *home = getenv("CUDA_HOME");
    snprintf(home_lib, sizeof home_lib, "%s/lib64/libnvrtc.so", home ? home : "/usr/local/cuda");
    const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", home_lib};
    /* RTLD_NODELETE: NVRTC stays mapped after nvrtc_unload. It carries its own C++ runtime,
     * whose start-up allocates an exception pool (72,704 bytes) that only a pointer inside the
     * library holds; unmapping the library made that a leak (LeakSanitizer reported it at the
     * exit of every process that compiled), and a library of that kind is not safe to unmap
     * anyway. A second load finds it mapped. */
    for (size_t i = 0; i < sizeof names / sizeof *names && !api->handle; i++) {
        api->handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (api->handle)
            snprintf(api->path, sizeof api->path, "%s", names[i]);
    }
    if (!api->handle) {
        snprintf(err, len, "NVRTC not found (tried libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so and "
                 "%s): install the CUDA toolkit, or put its lib64 on LD_LIBRARY_PATH", home_lib);
        return -1;
    }
#define SYM(field, name)                                                                      \
    do {                                                                                      \
        *(void **)&api->field = dlsym(api->handle, name);                                     \
        if (!api->field) {                                                                    \
            snprintf(err, len, "NVRTC %s has no %s", api->path, name);                        \
            nvrtc_unload(api);                                                                \
            return -1;                                                                        \
        }                                                                                     \
    } while (0)
    SYM(version, "nvrtcVersion");
    SYM(create, "nvrtcCreateProgram");
    SYM(destroy, "nvrtcDestroyProgram");
    SYM(compile, "nvrtcCompileProgram");
    SYM(log_size, "nvrtcGetProgramLogSize");
    SYM(log, "nvrtcGetProgramLog");
    SYM(cubin_size, "nvrtcGetCUBINSize");
    SYM(cubin, "nvrtcGetCUBIN");
    SYM(ptx_size, "nvrtcGetPTXSize");
    SYM(ptx, "nvrtcGetPTX");
    SYM(add_name, "nvrtcAddNameExpression");
    SYM(lowered_name, "nvrtcGetLoweredName");
    SYM(error_string, "nvrtcGetErrorString");
    SYM(supported_archs_count, "nvrtcGetNumSupportedArchs");
    SYM(supported_archs, "nvrtcGetSupportedArchs");
#undef SYM
    if (api->version(&api->major, &api->minor) != NVRTC_SUCCESS) {
        snprintf(err, len, "NVRTC %s: nvrtcVersion failed", api->path);
        nvrtc_unload(api);
        return -1;
    }
    Dl_info info;
    if (dladdr(*(void **)&api->version, &info) && info.dli_fname)
        snprintf(api->path, sizeof api->path, "%s", info.dli_fname);
    find_include(api->path, api->include_dir, sizeof api->include_dir);
    return 0;
}

void nvrtc_unload(nvrtc_api *api)
{
    if (api->handle)
        dlclose(api->handle);
    memset(api, 0, sizeof *api);
}

int nvrtc_supports(const nvrtc_api *api, int cc)
{
    int n = 0;
    if (api->supported_archs_count(&n) != NVRTC_SUCCESS || n <= 0 || n > 256)
        return 0;
    int archs[256];
    if (api->supported_archs(archs) != NVRTC_SUCCESS)
        return 0;
    for (int i = 0; i < n; i++)
        if (archs[i] == cc)
            return 1;
    return 0;
}

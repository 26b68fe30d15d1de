/* nvrtc_load.h: NVRTC, the CUDA toolkit's run-time compiler, loaded with dlopen so that the tuner
 * builds and runs the built-in families without it and says clearly what is missing when a user
 * kernel needs it. Also where the CUDA headers a kernel may include (cuda_fp16.h, ...) are:
 * beside the library that was loaded. */
#pragma once
#include <stddef.h>
#include <nvrtc.h>

typedef struct nvrtc_api {
    void *handle;
    char path[1024];          /* the library loaded */
    char include_dir[1024];   /* the toolkit's include directory, "" when not found */
    int major, minor;         /* nvrtcVersion */
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*add_name)(nvrtcProgram, const char *);
    nvrtcResult (*lowered_name)(nvrtcProgram, const char *, const char **);
    const char *(*error_string)(nvrtcResult);
    nvrtcResult (*supported_archs_count)(int *);
    nvrtcResult (*supported_archs)(int *);
} nvrtc_api;

/* Loads NVRTC (libnvrtc.so.13, .12, libnvrtc.so, or under $CUDA_HOME/lib64). 0, or -1 with err
 * saying what was tried. */
int nvrtc_load(nvrtc_api *api, char *err, size_t len);
void nvrtc_unload(nvrtc_api *api);
/* 1 when NVRTC can compile for sm_<cc> (cc = major * 10 + minor). */
int nvrtc_supports(const nvrtc_api *api, int cc);

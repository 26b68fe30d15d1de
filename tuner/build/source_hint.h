/* source_hint.h: what a compile log says about the kernel's source that no compiler of this
 * toolkit takes, for either compiler (nvcc or NVRTC): CUDA features the toolkit has removed
 * (texture references; the cudaThread* calls; cudaDeviceProp members), found in code written for
 * an older CUDA, with what a space can do about each. */
#pragma once

/* A one-line hint for the log, or NULL when it names none of those (static storage). */
const char *cc_removed_feature_hint(const char *log);

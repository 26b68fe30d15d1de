/* kernel_hash.c: which kernel source a measurement was taken with. The Makefile hashes each
 * kernels/<family>.cu with the shared device headers into build/gen/family_hashes.h; resume skips
 * a config only when the stored row carries the hash of the source built into this binary. */
#include "kernel_hash.h"

#include <string.h>
#include "family_hashes.h"

const char *kernel_hash_for(const char *family)
{
    for (int i = 0; kernel_hashes[i].family; i++)
        if (strcmp(kernel_hashes[i].family, family) == 0) return kernel_hashes[i].hash;
    return "untracked";
}

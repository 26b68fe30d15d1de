/* compiler.c: choosing a compiler by kind (compiler.h). */
#include "compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const compiler_kinds[] = {"nvrtc", "nvcc", NULL};

int compiler_kind_known(const char *kind)
{
    for (int i = 0; kind && compiler_kinds[i]; i++)
        if (strcmp(kind, compiler_kinds[i]) == 0)
            return 1;
    return 0;
}

int compiler_probe(const char *kind, int cc, compiler_info *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    if (kind && strcmp(kind, "nvcc") == 0)
        return compiler_nvcc_probe(cc, out, err, len);
    if (!kind || strcmp(kind, "nvrtc") == 0)
        return compiler_nvrtc_probe(cc, out, err, len);
    snprintf(err, len, "unknown compiler '%s' (expected nvrtc or nvcc)", kind);
    return -1;
}

compiler *compiler_open(const char *kind, char *err, size_t len)
{
    if (kind && strcmp(kind, "nvcc") == 0)
        return compiler_nvcc_open(err, len);
    if (!kind || strcmp(kind, "nvrtc") == 0)
        return compiler_nvrtc_open(err, len);
    snprintf(err, len, "unknown compiler '%s' (expected nvrtc or nvcc)", kind);
    return NULL;
}

/* compiler.c: choosing a compiler by kind (compiler.h) and the output both kinds fill. */
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

int cc_output_alloc(cc_output *out, int n_kernels, int n_symbols)
{
    memset(out, 0, sizeof *out);
    size_t k = (size_t)(n_kernels > 0 ? n_kernels : 1), s = (size_t)(n_symbols > 0 ? n_symbols : 1);
    out->lowered = calloc(k, sizeof *out->lowered);
    out->n_params = calloc(k, sizeof *out->n_params);
    out->param_sizes = calloc(k, sizeof *out->param_sizes);
    out->symbol_lowered = calloc(s, sizeof *out->symbol_lowered);
    if (!out->lowered || !out->n_params || !out->param_sizes || !out->symbol_lowered) {
        cc_output_clear(out);
        return -1;
    }
    out->n_kernels = n_kernels;
    out->n_symbols = n_symbols;
    return 0;
}

void cc_output_clear(cc_output *o)
{
    for (int i = 0; i < o->n_kernels; i++) {
        free(o->lowered[i]);
        free(o->param_sizes[i]);
    }
    for (int i = 0; i < o->n_symbols; i++)
        free(o->symbol_lowered[i]);
    free(o->lowered);
    free(o->n_params);
    free(o->param_sizes);
    free(o->symbol_lowered);
    free(o->cubin);
    free(o->log);
    memset(o, 0, sizeof *o);
}

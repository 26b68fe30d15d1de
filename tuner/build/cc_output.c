/* cc_output.c: the output every compiler fills (compiler.h), kept apart from compiler.c so that
 * the run-time library (kernels/runtime.c), which links NVRTC's compiler alone, has it too. */
#include "compiler.h"

#include <stdlib.h>
#include <string.h>

int cc_output_alloc(cc_output *out, int n_kernels, int n_symbols)
{
    memset(out, 0, sizeof *out);
    size_t k = (size_t)(n_kernels > 0 ? n_kernels : 1), s = (size_t)(n_symbols > 0 ? n_symbols : 1);
    out->lowered = calloc(k, sizeof *out->lowered);
    out->n_params = calloc(k, sizeof *out->n_params);
    out->param_sizes = calloc(k, sizeof *out->param_sizes);
    out->max_threads = calloc(k, sizeof *out->max_threads);
    out->symbol_lowered = calloc(s, sizeof *out->symbol_lowered);
    if (!out->lowered || !out->n_params || !out->param_sizes || !out->max_threads ||
        !out->symbol_lowered) {
        cc_output_clear(out);
        return -1;
    }
    out->n_kernels = n_kernels;
    out->n_symbols = n_symbols;
    return 0;
}

void cc_output_take_meta(cc_output *o, module_meta *m)
{
    *m = (module_meta){.n_kernels = o->n_kernels, .lowered = o->lowered, .n_params = o->n_params,
                       .params = o->param_sizes, .max_threads = o->max_threads,
                       .n_symbols = o->n_symbols, .symbols = o->symbol_lowered, .log = NULL};
    o->lowered = o->symbol_lowered = NULL;
    o->n_params = o->max_threads = NULL;
    o->param_sizes = NULL;
    o->n_kernels = o->n_symbols = 0;
}

void cc_output_clear(cc_output *o)
{
    module_meta m;
    cc_output_take_meta(o, &m);
    module_meta_clear(&m);
    free(o->cubin);
    free(o->log);
    memset(o, 0, sizeof *o);
}

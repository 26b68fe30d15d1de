/* compiler.h: the compilers of user kernels behind one interface (docs/user-kernels.md,
 * "Compilation"): NVRTC (compiler_nvrtc.c, the library loaded at run time, in process) and nvcc
 * (compiler_nvcc.c, one nvcc process per variant). A compiler takes a source file, the name
 * expressions of the kernels to find in it (a pipeline has several), the global variables to
 * find (constant memory the tuner fills), the options and the GPU architecture, and gives one
 * cubin with each kernel's lowered (mangled) name, its parameters' sizes and the threads a block
 * its __launch_bounds__ allow, and each variable's lowered name; or it refuses the variant with
 * its log.
 *
 * Only the compile process (`tuner __compile`, compile_main.c) runs a compiler, so a compiler
 * that crashes costs one variant, never the run. The parent asks compiler_probe once per run for
 * what goes into the cache key (the compiler's identity and version) and whether it can target
 * the GPU; the pool, the cache and the "compiler refused" rows never learn which compiler ran. */
#pragma once
#include <stddef.h>
#include "core/module_meta.h"

/* What to compile. Strings are borrowed. */
typedef struct cc_input {
    const char *source;               /* path of the source file (as the tuner opens it) */
    int n_kernels;
    const char *const *kernels;       /* name expressions: "saxpy", "bsum<256, float>", "ns::f" */
    int n_symbols;
    const char *const *symbols;       /* global variables: "c_filter", "ns::table" */
    int n_options;
    const char *const *options;       /* -std, -I, -D and the user's options, in order */
    const char *arch;                 /* "sm_90" */
    const char *tool;                 /* the compiler's path from compiler_probe (nvcc), or NULL */
    const char *work_dir;             /* an existing folder for temporary files (removed by the
                                         caller afterwards) */
    const char *source_text;          /* NVRTC: the source's text, not read from the file
                                         (the run-time library's embedded copy); NULL: read it */
    int n_headers;                    /* NVRTC: files given by their include names, from memory
                                         (the source's local includes, embedded) */
    const char *const *header_names;
    const char *const *header_texts;
} cc_input;

/* What came out. Everything malloc'd; cc_output_clear frees. */
typedef struct cc_output {
    int n_kernels, n_symbols;         /* the arrays' lengths (cc_output_alloc) */
    void *cubin;
    size_t cubin_n;
    char **lowered;                   /* n_kernels: each kernel's name in the cubin */
    int *n_params;                    /* n_kernels: its parameter count */
    int **param_sizes;                /* n_kernels: each parameter's size in bytes, in order */
    int *max_threads;                 /* n_kernels: the threads a block its __launch_bounds__
                                         allow (.maxntid in the PTX); 0: none */
    char **symbol_lowered;            /* n_symbols: each variable's name in the cubin */
    char *log;                        /* the compiler's messages (warnings, or why it refused);
                                         may be NULL */
} cc_output;

/* compile's answers */
enum { CC_OK = 0, CC_REFUSED = 1, CC_BROKEN = -1 };

typedef struct compiler compiler;
typedef struct compiler_vt {
    const char *name;                 /* "nvrtc", "nvcc" */
    /* CC_OK with out filled; CC_REFUSED when the source does not compile, a kernel or variable
     * is not in it, or a kernel has no parameter list the tuner can read (out->log says which,
     * in the compiler's words where it has them); CC_BROKEN when the compiler cannot run at
     * all (out->log says why; not the variant's fault: the run stops). */
    int (*compile)(compiler *c, const cc_input *in, cc_output *out);
    void (*close)(compiler *c);
} compiler_vt;
struct compiler {
    const compiler_vt *vt;
};

/* What the parent needs of a compiler kind before anything is compiled. */
typedef struct compiler_info {
    char kind[16];                    /* "nvrtc", "nvcc" */
    char version[64];                 /* "13.0" (NVRTC), "13.0.88" (nvcc's release and build) */
    char tool[1024];                  /* the library or program found (its path) */
} compiler_info;

/* The compiler kinds, NULL-terminated: "nvrtc", "nvcc". */
extern const char *const compiler_kinds[];
/* 1 when kind is one of compiler_kinds. */
int compiler_kind_known(const char *kind);

/* Finds compiler kind and checks it can compile for sm_<cc> (cc = major * 10 + minor). 0 with
 * *out, or -1 with err saying what is missing ("nvcc not found (tried ...)"). Parent side: for
 * nvcc it runs `nvcc --version` and `nvcc --list-gpu-arch`, no compilation. */
int compiler_probe(const char *kind, int cc, compiler_info *out, char *err, size_t len);

/* Opens a compiler of kind for the compile process. NULL with err. */
compiler *compiler_open(const char *kind, char *err, size_t len);

void cc_output_clear(cc_output *o);
/* Moves the kernels' and variables' names, parameter sizes and launch bounds out of o into m
 * (what the cache's meta file holds), leaving o without them. */
void cc_output_take_meta(cc_output *o, module_meta *m);

/* For the implementations. */
int compiler_nvrtc_probe(int cc, compiler_info *out, char *err, size_t len);
/* What NVRTC's version gets beside NVRTC's own major.minor in compiler_info.version: the digests
 * of the in-memory headers and of the options' rules ("+h0123456789ab+o01234567"), which
 * change what it compiles. */
void compiler_nvrtc_digests(char *out, size_t len);
compiler *compiler_nvrtc_open(char *err, size_t len);
int compiler_nvcc_probe(int cc, compiler_info *out, char *err, size_t len);
compiler *compiler_nvcc_open(char *err, size_t len);
/* Clears out and allocates its per-kernel and per-symbol arrays (zeroed, with their lengths).
 * 0, or -1 when memory ran out. */
int cc_output_alloc(cc_output *out, int n_kernels, int n_symbols);

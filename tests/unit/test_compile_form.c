/* test_compile_form.c: the one rule for a user kernel config's compiler options and kernel name
 * expressions (build/compile_form.h), which the tuner and libtunekit's run-time API both follow:
 * the order of the options, -std=c++17 only when no option sets the standard (-std= or --std),
 * -I. for a kernel without a folder, -D NAME and -D NAME=VALUE, a define whose condition does not
 * hold left out, steps with equal name expressions sharing one kernel, template arguments
 * spelled <a, b>, and an evaluation that fails leaving nothing behind with its message. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include "build/compile_form.h"

typedef struct {
    const char *values[4];    /* per define; NULL: no value */
    int holds[4];             /* per define */
    const char *fn[3];        /* per step */
    int n_templ[3];
    const char *targ[3][2];   /* per step, its template arguments; "FAIL" fails */
    int calls;
} fake;

static int holds(void *ctx, int i, int *h, char *err, size_t len)
{
    fake *f = ctx;
    f->calls++;
    if (f->holds[i] < 0) {
        snprintf(err, len, "condition %d failed", i);
        return -1;
    }
    *h = f->holds[i];
    return 0;
}

static int value_of(void *ctx, int i, int *has, char *text, size_t cap, char *err, size_t len)
{
    (void)err, (void)len;
    fake *f = ctx;
    *has = f->values[i] != NULL;
    if (*has)
        snprintf(text, cap, "%s", f->values[i]);
    return 0;
}

static const char *fn_of(void *ctx, int s) { return ((fake *)ctx)->fn[s]; }
static int n_templ_of(void *ctx, int s) { return ((fake *)ctx)->n_templ[s]; }

static int targ_of(void *ctx, int s, int j, char *text, size_t cap, char *err, size_t len)
{
    fake *f = ctx;
    if (strcmp(f->targ[s][j], "FAIL") == 0) {
        snprintf(err, len, "template %d of step %d failed", j, s);
        return -1;
    }
    snprintf(text, cap, "%s", f->targ[s][j]);
    return 0;
}

static cf_source source(fake *f, const char *dir, const char *const *opts, int n_opts)
{
    static const char *const inc[] = {"/abs/inc"};
    static const char *const names[] = {"TILE", "USE_FAST", "WIDE", "N"};
    return (cf_source){.ctx = f, .source_dir = dir, .n_include_dirs = 1, .include_dirs = inc,
                       .n_defines = 4, .define_names = names, .define_holds = holds,
                       .define_value = value_of, .n_options = n_opts, .options = opts,
                       .n_steps = 3, .step_function = fn_of, .step_n_template = n_templ_of,
                       .template_arg = targ_of};
}

int main(void)
{
    char err[256];
    fake f = {.values = {"32", NULL, "1", "1024"}, .holds = {1, 1, 0, 1},
              .fn = {"gemm", "fix", "gemm"}, .n_templ = {2, 0, 2},
              .targ = {{"64", "float"}, {NULL, NULL}, {"64", "float"}}};
    static const char *const opts[] = {"--use_fast_math", "-lineinfo"};
    cf_source src = source(&f, "/abs/src", opts, 2);
    cf_lists l;
    CHECK(compile_form(&src, &l, err, sizeof err) == 0);
    const char *want[] = {"-std=c++17", "-I/abs/src", "-I/abs/inc", "-DTILE=32", "-DUSE_FAST",
                          "-DN=1024", "--use_fast_math", "-lineinfo"};
    CHECK(l.n_options == 8);
    for (int i = 0; i < 8 && i < l.n_options; i++)
        CHECK_STR(l.options[i], want[i]);
    /* the first and third steps name one kernel */
    CHECK(l.n_kernels == 2);
    if (l.n_kernels == 2) {
        CHECK_STR(l.kernels[0], "gemm<64, float>");
        CHECK_STR(l.kernels[1], "fix");
    }
    CHECK(l.step_kernel && l.step_kernel[0] == 0 && l.step_kernel[1] == 1 && l.step_kernel[2] == 0);
    cf_lists_clear(&l);
    CHECK(l.n_options == 0 && !l.options && !l.kernels && !l.step_kernel);

    /* a standard set by an option, either spelling; no folder: "." */
    static const char *const std1[] = {"-std=c++20"}, *const std2[] = {"--std=c++14"};
    src = source(&f, "", std1, 1);
    CHECK(compile_form(&src, &l, err, sizeof err) == 0);
    CHECK(l.n_options >= 2 && strcmp(l.options[0], "-I.") == 0);
    CHECK(l.n_options >= 1 && strcmp(l.options[l.n_options - 1], "-std=c++20") == 0);
    int stds = 0;
    for (int i = 0; i < l.n_options; i++)
        stds += strstr(l.options[i], "std") != NULL;
    CHECK(stds == 1);
    cf_lists_clear(&l);
    src = source(&f, NULL, std2, 1);
    CHECK(compile_form(&src, &l, err, sizeof err) == 0);
    CHECK(l.n_options >= 1 && strcmp(l.options[0], "-I.") == 0);
    cf_lists_clear(&l);

    /* no condition callback: every define holds */
    src = source(&f, "/d", NULL, 0);
    src.define_holds = NULL;
    CHECK(compile_form(&src, &l, err, sizeof err) == 0);
    int wide = 0;
    for (int i = 0; i < l.n_options; i++)
        wide += strcmp(l.options[i], "-DWIDE=1") == 0;
    CHECK(wide == 1);
    cf_lists_clear(&l);

    /* a name expression alone, as the tuner asks for one launch's kernel */
    src = source(&f, "/d", NULL, 0);
    char *name = compile_form_name(&src, 2, err, sizeof err);
    CHECK_STR(name, "gemm<64, float>");
    free(name);
    name = compile_form_name(&src, 1, err, sizeof err);
    CHECK_STR(name, "fix");
    free(name);

    /* failures: nothing left, the caller's message kept */
    f.holds[1] = -1;
    src = source(&f, "/d", NULL, 0);
    CHECK(compile_form(&src, &l, err, sizeof err) == -1);
    CHECK(l.n_options == 0 && !l.options && !l.kernels);
    CHECK_STR(err, "condition 1 failed");
    f.holds[1] = 1;
    f.targ[2][1] = "FAIL";
    CHECK(compile_form(&src, &l, err, sizeof err) == -1);
    CHECK(l.n_options == 0 && l.n_kernels == 0 && !l.step_kernel);
    CHECK_STR(err, "template 1 of step 2 failed");
    CHECK(compile_form_name(&src, 2, err, sizeof err) == NULL);
    return CHECK_DONE();
}

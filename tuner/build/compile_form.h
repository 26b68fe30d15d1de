/* compile_form.h: the compiler options and kernel name expressions of one config of a user
 * kernel, formed by one rule for the tuner (space_user_compile) and for libtunekit's run-time API
 * (runtime_build.c), so that a config gets the same compilation, and the same compile-cache key,
 * from both:
 *   -std=c++17 unless one of the kernel's options sets the standard; -I<source folder> ("." when
 *   none); -I<dir> for each include directory; -D<name> or -D<name>=<value> for each define whose
 *   condition holds, in order; the kernel's options; and per step (launch) the name expression
 *   <function> or <function><arg, arg, ...>, steps with equal expressions sharing one kernel.
 * The caller evaluates the expressions (the tuner over a space binding, the library over its
 * parsed descriptor); this module only orders and spells. */
#pragma once
#include <stddef.h>

typedef struct cf_source {
    void *ctx;
    const char *source_dir;
    int n_include_dirs;
    const char *const *include_dirs;
    int n_defines;
    const char *const *define_names;
    /* whether define i holds (1) or not (0); NULL: every define holds. 0, or -1 with err */
    int (*define_holds)(void *ctx, int i, int *holds, char *err, size_t len);
    /* define i's value as text, *has = 0 for a define without a value. 0, or -1 with err */
    int (*define_value)(void *ctx, int i, int *has, char *text, size_t cap, char *err,
                        size_t len);
    int n_options;
    const char *const *options;
    int n_steps;
    const char *(*step_function)(void *ctx, int step);
    int (*step_n_template)(void *ctx, int step);
    /* template argument j of a step as text. 0, or -1 with err */
    int (*template_arg)(void *ctx, int step, int j, char *text, size_t cap, char *err,
                        size_t len);
} cf_source;

typedef struct cf_lists {
    int n_options;
    char **options;
    int n_kernels;
    char **kernels;
    int *step_kernel; /* per step, its index in kernels */
} cf_lists;

/* out's lists, malloc'd. 0, or -1 with err (out cleared). */
int compile_form(const cf_source *src, cf_lists *out, char *err, size_t len);
/* One step's name expression, malloc'd (NULL with err). */
char *compile_form_name(const cf_source *src, int step, char *err, size_t len);
void cf_lists_clear(cf_lists *c);

/* variant_user_checks.h: what the variant builder of a user kernel (variant_user.c) holds a
 * compiled module against before it runs, and the messages of a space whose variants do not
 * compile (variant_user_checks.c). Only variant_user.c includes it. */
#pragma once
#include <stddef.h>
#include "core/module_meta.h"
#include "space/space.h"
#include "space/space_user.h"

/* A define of the space that the source #defines again (the compiler's redefinition warning in
 * the module's log mm): it never reaches the kernel. -1 with err; 0 when none. */
int vu_defines_reach(const space *sp, const module_meta *mm, char *err, size_t len);

/* A compiled module at config choice (NULL: a reference kernel) of kernel k, compiled as sc
 * says: the defines reach it (with_defines, vu_defines_reach), the variables its buffers fill
 * hold them, and its blocks keep within its __launch_bounds__. The module's meta file is read
 * once. 1; 0 with why (the config cannot run: unsupported); -1 with err. */
int vu_module_checks(const space *sp, const space_binding *bind, const int *choice,
                     const su_kernel *k, const su_compile *sc, const char *module,
                     int with_defines, char *why, size_t why_len, char *err, size_t len);

/* Each launch's arguments against its kernel's parameters in the module (mm, the meta file of
 * cubin): their number and sizes, the buffers' element types against the pointers the kernel
 * takes, and the buffers that fill its variables against their sizes. 0, or -1 with err. */
int vu_check_params(const space *sp, const space_binding *bind, const int *choice,
                    const su_kernel *k, const char *cubin, const module_meta *mm, char *err,
                    size_t len);

/* Where k's defines are the default, what they were, as a hint appended to a refusal whose log
 * could be about them (out left alone otherwise). */
void vu_default_defines_hint(const space *sp, const su_kernel *k, const char *log, char *out,
                             size_t len);

/* Whether a refusal's log says the template arguments fit no instance of the template, with
 * the instance into inst: 1 when it does. */
int vu_template_mismatch(const char *log, char *inst, size_t len);

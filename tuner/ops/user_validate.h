/* user_validate.h: a user kernel's comparison plans (user_validate.c), as the family
 * (user_kernel.c) calls them: once the reference has run, keep what each output's plan compares
 * with; after a variant's run, compare; and free what the plans hold. */
#pragma once
#include <stddef.h>
#include "user_module.h"

/* After the reference ran (its outputs in the buffers, at config choice: the reference's):
 * loads the check kernels (checks: their cubins, one per line) and keeps what each output's
 * plan compares with: the contents, the reduction, the check kernel's result. 0, or -1 with
 * err. */
int uk_plans_reference(op_instance *in, const int *choice, const char *checks, char *err,
                       size_t len);
/* Compares every output of the bound variant by its plan: 0 all within tolerance, 1 some not
 * (err lists them), -1 a CUDA error. */
int uk_plans_validate(op_instance *in, char *err, size_t len);
void uk_plans_release(op_instance *in);

/* registry.c: the list of op families the tuner knows, and lookups over a family's names.
 * A new family adds its harness file under tuner/ops/, and here its extern declaration and
 * its entry in families[] (docs/architecture.md, "A new built-in kernel family"). */
#include "ops.h"

#include <string.h>

extern const op_family op_family_elementwise;
extern const op_family op_family_conv1d;
extern const op_family op_family_upsample;
extern const op_family op_family_atomic;
extern const op_family op_family_index_add;
extern const op_family op_family_reduce;
extern const op_family op_family_relu_mask;
extern const op_family op_family_selftest;

static const op_family *const families[] = {
    &op_family_elementwise,
    &op_family_conv1d,
    &op_family_upsample,
    &op_family_atomic,
    &op_family_index_add,
    &op_family_reduce,
    &op_family_relu_mask,
    &op_family_selftest,
    NULL,
};

const op_family *const *op_families(void) { return families; }

const op_family *op_family_find(const char *kernel)
{
    for (int i = 0; kernel && families[i]; i++)
        if (strcmp(families[i]->kernel, kernel) == 0) return families[i];
    return NULL;
}

static int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int op_family_op_index(const op_family *f, const char *op)
{
    return name_index(f->ops, f->n_ops, op);
}

int op_family_dtype_index(const op_family *f, const char *dtype)
{
    return name_index(f->dtypes, f->n_dtypes, dtype);
}

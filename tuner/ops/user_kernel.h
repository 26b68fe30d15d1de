/* user_kernel.h: a user kernel as a kernel family (tuner/ops/ops.h), built at run time from its
 * space file: its fields are the problem's, its bytes and elements come from the buffers, its
 * worker side fills the buffers the space lists (and the module variables some of them fill),
 * computes the reference once per problem, launches the compiled variant's kernels in order
 * with each launch's geometry, and compares each output by its plan on the GPU.
 * The run loop, strategies, measuring loop, database, header and report see an op_family like
 * any other. Also the one space loader the commands use, for built-in families and user kernels
 * alike. */
#pragma once
#include <stddef.h>
#include "core/device.h"
#include "space/space.h"

/* Loads a space file (space_load) and, for a user kernel, gives it its family (sp->family).
 * dev: the device the worker runs on (worker side, for expressions that read device
 * attributes); NULL in the parent. Returns NULL with err ("path:line:col: error: ..."). Free
 * with user_space_free. */
space *user_space_load(const char *path, const device_info *dev, char *err, size_t len);
void user_space_free(space *sp);

/* header.h: the one header writer. Reads the best configs from recorded measurements (dumps or
 * a database) and writes kernels/tuned_configs.h: per device model (name, compute capability,
 * SM count) the winning config per op, dtype and problem size, with its measured time, GB/s and
 * share of the copy ceiling in a comment. Byte-for-byte deterministic for the same inputs. */
#pragma once
#include <stddef.h>

/* Writes the header text for inputs (paths of .sql dumps or database files, in the order given;
 * the caller sorts) into a malloc'd string *out (caller frees). label names the inputs in the
 * do-not-edit line. Returns 0 or -1 with err. */
int header_generate(const char *const *inputs, int n_inputs, char **out, char *err, size_t len);

/* header.h: the one header writer. Reads the best configs from recorded measurements (dumps or
 * a database) and writes kernels/tuned_configs.h: per device model (name, compute capability,
 * SM count) the winning config per op, dtype and problem size, with its measured time, GB/s and
 * share of the copy ceiling in a comment; or, for a user kernel, a self-contained header of its
 * winners (header_user.c). The winners are the fastest, or under --objective energy or edp the
 * least energy or energy-delay product. Byte-for-byte deterministic for the same inputs. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/objective.h"

struct space;

/* Writes the header text for inputs (paths of .sql dumps or database files, in the order given;
 * the caller sorts) into a malloc'd string *out (caller frees), each entry the winner under
 * objective o (db_each_best_by; docs/energy.md). Time writes what it always has;
 * energy or edp say so in a comment line and give each entry's energy, and leave out the
 * entries with no energy measured, counted in *no_energy (may be NULL). Returns 0 or -1 with
 * err (also when the inputs have measurements but none with energy under energy or edp). */
int header_generate(const char *const *inputs, int n_inputs, objective o, char **out,
                    int64_t *no_energy, char *err, size_t len);

/* The header of a user kernel's winners (docs/user-kernels.md) for the space sp (loaded with
 * user_space_load), from the inputs' evaluations of the kernel as it is now (its kernel hash),
 * each the winner under objective o as header_generate's; under energy or edp the header says
 * so (a comment line and <OP>_OBJECTIVE) and a problem without energy has no entry (counted in
 * *no_energy, may be NULL). out_name is the file the text will be written to (its name makes the
 * include guard). Returns 0 with *out (caller frees), or -1 with err (also when no validated
 * measurement exists, or none with energy under energy or edp). */
int header_user_generate(const struct space *sp, const char *const *inputs, int n_inputs,
                         objective o, const char *out_name, char **out, int64_t *no_energy,
                         char *err, size_t len);

/* A winner of a user kernel's header, as the descriptor lists it (header_desc.c). */
typedef struct header_winner {
    const char *device, *dtype, *config;
    int cc_major, cc_minor, sm_count;
    double us;
} header_winner;
/* Writes the descriptor of libtunekit's run-time API for the space's kernel (inside #ifdef
 * TUNEKIT_RUNTIME_H), its entries pointing into the table <lower>_table the header wrote first,
 * in the same order as w. 0, or -1 with err. */
int header_put_descriptor(FILE *f, const struct space *sp, const char *lower, int n_winners,
                          const header_winner *w, char *err, size_t len);

/* Writes s as a C string literal. */
void header_put_string(FILE *f, const char *s);

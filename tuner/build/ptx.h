/* ptx.h: what the tuner reads from a compiled variant's PTX text: the kernels it defines (their
 * names and parameters' sizes, checked against the space's `args` before anything runs, and the
 * threads a block their __launch_bounds__ allow, held against each config's block) and the
 * global variables it declares (constant memory the tuner fills). Pure text functions, no CUDA. */
#pragma once
#include <stddef.h>

/* Parses the parameters of the .entry named entry: their sizes in bytes, in order, into
 * sizes[max]. Returns the count, or -1 when the entry is not there. */
int ptx_entry_params(const char *ptx, const char *entry, int *sizes, int max);

/* The most threads a block of the .entry named entry may have, as its .maxntid directive says
 * (what __launch_bounds__(N) compiles to: ".maxntid N, 1, 1"; the product of its one to three
 * numbers); 0 when it has none, -1 when the entry is not there. */
int ptx_entry_max_threads(const char *ptx, const char *entry);

/* The names of every .entry (kernel) in the PTX, in order; NULL-terminated, malloc'd (each name
 * and the array: ptx_names_free). NULL when memory ran out. */
char **ptx_entries(const char *ptx);
/* The names of the module-scope variables declared .global or .const, in order; as ptx_entries. */
char **ptx_globals(const char *ptx);
void ptx_names_free(char **names);

/* ptx.h: what the tuner reads from a compiled variant's PTX text: the kernels it defines (their
 * names and parameters' sizes, checked against the space's `args` before anything runs) and the
 * global variables it declares (constant memory the tuner fills). Pure text functions, no CUDA. */
#pragma once
#include <stddef.h>

/* Parses the parameters of the .entry named entry: their sizes in bytes, in order, into
 * sizes[max]. Returns the count, or -1 when the entry is not there. */
int ptx_entry_params(const char *ptx, const char *entry, int *sizes, int max);

/* The names of every .entry (kernel) in the PTX, in order; NULL-terminated, malloc'd (each name
 * and the array: ptx_names_free). NULL when memory ran out. */
char **ptx_entries(const char *ptx);
/* The names of the module-scope variables declared .global or .const, in order; as ptx_entries. */
char **ptx_globals(const char *ptx);
void ptx_names_free(char **names);

/* space_user_internal.h: what the user-kernel files of the space loader share and nothing else
 * includes: reading the `kernel:` mapping (space_user_read.c), the kernel's files and identity
 * (space_user_files.c) and evaluating for a binding (space_user_eval.c). */
#pragma once
#include <stddef.h>
#include "space_internal.h"
#include "space_user.h"

enum { SU_MAX_SOURCE = 16 << 20, SU_MAX_FILES = 1000 };

/* dir + "/" + rel (rel as it is when absolute or dir is empty); malloc'd, NULL when out of
 * memory. */
char *su_path_join(const char *dir, const char *rel);
/* The folder of path ("" when it has none); malloc'd. */
char *su_dir_of(const char *path);
/* Reads a whole file (at most SU_MAX_SOURCE bytes); malloc'd and NUL-terminated, *n its size
 * (n may be NULL); NULL with why. */
char *su_read_text(const char *path, size_t *n, char *why, size_t len);
int su_is_file(const char *path);
int su_is_dir(const char *path);

void su_expr_clear(su_expr *x);
void su_kernel_clear(su_kernel *k);
void su_arg_clear(su_arg *a);

/* Computes u->hash (space_user_hash) once everything is read. -1 with the loader's error. */
int su_compute_hash(loader *L, space_user *u);

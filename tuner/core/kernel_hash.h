/* kernel_hash.h: which kernel source a measurement was taken with. Every evaluation's key holds
 * the hash of the source it measured, so resume skips a config only when the source is the one
 * built into this binary, and results of an edited kernel never mix with the old ones. */
#pragma once

/* The kernel-source hash of a built-in family (build/gen/family_hashes.h, made by the
 * Makefile), or "untracked". */
const char *kernel_hash_for(const char *family);

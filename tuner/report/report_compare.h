/* report_compare.h: a winning config against its two baselines, for `tuner best --compare` and
 * the report: the family's classic default config measured in the same database (the default is
 * one of the space's configs, so it is measured beside every winner), and the fastest reference
 * library (PyTorch, ...) that scripts/peers.py recorded for the same device and problem. */
#pragma once
#include <stddef.h>
#include "db/db.h"

typedef struct winner_comparison {
    double default_us;           /* the default config's median; 0 when it was not measured ok */
    char default_config[1024];   /* the default as the space spells it; "" when unknown */
    double peer_us;              /* the fastest peer's median; 0 when none was recorded */
    char peer[256];              /* that peer's library text */
} winner_comparison;

/* The family's classic default config for op ("family.op") and dtype, written as a config of
 * the same space as like_config: keys like_config does not have are dropped (a space that does
 * not tune a parameter runs it at the library's default). Returns 0, or -1 when the family is
 * unknown, has no default, or like_config names a parameter the default does not. */
int default_config_like(const char *op, const char *dtype, const char *like_config, char *buf,
                        size_t len);

/* Fills c for the winner r (a row of the `best` view). Returns 0, or -1 on a database error
 * (c then holds what was found before it). */
int winner_compare(db *d, const best_row *r, winner_comparison *c);

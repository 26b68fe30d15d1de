/* energy.h: the board's energy counter and state through NVML, loaded at run time (docs/energy.md).
 * No NVML (no driver library, a GPU without the counter) means no meter: energy is then not
 * measured, never a failure. The measuring window itself (back-to-back launches while the counter
 * is polled) is measure.c's. */
#pragma once
#include "core/eval.h"

typedef struct energy_meter energy_meter;

/* The meter of the GPU whose UUID is given ("GPU-xxxxxxxx-..."), or NULL with why[len] saying
 * why there is none. */
energy_meter *energy_meter_open(const char *uuid, char *why, size_t len);
void energy_meter_close(energy_meter *m);
/* The board's energy counter since the driver loaded, in millijoules. 0, or -1. */
int energy_meter_read(energy_meter *m, unsigned long long *mj);
/* The clocks, temperature and clock event (throttle) reasons now, into e (fields it cannot
 * read: 0, throttle -1). */
void energy_meter_state(energy_meter *m, eval_energy *e);

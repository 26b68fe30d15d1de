/* device_settings.h: the GPU's clocks and power limit as tunable parameters (docs/energy.md,
 * "Clocks and power limit"). A user kernel's space may list gpu_clock_mhz, mem_clock_mhz and
 * power_limit_w among its parameters (0: as the driver has it); they are searched like any other
 * parameter and stored in the config text, but not passed to the kernel: the worker applies them
 * to its GPU through NVML before measuring a config (locked clocks, min = max; the power limit
 * in mW), and a setting the GPU or the user's rights refuse makes the evaluation `unsupported`
 * with the reason. Before the first change on a GPU, what it had is written to a state file
 * (`<database>.device-settings.<GPU uuid>`, written whole to a temporary file and renamed), and
 * put back, the file removed, when the worker ends, by the parent when the worker dies or is
 * stopped by SIGINT or SIGTERM, and by the next `tuner run` when the whole tuner was killed. */
#pragma once
#include <stddef.h>
#include <stdio.h>

enum { DEVSET_GPU_CLOCK = 0, DEVSET_MEM_CLOCK, DEVSET_POWER_LIMIT, DEVSET_N };

/* The parameters' names, in that order. */
extern const char *const devset_names[DEVSET_N];
/* The largest value each takes (MHz, MHz, W): a sanity bound for the space file. */
#define DEVSET_MAX_VALUE 100000

/* What a config asks of the GPU: v[i] of setting i, 0 as the driver has it. */
typedef struct devset_values {
    int v[DEVSET_N];
} devset_values;

/* The setting a parameter name is (DEVSET_GPU_CLOCK ...), or -1. */
int devset_param_index(const char *name);
/* The device settings of a config text ("a=1,gpu_clock_mhz=1410"), into out (0 where absent).
 * Returns how many it names, or -1 when one's value is not a non-negative integer. */
int devset_from_config(const char *config, devset_values *out);

/* The state file of a database's GPU: "<db, made absolute>.device-settings.<uuid>". */
int devset_state_path(const char *db_path, const char *uuid, char *out, size_t len);

typedef struct devset devset;
/* The settings of the GPU whose UUID is given, their state kept at state_path. Changes nothing
 * yet. NULL only when out of memory. */
devset *devset_open(const char *uuid, const char *state_path);
/* Makes want the GPU's settings, changing only what differs from what is applied (the first
 * change writes the state file first). 0, or -1 with why: "power_limit_w=250:
 * nvmlDeviceSetPowerManagementLimit: Insufficient Permissions" (no NVML, a call NVML lacks or
 * refuses, a value out of the GPU's range): the config is then unsupported. */
int devset_apply(devset *d, const devset_values *want, char *why, size_t len);
/* Puts back what the GPU had before the first change, and removes the state file. 0, or -1
 * with err (the state file is then kept for a later restore). Nothing to do: 0. */
int devset_restore(devset *d, char *err, size_t len);
/* devset_restore (its failure said on stderr), then frees d. */
void devset_close(devset *d);

/* A state file left behind: puts back what it records on the GPU it names and removes it. 1
 * done, 0 no such file, -1 with err (the file kept). */
int devset_restore_file(const char *path, char *err, size_t len);
/* Every state file of a database (<db>.device-settings.*): each restored, and said once on note
 * ("tuner: restored the GPU settings a killed run left changed (...)"). Returns how many were
 * restored, or -1 when one could not be (err). */
int devset_restore_stale(const char *db_path, FILE *note, char *err, size_t len);

/* A process's state files to restore when it is stopped by SIGINT or SIGTERM (the tuner's run:
 * devset_watch_path for each, then devset_watch_signals once). */
void devset_watch_path(const char *path);
void devset_watch_signals(void);

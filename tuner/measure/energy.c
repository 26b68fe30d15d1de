/* energy.c: NVML, loaded at run time, for the energy measurement (energy.h). Only the calls the
 * meter needs are looked up: nvmlInit_v2, nvmlDeviceGetHandleByUUID,
 * nvmlDeviceGetTotalEnergyConsumption (millijoules since the driver loaded; Volta and later),
 * nvmlDeviceGetClockInfo, nvmlDeviceGetTemperature and the clock event reasons (named
 * nvmlDeviceGetCurrentClocksEventReasons since driver 535, ...ThrottleReasons before). */
#include "energy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *nvml_device;

static struct {
    int ok;
    char why[160];
    int (*init)(void);
    int (*by_uuid)(const char *, nvml_device *);
    int (*energy)(nvml_device, unsigned long long *);
    int (*clock)(nvml_device, int, unsigned *);
    int (*temperature)(nvml_device, int, unsigned *);
    int (*reasons)(nvml_device, unsigned long long *);
} nvml;

static pthread_once_t once = PTHREAD_ONCE_INIT;

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static void load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(nvml.why, sizeof nvml.why, "NVML (libnvidia-ml.so.1) not found");
        return;
    }
    *(void **)&nvml.init = dlsym(h, "nvmlInit_v2");
    *(void **)&nvml.by_uuid = dlsym(h, "nvmlDeviceGetHandleByUUID");
    *(void **)&nvml.energy = dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
    *(void **)&nvml.clock = dlsym(h, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.temperature = dlsym(h, "nvmlDeviceGetTemperature");
    *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml.reasons)
        *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!nvml.init || !nvml.by_uuid || !nvml.energy) {
        snprintf(nvml.why, sizeof nvml.why, "NVML has no energy counter calls");
        return;
    }
    int rc = nvml.init();
    if (rc != 0) {
        snprintf(nvml.why, sizeof nvml.why, "nvmlInit_v2 failed (NVML error %d)", rc);
        return;
    }
    nvml.ok = 1;
}

struct energy_meter {
    nvml_device dev;
};

energy_meter *energy_meter_open(const char *uuid, char *why, size_t len)
{
    pthread_once(&once, load);
    if (!nvml.ok) {
        snprintf(why, len, "%s", nvml.why);
        return NULL;
    }
    nvml_device dev;
    int rc = nvml.by_uuid(uuid, &dev);
    if (rc != 0) {
        snprintf(why, len, "NVML does not know the GPU %s (NVML error %d)", uuid, rc);
        return NULL;
    }
    unsigned long long mj;
    if ((rc = nvml.energy(dev, &mj)) != 0) {
        snprintf(why, len, "the GPU %s has no energy counter NVML reads (NVML error %d)", uuid,
                 rc);
        return NULL;
    }
    energy_meter *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(why, len, "out of host memory");
        return NULL;
    }
    m->dev = dev;
    return m;
}

void energy_meter_close(energy_meter *m)
{
    free(m);
}

int energy_meter_read(energy_meter *m, unsigned long long *mj)
{
    return m && nvml.energy(m->dev, mj) == 0 ? 0 : -1;
}

void energy_meter_state(energy_meter *m, eval_energy *e)
{
    unsigned v;
    unsigned long long r;
    e->sm_mhz = e->mem_mhz = e->temp_c = 0;
    e->throttle = -1;
    if (!m)
        return;
    if (nvml.clock && nvml.clock(m->dev, NVML_CLOCK_SM, &v) == 0)
        e->sm_mhz = (int)v;
    if (nvml.clock && nvml.clock(m->dev, NVML_CLOCK_MEM, &v) == 0)
        e->mem_mhz = (int)v;
    if (nvml.temperature && nvml.temperature(m->dev, NVML_TEMPERATURE_GPU, &v) == 0)
        e->temp_c = (int)v;
    if (nvml.reasons && nvml.reasons(m->dev, &r) == 0)
        e->throttle = (long long)r;
}

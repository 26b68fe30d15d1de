/* energy.c: NVML, loaded at run time, for the energy measurement (energy.h) and the device
 * settings (device_settings.c, through nvml_get). Only the calls used are looked up:
 * nvmlInit_v2, nvmlDeviceGetHandleByUUID, nvmlDeviceGetTotalEnergyConsumption (millijoules since
 * the driver loaded; Volta and later), nvmlDeviceGetClockInfo, nvmlDeviceGetTemperature and the
 * clock event reasons (named nvmlDeviceGetCurrentClocksEventReasons since driver 535,
 * ...ThrottleReasons before); for the settings the locked clocks, the power limit and their
 * ranges, and nvmlErrorString. TUNEKIT_NVML_LIB names another library to load instead of
 * libnvidia-ml.so.1 (the tests' fake NVML, tests/fixtures/fake_nvml.c). */
#include "energy.h"
#include "nvml_calls.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static nvml_calls nvml;

static pthread_once_t once = PTHREAD_ONCE_INIT;

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static void load(void)
{
    const char *lib = getenv("TUNEKIT_NVML_LIB");
    void *h = lib && *lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL)
                          : dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h && !(lib && *lib))
        h = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(nvml.why, sizeof nvml.why, "NVML (%s) not found",
                 lib && *lib ? lib : "libnvidia-ml.so.1");
        return;
    }
    *(void **)&nvml.init = dlsym(h, "nvmlInit_v2");
    *(void **)&nvml.by_uuid = dlsym(h, "nvmlDeviceGetHandleByUUID");
    *(void **)&nvml.energy = dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
    *(void **)&nvml.clock = dlsym(h, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.max_clock = dlsym(h, "nvmlDeviceGetMaxClockInfo");
    *(void **)&nvml.temperature = dlsym(h, "nvmlDeviceGetTemperature");
    *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml.reasons)
        *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nvml.error_string = dlsym(h, "nvmlErrorString");
    *(void **)&nvml.set_gpu_locked = dlsym(h, "nvmlDeviceSetGpuLockedClocks");
    *(void **)&nvml.reset_gpu_locked = dlsym(h, "nvmlDeviceResetGpuLockedClocks");
    *(void **)&nvml.set_mem_locked = dlsym(h, "nvmlDeviceSetMemoryLockedClocks");
    *(void **)&nvml.reset_mem_locked = dlsym(h, "nvmlDeviceResetMemoryLockedClocks");
    *(void **)&nvml.get_power_limit = dlsym(h, "nvmlDeviceGetPowerManagementLimit");
    *(void **)&nvml.power_limit_range = dlsym(h, "nvmlDeviceGetPowerManagementLimitConstraints");
    *(void **)&nvml.set_power_limit = dlsym(h, "nvmlDeviceSetPowerManagementLimit");
    if (!nvml.init || !nvml.by_uuid) {
        snprintf(nvml.why, sizeof nvml.why, "NVML has no nvmlInit_v2 or nvmlDeviceGetHandleByUUID");
        return;
    }
    int rc = nvml.init();
    if (rc != 0) {
        snprintf(nvml.why, sizeof nvml.why, "nvmlInit_v2 failed (NVML error %d)", rc);
        return;
    }
    nvml.ok = 1;
}

const nvml_calls *nvml_get(void)
{
    pthread_once(&once, load);
    return &nvml;
}

const char *nvml_error(int rc)
{
    const char *s = nvml.error_string ? nvml.error_string(rc) : NULL;
    return s ? s : "NVML error";
}

struct energy_meter {
    nvml_device dev;
};

energy_meter *energy_meter_open(const char *uuid, char *why, size_t len)
{
    pthread_once(&once, load);
    if (!nvml.ok || !nvml.energy) {
        snprintf(why, len, "%s", nvml.ok ? "NVML has no energy counter calls" : nvml.why);
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

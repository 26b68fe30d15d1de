/* nvml_calls.h: the NVML calls the tuner uses, looked up at run time by energy.c's one loader
 * (dlopen of libnvidia-ml.so.1, or TUNEKIT_NVML_LIB) and shared by the energy meter (energy.c)
 * and the device settings (device_settings.c). A call the library lacks is NULL. */
#pragma once

typedef void *nvml_device;

/* NVML's return codes the tuner tells apart. */
enum { NVML_OK = 0, NVML_ERR_NOT_SUPPORTED = 3, NVML_ERR_NO_PERMISSION = 4 };
/* nvmlClockType_t */
enum { NVML_CLOCK_GRAPHICS_ID = 0, NVML_CLOCK_MEM_ID = 2 };

typedef struct nvml_calls {
    int ok;                  /* loaded and initialised; else why says why not */
    char why[160];
    int (*init)(void);
    int (*by_uuid)(const char *, nvml_device *);
    int (*energy)(nvml_device, unsigned long long *);
    int (*clock)(nvml_device, int, unsigned *);
    int (*max_clock)(nvml_device, int, unsigned *);
    int (*temperature)(nvml_device, int, unsigned *);
    int (*reasons)(nvml_device, unsigned long long *);
    const char *(*error_string)(int);
    int (*set_gpu_locked)(nvml_device, unsigned, unsigned);
    int (*reset_gpu_locked)(nvml_device);
    int (*set_mem_locked)(nvml_device, unsigned, unsigned);
    int (*reset_mem_locked)(nvml_device);
    int (*get_power_limit)(nvml_device, unsigned *);
    int (*power_limit_range)(nvml_device, unsigned *, unsigned *);
    int (*set_power_limit)(nvml_device, unsigned);
} nvml_calls;

/* The calls, loaded on first use (thread-safe). */
const nvml_calls *nvml_get(void);
/* NVML's text for a return code ("Insufficient Permissions"), or "NVML error". */
const char *nvml_error(int rc);

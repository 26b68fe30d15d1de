/* current_device.h: the device ordinal the calling thread's kernel launches go to, for the
 * library's per-call paths (the tuned lookup, the grid rule, per-device caches). Internal: not
 * part of tunekit.h. */
#ifndef TUNEKIT_CURRENT_DEVICE_H
#define TUNEKIT_CURRENT_DEVICE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Sets *dev to the device of the context current to the calling thread (what cudaGetDevice
 * returns, for less host time), else to cudaGetDevice's answer. Returns 0, or -1 when
 * there is no device. Thread-safe. */
int tk_current_device(int *dev);

#ifdef __cplusplus
}
#endif
#endif

/* test_device_settings.c: the GPU's clocks and power limit as parameters (measure/
 * device_settings.c, docs/energy.md "Clocks and power limit"), against the fake NVML that the
 * Makefile builds beside this test (tests/fixtures/fake_nvml.c, loaded through TUNEKIT_NVML_LIB):
 * a config's settings read from its text; applied only where they differ from what is applied,
 * the state file written before the first change; a refusal or a value out of the GPU's range
 * made a reason; restored at the end with the state file removed; a state file left behind
 * restored by devset_restore_file / devset_restore_stale. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "measure/device_settings.h"

static char dir[256], log_path[300], state[300], db[300];

/* The fake NVML's log since the last call, one string. */
static const char *log_text(void)
{
    static char buf[4096];
    buf[0] = 0;
    FILE *f = fopen(log_path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    unlink(log_path);
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_config(void)
{
    devset_values v;
    CHECK(devset_param_index("power_limit_w") == DEVSET_POWER_LIMIT);
    CHECK(devset_param_index("block_size") == -1);
    CHECK(devset_from_config("block_size=128,gpu_clock_mhz=1410,items=2", &v) == 1);
    CHECK(v.v[DEVSET_GPU_CLOCK] == 1410 && v.v[DEVSET_MEM_CLOCK] == 0 && v.v[DEVSET_POWER_LIMIT] == 0);
    CHECK(devset_from_config("power_limit_w=250,mem_clock_mhz=0", &v) == 2);
    CHECK(v.v[DEVSET_POWER_LIMIT] == 250);
    CHECK(devset_from_config("block_size=128", &v) == 0);
    CHECK(devset_from_config("gpu_clock_mhz=-5", &v) == -1);
    CHECK(devset_from_config("gpu_clock_mhz=1.5", &v) == -1);
    CHECK(devset_from_config("gpu_clock_mhz=", &v) == -1);
    char path[512];
    CHECK(devset_state_path("/tmp/x.db", "GPU-1", path, sizeof path) == 0);
    CHECK_STR(path, "/tmp/x.db.device-settings.GPU-1");
}

static void test_apply_restore(void)
{
    devset *d = devset_open("GPU-aaaa", state);
    devset_values v = { { 0, 0, 0 } };
    char why[512] = "";
    CHECK(devset_apply(d, &v, why, sizeof why) == 0);
    CHECK_STR(log_text(), "");
    CHECK(!exists(state));   /* nothing changed: no state file */
    v.v[DEVSET_GPU_CLOCK] = 1410;
    v.v[DEVSET_POWER_LIMIT] = 250;
    CHECK(devset_apply(d, &v, why, sizeof why) == 0);
    CHECK_STR(log_text(), "set_gpu_locked GPU-aaaa 1410 1410\nset_power_limit GPU-aaaa 250000\n");
    CHECK(exists(state));
    FILE *f = fopen(state, "r");
    char text[512] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        fclose(f);
    }
    CHECK(strstr(text, "uuid=GPU-aaaa\n") && strstr(text, "power_limit_mw=300000\n"));
    CHECK(devset_apply(d, &v, why, sizeof why) == 0);   /* the same again: no call */
    CHECK_STR(log_text(), "");
    v.v[DEVSET_GPU_CLOCK] = 0;   /* back to the driver's clocks */
    CHECK(devset_apply(d, &v, why, sizeof why) == 0);
    CHECK_STR(log_text(), "reset_gpu_locked GPU-aaaa\n");

    /* refused: the reason names the setting, the call and NVML's words */
    setenv("FAKE_NVML_REFUSE", "power", 1);
    v.v[DEVSET_POWER_LIMIT] = 200;
    CHECK(devset_apply(d, &v, why, sizeof why) == -1);
    CHECK_STR(why, "power_limit_w=200: nvmlDeviceSetPowerManagementLimit: Insufficient Permissions");
    unsetenv("FAKE_NVML_REFUSE");
    /* out of the GPU's range: said without a call */
    v.v[DEVSET_POWER_LIMIT] = 900;
    CHECK(devset_apply(d, &v, why, sizeof why) == -1);
    CHECK_STR(why, "power_limit_w=900: outside the GPU's power limits, 100-350 W");
    v.v[DEVSET_POWER_LIMIT] = 250;
    v.v[DEVSET_MEM_CLOCK] = 3000;
    CHECK(devset_apply(d, &v, why, sizeof why) == -1);
    CHECK_STR(why, "mem_clock_mhz=3000: above the GPU's highest memory clock, 2619 MHz");
    CHECK_STR(log_text(), "");

    /* the end: everything touched put back (the power limit first), the state file gone */
    CHECK(devset_restore(d, why, sizeof why) == 0);
    CHECK_STR(log_text(), "set_power_limit GPU-aaaa 300000\nreset_gpu_locked GPU-aaaa\n"
                          "reset_mem_locked GPU-aaaa\n");
    CHECK(!exists(state));
    CHECK(devset_restore(d, why, sizeof why) == 0);   /* twice: nothing more */
    CHECK_STR(log_text(), "");
    devset_close(d);
}

/* A worker killed after a change leaves its state file: the next run restores and removes it. */
static void test_left_behind(void)
{
    char path[512], why[512];
    CHECK(devset_state_path(db, "GPU-bbbb", path, sizeof path) == 0);
    devset *d = devset_open("GPU-bbbb", path);
    devset_values v = { { 1200, 0, 0 } };
    CHECK(devset_apply(d, &v, why, sizeof why) == 0);
    free(d);   /* killed: no restore */
    CHECK(exists(path));
    log_text();
    FILE *note = tmpfile();
    CHECK(devset_restore_stale(db, note, why, sizeof why) == 1);
    CHECK(!exists(path));
    CHECK_STR(log_text(), "reset_gpu_locked GPU-bbbb\n");   /* only what the run touched */
    char said[512] = "";
    rewind(note);
    CHECK(fgets(said, sizeof said, note) != NULL);
    CHECK(strstr(said, "tuner: restored the GPU settings") && strstr(said, "GPU-bbbb"));
    fclose(note);
    CHECK(devset_restore_stale(db, NULL, why, sizeof why) == 0);   /* none left */
    CHECK(devset_restore_file(path, why, sizeof why) == 0);
    /* a file that is not a state file: refused, kept */
    FILE *f = fopen(path, "w");
    fputs("hello\n", f);
    fclose(f);
    CHECK(devset_restore_file(path, why, sizeof why) == -1);
    CHECK(strstr(why, "not a state file") != NULL);
    CHECK(exists(path));
    unlink(path);
}

/* Restoring tries every touched setting. An H200 answers NOT_SUPPORTED to resetting the memory
 * lock: that counts as done, and the power limit is still put back (call35-4 left a 450 W limit
 * behind when the first failure stopped the restore). A setting that does fail stays in the
 * state file, alone, for the next run. */
static void test_partial_restore(void)
{
    char why[512];
    devset *d = devset_open("GPU-cccc", state);
    devset_values v = { { 1410, 1593, 250 } };
    CHECK(devset_apply(d, &v, why, sizeof why) == 0);
    log_text();
    setenv("FAKE_NVML_UNSUPPORTED", "reset_mem", 1);
    CHECK(devset_restore(d, why, sizeof why) == 0);
    CHECK_STR(log_text(), "set_power_limit GPU-cccc 300000\nreset_gpu_locked GPU-cccc\n");
    CHECK(!exists(state));
    unsetenv("FAKE_NVML_UNSUPPORTED");

    CHECK(devset_apply(d, &v, why, sizeof why) == 0);
    log_text();
    setenv("FAKE_NVML_REFUSE", "power", 1);
    CHECK(devset_restore(d, why, sizeof why) == -1);
    CHECK_STR(why, "nvmlDeviceSetPowerManagementLimit: Insufficient Permissions");
    CHECK_STR(log_text(), "reset_gpu_locked GPU-cccc\nreset_mem_locked GPU-cccc\n");
    CHECK(exists(state));
    FILE *f = fopen(state, "r");
    char text[512] = "";
    CHECK(f && fread(text, 1, sizeof text - 1, f) > 0);
    if (f) fclose(f);
    CHECK(strstr(text, "\nchanged=power_limit_w\n") != NULL);
    unsetenv("FAKE_NVML_REFUSE");
    CHECK(devset_restore_file(state, why, sizeof why) == 1);   /* the next run: the rest */
    CHECK_STR(log_text(), "set_power_limit GPU-cccc 300000\n");
    CHECK(!exists(state));
    free(d);
}

int main(int argc, char **argv)
{
    (void)argc;
    char lib[512];
    const char *slash = strrchr(argv[0], '/');
    snprintf(lib, sizeof lib, "%.*s/libfake_nvml.so", slash ? (int)(slash - argv[0]) : 1,
             slash ? argv[0] : ".");
    setenv("TUNEKIT_NVML_LIB", lib, 1);
    snprintf(dir, sizeof dir, "/tmp/test_device_settings.XXXXXX");
    if (!mkdtemp(dir)) return 1;
    snprintf(log_path, sizeof log_path, "%s/nvml.log", dir);
    snprintf(state, sizeof state, "%s/state", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    setenv("FAKE_NVML_LOG", log_path, 1);
    test_config();
    test_apply_restore();
    test_left_behind();
    test_partial_restore();
    unlink(log_path);
    rmdir(dir);
    return CHECK_DONE();
}

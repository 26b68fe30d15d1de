/* test_backend_cuda.c: the cuda backend's parent side (tuner/backend/backend_cuda.c) for real on the CPU:
 * backend_cuda_open is pointed at a fake worker, a shell script this test writes that speaks the
 * worker protocol and, depending on the config it is asked for, answers, hangs, crashes, exits or
 * talks nonsense. Checks the device line, the cached copy bandwidth, watchdog timeouts, crash and
 * exit reports with the last stderr line, restarts, protocol errors, a worker that cannot start,
 * and that close leaves no child behind. Last, the default executable (/proc/self/exe: this test,
 * which runs the real worker_main when called as `__worker N`) opens the real device, or says
 * clearly that there is none. */
#include "check.h"
#include "backend/backend.h"
#include "worker/worker.h"
#include "worker/protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char fake_worker[] =
    "#!/bin/sh\n"
    "# fake tuner worker for test_backend_cuda\n"
    "echo \"start $*\" >> \"$FAKE_LOG\"\n"
    "[ \"$1\" = __worker ] || { echo \"fake: bad argv $*\" >&2; exit 9; }\n"
    "if [ \"$2\" = 7 ]; then\n"
    "  echo 'fake: looking for devices' >&2\n"
    "  printf 'error\\tmessage=no CUDA device found (cudaGetDeviceCount: no CUDA-capable device "
    "is detected)\\n'\n"
    "  exit 2\n"
    "fi\n"
    "if [ \"$2\" = 8 ]; then echo 'fake: cannot even start' >&2; exit 4; fi\n"
    "printf 'device\\tname=Fake%%09GPU\\tuuid=GPU-00000000-1111-2222-3333-444444444444"
    "\\tcc_major=9\\tcc_minor=0\\tsm_count=132\\tmax_threads_per_sm=2048"
    "\\tmax_threads_per_block=1024\\tregs_per_sm=65536\\tsmem_per_sm=233472"
    "\\tl2_bytes=52428800\\tmem_bytes=85899345920\\tsm_clock_khz=1980000"
    "\\tmem_clock_khz=2619000\\tmem_bus_bits=5120\\tdriver_version=13000"
    "\\truntime_version=13010\\n'\n"
    "while IFS= read -r line; do\n"
    "  case \"$line\" in\n"
    "  quit*) echo quit >> \"$FAKE_LOG\"; exit 0 ;;\n"
    "  copy*) echo copy >> \"$FAKE_LOG\"; printf 'copy\\tgbps=3000.5\\n' ;;\n"
    "  *config=mode=ok*) printf 'prepared\\n'; "
    "printf 'result\\tstatus=ok\\terror=\\tsamples=10,12.5,11\\tsetup_ms=7.25\\n' ;;\n"
    "  *config=mode=invalid*) printf 'prepared\\nresult\\tstatus=invalid"
    "\\terror=1 of 8 differ%%09[4]\\tsamples=\\n' ;;\n"
    "  *config=mode=hang*) printf 'prepared\\n'; exec sleep 30 ;;\n"
    "  *config=mode=crash*) printf 'prepared\\n'; echo 'fake: about to crash' >&2; "
    "kill -SEGV $$ ;;\n"
    "  *config=mode=exit*) echo 'fake: leaving' >&2; exit 5 ;;\n"
    "  *config=mode=killonce*) if [ -e \"$FAKE_LOG.killed\" ]; then printf 'prepared\\n"
    "result\\tstatus=ok\\terror=\\tsamples=4\\n'; else : > \"$FAKE_LOG.killed\"; "
    "printf 'prepared\\n'; kill -KILL $$; fi ;;\n"
    "  *config=mode=killed*) printf 'prepared\\n'; echo 'fake: killed' >&2; kill -KILL $$ ;;\n"
    "  *config=mode=fault*) printf 'prepared\\nresult\\tstatus=fault"
    "\\terror=kernel: cudaErrorIllegalAddress\\tsamples=\\n'; exit 3 ;;\n"
    "  *config=mode=noisy*) head -c 300000 /dev/zero | tr '\\000' x >&2; "
    "echo >&2; echo 'fake: noisy end' >&2; "
    "printf 'prepared\\nresult\\tstatus=ok\\terror=\\tsamples=5\\n' ;;\n"
    "  *config=mode=garbage*) printf 'prepared\\nhello world\\n' ;;\n"
    "  *config=mode=unexpected*) printf 'device\\tname=x\\n' ;;\n"
    "  *config=mode=error*) printf 'error\\tmessage=worker: unknown kernel family %%27x%%27\\n' ;;\n"
    "  *config=mode=unprepared*) printf 'result\\tstatus=unsupported"
    "\\terror=prepare: out of memory\\tsamples=\\n' ;;\n"
    "  *) printf 'error\\tmessage=fake: unexpected request\\n' ;;\n"
    "  esac\n"
    "done\n"
    "exit 0\n";

static char dir[256], script[300], logpath[300];

static int count_log(const char *prefix)
{
    FILE *f = fopen(logpath, "r");
    if (!f) return 0;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, prefix, strlen(prefix)) == 0) n++;
    fclose(f);
    return n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int no_children(void)
{
    return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

static eval_request request(const problem *p, const char *config, double timeout_s)
{
    eval_request r;
    memset(&r, 0, sizeof r);
    r.kernel = "selftest";
    r.op = "copy";
    r.dtype = "f32";
    r.problem = p;
    r.config = config;
    r.seed = 1;
    r.validate = 1;
    r.tolerance_scale = 1;
    r.measure = (measure_settings){ .warmup = 1, .min_runs = 3, .max_runs = 5, .rel_ci = 0.01,
                                    .cold = 1, .timeout_s = timeout_s, .max_seconds = 1 };
    return r;
}

static void test_lifecycle(void)
{
    char err[1024] = "";
    problem p;
    CHECK(problem_parse(&p, "n=1024") == 0);
    backend *b = backend_cuda_open(0, script, err, sizeof err);
    CHECK(b != NULL);
    if (!b) return;
    CHECK_STR(b->spec, "cuda");
    CHECK(count_log("start") == 0);   /* lazily started */

    device_info d;
    CHECK(b->vt->device(b, &d, err, sizeof err) == 0);
    CHECK_STR(d.name, "Fake\tGPU");
    CHECK_STR(d.uuid, "GPU-00000000-1111-2222-3333-444444444444");
    CHECK(d.cc_major == 9 && d.cc_minor == 0 && d.sm_count == 132);
    CHECK(d.max_threads_per_sm == 2048 && d.max_threads_per_block == 1024);
    CHECK(d.regs_per_sm == 65536 && d.smem_per_sm == 233472 && d.l2_bytes == 52428800);
    CHECK(d.mem_bytes == 85899345920LL && d.sm_clock_khz == 1980000);
    CHECK(d.mem_clock_khz == 2619000 && d.mem_bus_bits == 5120);
    CHECK(d.driver_version == 13000 && d.runtime_version == 13010);
    CHECK(count_log("start __worker 0") == 1);

    /* Copy bandwidth: asked once, cached. */
    CHECK(b->vt->copy_gbps(b) == 3000.5);
    CHECK(b->vt->copy_gbps(b) == 3000.5);
    CHECK(count_log("copy") == 1);

    eval_result r;
    memset(&r, 0, sizeof r);
    eval_request q = request(&p, "mode=ok", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK);
    CHECK(r.n_samples == 3 && r.samples && r.samples[1] == 12.5);
    CHECK(r.stats.n == 3 && r.stats.median == 11 && r.stats.min == 10 && r.stats.max == 12.5);
    CHECK(r.setup_ms == 7.25);   /* the worker's set-up time reaches the run */
    eval_result_clear(&r);

    /* Submitted ahead (the run loop stores the last result meanwhile), then collected: the
     * request goes out once and one worker serves it. */
    CHECK(b->vt->submit != NULL);
    q = request(&p, "mode=ok", 5);
    CHECK(b->vt->submit(b, &q, err, sizeof err) == 0);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK && r.n_samples == 3 && r.stats.median == 11);
    eval_result_clear(&r);
    CHECK(count_log("start") == 1);
    /* a second submit before collecting, or collecting another request, is refused */
    CHECK(b->vt->submit(b, &q, err, sizeof err) == 0);
    CHECK(b->vt->submit(b, &q, err, sizeof err) == -1);
    CHECK(strstr(err, "submitted already") != NULL);
    eval_request other = request(&p, "mode=ok", 5);
    CHECK(b->vt->evaluate(b, &other, &r, err, sizeof err) == -1);
    CHECK(strstr(err, "submitted and another collected") != NULL);
    eval_result_clear(&r);
    /* the worker that had the abandoned request is gone; the next evaluation starts a new one */
    CHECK(b->vt->evaluate(b, &other, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK);
    eval_result_clear(&r);
    CHECK(count_log("start") == 2);

    q = request(&p, "mode=invalid", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_INVALID);
    CHECK_STR(r.error, "1 of 8 differ\t[4]");
    CHECK(r.n_samples == 0);
    eval_result_clear(&r);

    /* A problem the device cannot prepare: a result without `prepared`. */
    q = request(&p, "mode=unprepared", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_UNSUPPORTED);
    CHECK_STR(r.error, "prepare: out of memory");
    eval_result_clear(&r);
    CHECK(count_log("start") == 2);   /* one worker served everything so far */

    /* Hang: the watchdog kills it after timeout_s; the next request gets a fresh worker. */
    q = request(&p, "mode=hang", 0.5);
    double t0 = now_s();
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    double took = now_s() - t0;
    CHECK(r.status == EVAL_TIMEOUT);
    CHECK(took >= 0.45 && took < 5);
    CHECK(strstr(r.error, "0.5 s") != NULL);
    eval_result_clear(&r);
    q = request(&p, "mode=ok", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK);
    eval_result_clear(&r);
    CHECK(count_log("start") == 3);

    /* Crash: fault with the signal and the last stderr line; then a fresh worker. */
    q = request(&p, "mode=crash", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_FAULT);
    CHECK_STR(r.error, "worker died: signal 11 (fake: about to crash)");
    eval_result_clear(&r);
    q = request(&p, "mode=ok", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK);
    eval_result_clear(&r);
    CHECK(count_log("start") == 4);

    /* Killed from outside (SIGKILL) mid-evaluation: not the config's doing, so evaluated again
     * on a fresh worker, once; killed twice, the death is recorded as the config's fault. */
    int starts = count_log("start");
    q = request(&p, "mode=killonce", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK && r.n_samples == 1);
    eval_result_clear(&r);
    CHECK(count_log("start") == starts + 1);
    q = request(&p, "mode=killed", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_FAULT);
    CHECK_STR(r.error, "worker died: signal 9 (fake: killed)");
    eval_result_clear(&r);
    CHECK(count_log("start") == starts + 2);   /* the second worker died too; none runs now */

    /* Exit before answering (no `prepared` yet). */
    q = request(&p, "mode=exit", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_FAULT);
    CHECK_STR(r.error, "worker died: exit status 5 (fake: leaving)");
    eval_result_clear(&r);

    /* A fault the worker reports itself: it exits, and the next request restarts it. */
    q = request(&p, "mode=fault", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_FAULT);
    CHECK_STR(r.error, "kernel: cudaErrorIllegalAddress");
    eval_result_clear(&r);
    starts = count_log("start");
    q = request(&p, "mode=ok", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK);
    eval_result_clear(&r);
    CHECK(count_log("start") == starts + 1);

    /* Lots of stderr does not block the worker. */
    q = request(&p, "mode=noisy", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK && r.n_samples == 1);
    eval_result_clear(&r);

    /* A request the worker refuses, and nonsense from the worker: the run must stop (-1). */
    q = request(&p, "mode=error", 5);
    err[0] = 0;
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == -1);
    CHECK_STR(err, "worker: worker: unknown kernel family 'x'");
    q = request(&p, "mode=garbage", 5);
    err[0] = 0;
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == -1);
    CHECK(strstr(err, "protocol") != NULL);
    q = request(&p, "mode=unexpected", 5);
    err[0] = 0;
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == -1);
    CHECK(strstr(err, "unexpected 'device'") != NULL);
    /* ... and the backend still works afterwards with a fresh worker. */
    starts = count_log("start");
    q = request(&p, "mode=ok", 5);
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == 0);
    CHECK(r.status == EVAL_OK);
    eval_result_clear(&r);
    CHECK(count_log("start") == starts + 1);

    /* Close asks the worker to quit and reaps it. */
    int quits = count_log("quit");
    b->vt->close(b);
    CHECK(count_log("quit") == quits + 1);
    CHECK(no_children());
    problem_clear(&p);
}

static void test_no_device(void)
{
    char err[1024] = "";
    problem p;
    CHECK(problem_parse(&p, "n=1024") == 0);
    /* The fake answers ordinal 7 the way a machine without a GPU does. */
    backend *b = backend_cuda_open(7, script, err, sizeof err);
    CHECK(b != NULL);
    if (!b) return;
    CHECK_STR(b->spec, "cuda:7");
    device_info d;
    CHECK(b->vt->device(b, &d, err, sizeof err) == -1);
    CHECK_STR(err, "no CUDA device found (cudaGetDeviceCount: no CUDA-capable device is "
                   "detected)");
    eval_result r;
    eval_request q = request(&p, "mode=ok", 5);
    err[0] = 0;
    CHECK(b->vt->evaluate(b, &q, &r, err, sizeof err) == -1);
    CHECK(strstr(err, "no CUDA device found") != NULL);
    CHECK(b->vt->copy_gbps(b) <= 0);
    b->vt->close(b);
    CHECK(no_children());

    /* A worker that exits before saying anything. */
    b = backend_cuda_open(8, script, err, sizeof err);
    CHECK(b != NULL);
    if (!b) return;
    CHECK(b->vt->device(b, &d, err, sizeof err) == -1);
    CHECK_STR(err, "cannot start the worker: worker died: exit status 4 (fake: cannot even "
                   "start)");
    b->vt->close(b);

    /* An executable that does not exist. */
    b = backend_cuda_open(0, "/nonexistent/tuner", err, sizeof err);
    CHECK(b != NULL);
    if (!b) return;
    CHECK(b->vt->device(b, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "exec failed: /nonexistent/tuner: No such file or directory") != NULL);
    b->vt->close(b);
    CHECK(no_children());

    CHECK(backend_cuda_open(-1, script, err, sizeof err) == NULL);
    problem_clear(&p);
}

/* The real worker through the default path: a GPU's description, or "no CUDA device found". */
static void test_real_worker(void)
{
    char err[1024] = "";
    backend *b = backend_cuda_open(0, NULL, err, sizeof err);
    CHECK(b != NULL);
    if (!b) return;
    device_info d;
    if (b->vt->device(b, &d, err, sizeof err) == 0) {
        CHECK(strncmp(d.uuid, "GPU-", 4) == 0 && strlen(d.uuid) == 40);
        CHECK(d.sm_count > 0 && d.l2_bytes > 0 && d.mem_bytes > 0 && d.cc_major >= 5);
        CHECK(d.sm_clock_khz > 0 && d.mem_clock_khz > 0 && d.mem_bus_bits > 0);
        CHECK(d.runtime_version > 0 && d.driver_version > 0);
    } else {
        CHECK(strncmp(err, "no CUDA device found (cudaGetDeviceCount: ", 42) == 0);
    }
    b->vt->close(b);
    CHECK(no_children());
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "__worker") == 0) return worker_main(atoi(argv[2]));
    snprintf(dir, sizeof dir, "/tmp/test_backend_cuda.XXXXXX");
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    snprintf(script, sizeof script, "%s/fake-tuner", dir);
    snprintf(logpath, sizeof logpath, "%s/log", dir);
    FILE *f = fopen(script, "w");
    if (!f) { perror("fopen"); return 1; }
    fputs(fake_worker, f);
    fclose(f);
    chmod(script, 0755);
    setenv("FAKE_LOG", logpath, 1);

    test_lifecycle();
    test_no_device();
    test_real_worker();

    unlink(script);
    unlink(logpath);
    rmdir(dir);
    return CHECK_DONE();
}

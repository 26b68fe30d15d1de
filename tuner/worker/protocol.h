/* protocol.h: the text protocol between the parent (tuner/backend/backend_cuda.c) and the worker
 * process that owns one GPU (worker.c), spoken over the worker's stdin and stdout.
 *
 * `tuner __worker ORDINAL` runs worker_main. The parent never initialises CUDA; the worker does,
 * on its ordinal, and serves requests one at a time until it reads `quit` or end of input, or
 * until a variant loses the CUDA context (then it answers and exits, and the parent starts a
 * fresh one).
 *
 * Protocol: one message per line. A line is a type word, then fields, each a TAB followed by
 * key=value. Keys are [a-z0-9_]+; values are %-escaped: '%' -> %25, TAB -> %09, LF -> %0A,
 * CR -> %0D (every other byte as it is); a line ends with LF. Unknown keys are ignored.
 *
 *   worker, once at start:  device  name= uuid= cc_major= cc_minor= sm_count= max_threads_per_sm=
 *                                   max_threads_per_block= regs_per_sm= smem_per_sm= l2_bytes=
 *                                   mem_bytes= sm_clock_khz= mem_clock_khz= mem_bus_bits=
 *                                   driver_version= runtime_version= device_count=
 *                      or:  error   message=no CUDA device found (cudaGetDeviceCount: ...)
 *                                   (and the worker exits)
 *   parent: copy        ->  copy    gbps=<device-to-device copy GB/s, bytes read + written>
 *                      or:  error   message=...
 *   parent: eval  kernel= op= dtype= problem=<canonical problem text> config=<canonical config>
 *                 seed= validate=0|1 tolerance_scale= warmup= min_runs= max_runs= rel_ci=
 *                 cold=0|1|2 max_seconds=
 *                 [space=<space file> module=<cubin> ref_module=<cubin>
 *                  checks=<cubin per line>]   (user kernels)
 *                 [race_margin= race_us=]   (racing: stop once surely slower than
 *                                            race_us x (1 + race_margin))
 *                 [playoff=K pc0= .. pc<K-1>= [pm0= ..]]   (a playoff: re-time configs pc0..
 *                                            interleaved, modules pm0.. for user kernels;
 *                                            config= is then pc0)
 *           ->  prepared            (the problem's inputs and reference are ready; from here the
 *                                    parent's watchdog, measure.timeout_s, runs)
 *               result  status=<eval_status_name> error=<text, may be empty>
 *                       samples=<µs,µs,...>   (every timed run, %.9g; empty unless status=ok)
 *                       [raced=1]             (ok, stopped by racing; error= says why)
 *                       [setup_ms=]           (ms this request spent preparing the problem:
 *                                              its inputs and reference; absent when reused)
 *                       [playoff=K ps0=<µs,...> .. ps<K-1>=]   (a playoff's runs per config,
 *                                                               the same number each)
 *           or: result without prepared (the problem could not be prepared), or
 *               error   message=...        (a malformed request: the run must stop)
 *           After `result status=fault` the worker exits (its CUDA context is lost).
 *   parent: quit        ->  (the worker exits with status 0)
 *
 * The parsing and formatting below are the one implementation both sides use
 * (protocol.c, no CUDA). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "core/device.h"
#include "core/eval.h"

#define WP_MAX_FIELDS 40
#define WP_TYPE_MAX 16

/* One parsed line. type, keys and vals point into storage, which the message owns. */
typedef struct wp_msg {
    char type[WP_TYPE_MAX];
    int n;
    char *keys[WP_MAX_FIELDS];
    char *vals[WP_MAX_FIELDS];
    char *storage;
} wp_msg;

/* Parses one line (len bytes; a trailing LF is allowed, an embedded one is not). Returns 0, or
 * -1 with err (bad escape, empty type, a field without '=', a bad key, too many fields). The
 * caller frees the message with wp_msg_clear, also after a failure. */
int wp_parse(const char *line, size_t len, wp_msg *m, char *err, size_t errlen);
void wp_msg_clear(wp_msg *m);
/* The value of key (the first one when repeated), or NULL. Borrowed from m. */
const char *wp_get(const wp_msg *m, const char *key);

/* A message being built. failed is set when memory ran out; wp_end then returns -1. */
typedef struct wp_buf {
    char *s;
    size_t len, cap;
    int failed;
} wp_buf;

/* Starts a message of type (resets b, keeping its memory). */
void wp_begin(wp_buf *b, const char *type);
/* Appends a field; the value is escaped. */
void wp_add(wp_buf *b, const char *key, const char *val);
void wp_add_int(wp_buf *b, const char *key, int64_t v);
void wp_add_double(wp_buf *b, const char *key, double v);   /* %.17g: round-trips exactly */
/* Ends the line (LF). Returns 0, or -1 when memory ran out. b->s / b->len hold the line. */
int wp_end(wp_buf *b);
/* Frees the buffer's memory. */
void wp_buf_free(wp_buf *b);

/* ---- the messages ---- */
int wp_format_device(wp_buf *b, const device_info *d);
/* Fills d from a `device` message; -1 with err naming a missing or malformed field. */
int wp_parse_device(const wp_msg *m, device_info *d, char *err, size_t len);

int wp_format_eval(wp_buf *b, const eval_request *r);
/* An `eval` request as the worker sees it: strings borrowed from the message. */
typedef struct wp_eval {
    const char *kernel, *op, *dtype, *problem, *config;
    uint64_t seed;
    int validate;
    double tolerance_scale;
    measure_settings measure;   /* timeout_s is the parent's business and stays 0 */
    const char *space, *module, *ref_module, *checks;   /* user kernels; NULL when absent */
    double race_us;                            /* 0: no racing */
    double energy_us;                          /* > 0: an energy window alone (energy_of=) */
    const char *device_state;                  /* the GPU's state file (device settings); NULL */
    int n_playoff;                             /* 0, or 2..EVAL_PLAYOFF_MAX */
    const char *playoff[EVAL_PLAYOFF_MAX], *playoff_module[EVAL_PLAYOFF_MAX];
} wp_eval;
int wp_parse_eval(const wp_msg *m, wp_eval *out, char *err, size_t len);

/* `result`: status, error text and samples (stats are recomputed by the reader). */
int wp_format_result(wp_buf *b, const eval_result *r);
/* Fills out (overwritten; its samples are malloc'd and eval_result_clear frees them). For an
 * ok result the samples must be non-empty and out->stats is computed from them. -1 with err on
 * a malformed message (out is left cleared). */
int wp_parse_result(const wp_msg *m, eval_result *out, char *err, size_t len);

/* Parses a decimal integer / a finite double that fills all of s. 0 or -1. */
int wp_parse_i64(const char *s, int64_t *out);
int wp_parse_f64(const char *s, double *out);

/* test_worker_protocol.c: the worker protocol's parser and formatter (tuner/worker/protocol.h), on the CPU:
 * escaping round trips, malformed lines, and every message (device, eval, result, with racing
 * and playoffs) both ways. */
#include "check.h"
#include "worker/protocol.h"

#include <math.h>
#include <stdlib.h>

static int parse_line(const wp_buf *b, wp_msg *m)
{
    char err[256];
    return wp_parse(b->s, b->len, m, err, sizeof err);
}

static int parse_text(const char *line, wp_msg *m, char *err, size_t len)
{
    return wp_parse(line, strlen(line), m, err, len);
}

static void test_escaping(void)
{
    wp_buf b = { 0 };
    const char *nasty = "a\tb\nc%d\re%25 %09 end";
    wp_begin(&b, "error");
    wp_add(&b, "message", nasty);
    wp_add(&b, "empty", "");
    CHECK(wp_end(&b) == 0);
    /* One line: a single LF at its end, and only the two field separators as tabs. */
    CHECK(b.len > 0 && b.s[b.len - 1] == '\n');
    CHECK(memchr(b.s, '\n', b.len - 1) == NULL);
    int tabs = 0;
    for (size_t i = 0; i < b.len; i++) tabs += b.s[i] == '\t';
    CHECK(tabs == 2);
    CHECK(memchr(b.s, '\r', b.len) == NULL);

    wp_msg m;
    CHECK(parse_line(&b, &m) == 0);
    CHECK_STR(m.type, "error");
    CHECK(m.n == 2);
    CHECK_STR(wp_get(&m, "message"), nasty);
    CHECK_STR(wp_get(&m, "empty"), "");
    CHECK(wp_get(&m, "missing") == NULL);
    wp_msg_clear(&m);

    /* A message with no fields, and the first of a repeated key. */
    char err[256];
    CHECK(parse_text("prepared\n", &m, err, sizeof err) == 0);
    CHECK_STR(m.type, "prepared");
    CHECK(m.n == 0);
    wp_msg_clear(&m);
    CHECK(parse_text("x\tk=1\tk=2\tv=a=b", &m, err, sizeof err) == 0);
    CHECK_STR(wp_get(&m, "k"), "1");
    CHECK_STR(wp_get(&m, "v"), "a=b");
    wp_msg_clear(&m);
    /* Escapes decode in either case of hex digit. */
    CHECK(parse_text("x\tk=%0a%0D%2541", &m, err, sizeof err) == 0);
    CHECK_STR(wp_get(&m, "k"), "\n\r%41");
    wp_msg_clear(&m);
    wp_buf_free(&b);
}

static void test_malformed(void)
{
    static const char *const bad[] = {
        "",                      /* no type */
        "\tk=v",                 /* empty type */
        "Device\tk=v",           /* type not [a-z0-9_] */
        "averyveryverylongtype", /* type too long */
        "x\tnoequals",           /* field without '=' */
        "x\tBad=1",              /* key not [a-z0-9_] */
        "x\t=1",                 /* empty key */
        "x\tk=%zz",              /* bad escape */
        "x\tk=%4",               /* truncated escape */
        "x\tk=%",                /* truncated escape */
        "x\tk=a\nb",             /* embedded newline */
        "x\tk=1\t",              /* trailing empty field */
    };
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wp_msg m;
        err[0] = 0;
        int rc = parse_text(bad[i], &m, err, sizeof err);
        if (rc != -1) fprintf(stderr, "accepted malformed line %zu\n", i);
        CHECK(rc == -1);
        CHECK(strncmp(err, "protocol: ", 10) == 0);
        wp_msg_clear(&m);
    }
    /* Too many fields. */
    wp_buf b = { 0 };
    wp_begin(&b, "x");
    for (int i = 0; i <= WP_MAX_FIELDS; i++) wp_add_int(&b, "k", i);
    CHECK(wp_end(&b) == 0);
    wp_msg m;
    CHECK(wp_parse(b.s, b.len, &m, err, sizeof err) == -1);
    CHECK(strstr(err, "more than") != NULL);
    wp_msg_clear(&m);
    wp_buf_free(&b);
}

static void test_numbers(void)
{
    int64_t i;
    double d;
    CHECK(wp_parse_i64("-42", &i) == 0 && i == -42);
    CHECK(wp_parse_i64("9223372036854775807", &i) == 0 && i == INT64_MAX);
    CHECK(wp_parse_i64("9223372036854775808", &i) == -1);
    CHECK(wp_parse_i64("12x", &i) == -1);
    CHECK(wp_parse_i64("", &i) == -1);
    CHECK(wp_parse_i64(NULL, &i) == -1);
    CHECK(wp_parse_f64("0.1", &d) == 0 && d == 0.1);
    CHECK(wp_parse_f64("1e400", &d) == -1);
    CHECK(wp_parse_f64("nan", &d) == -1);
    CHECK(wp_parse_f64("inf", &d) == -1);
    CHECK(wp_parse_f64("1.5 ", &d) == -1);
}

static device_info sample_device(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H100 80GB HBM3");
    snprintf(d.uuid, sizeof d.uuid, "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
    d.cc_major = 9; d.cc_minor = 0;
    d.sm_count = 132;
    d.max_threads_per_sm = 2048;
    d.max_threads_per_block = 1024;
    d.regs_per_sm = 65536;
    d.smem_per_sm = 233472;
    d.l2_bytes = 52428800;
    d.mem_bytes = 85520809984LL;
    d.sm_clock_khz = 1980000;
    d.mem_clock_khz = 2619000;
    d.mem_bus_bits = 5120;
    d.driver_version = 13000;
    d.runtime_version = 13000;
    return d;
}

static void test_device(void)
{
    device_info d = sample_device(), back;
    wp_buf b = { 0 };
    CHECK(wp_format_device(&b, &d) == 0);
    wp_msg m;
    char err[256];
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_device(&m, &back, err, sizeof err) == 0);
    CHECK(memcmp(&d, &back, sizeof d) == 0);
    wp_msg_clear(&m);

    /* A missing field is named; a malformed number is shown. */
    CHECK(parse_text("device\tname=x\tuuid=GPU-1\tcc_major=9", &m, err, sizeof err) == 0);
    CHECK(wp_parse_device(&m, &back, err, sizeof err) == -1);
    CHECK(strstr(err, "cc_minor missing") != NULL);
    wp_msg_clear(&m);
    CHECK(wp_format_device(&b, &d) == 0);
    char *line = strdup(b.s);
    char *sm = strstr(line, "sm_count=132");
    CHECK(sm != NULL);
    if (sm) sm[9] = 'x';   /* sm_count=x32 */
    CHECK(parse_text(line, &m, err, sizeof err) == 0);
    CHECK(wp_parse_device(&m, &back, err, sizeof err) == -1);
    CHECK(strstr(err, "sm_count malformed") != NULL);
    wp_msg_clear(&m);
    free(line);
    /* Not a device message at all. */
    CHECK(parse_text("error\tmessage=no CUDA device found", &m, err, sizeof err) == 0);
    CHECK(wp_parse_device(&m, &back, err, sizeof err) == -1);
    wp_msg_clear(&m);
    wp_buf_free(&b);
}

static void test_eval(void)
{
    char text[] = "n=1024,offset=1";
    problem p;
    memset(&p, 0, sizeof p);
    p.text = text;
    eval_request r;
    memset(&r, 0, sizeof r);
    r.kernel = "elementwise";
    r.op = "mul";
    r.dtype = "bf16";
    r.problem = &p;
    r.config = "block_size=256,loop=grid_stride,pack_size=8,waves=32";
    r.seed = 18446744073709551615ull;
    r.validate = 1;
    r.tolerance_scale = 2.5;
    r.measure = (measure_settings){ .warmup = 3, .min_runs = 10, .max_runs = 200, .rel_ci = 0.01,
                                    .cold = 1, .timeout_s = 10, .max_seconds = 2 };
    wp_buf b = { 0 };
    CHECK(wp_format_eval(&b, &r) == 0);
    wp_msg m;
    char err[256];
    CHECK(parse_line(&b, &m) == 0);
    wp_eval e;
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK_STR(e.kernel, "elementwise");
    CHECK_STR(e.op, "mul");
    CHECK_STR(e.dtype, "bf16");
    CHECK_STR(e.problem, "n=1024,offset=1");
    CHECK_STR(e.config, r.config);
    CHECK(e.seed == r.seed);
    CHECK(e.validate == 1);
    CHECK(e.tolerance_scale == 2.5);
    CHECK(e.measure.warmup == 3 && e.measure.min_runs == 10 && e.measure.max_runs == 200);
    CHECK(e.measure.rel_ci == 0.01 && e.measure.cold == 1 && e.measure.max_seconds == 2);
    CHECK(e.measure.timeout_s == 0);
    wp_msg_clear(&m);

    /* validate = 0 travels; an unset tolerance scale becomes 1. */
    r.validate = 0;
    r.tolerance_scale = 0;
    r.measure.cold = 0;
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.validate == 0 && e.tolerance_scale == 1.0 && e.measure.cold == 0);
    {   /* cache: clean travels as cold=2 */
        eval_request rc = r;
        rc.measure.cold = MEASURE_CLEAN;
        wp_buf cb = { 0 };
        wp_msg cm = { 0 };
        wp_eval ce;
        char cerr[256];
        CHECK(wp_format_eval(&cb, &rc) == 0);
        CHECK(wp_parse(cb.s, cb.len, &cm, cerr, sizeof cerr) == 0);
        CHECK(wp_parse_eval(&cm, &ce, cerr, sizeof cerr) == 0 && ce.measure.cold == MEASURE_CLEAN);
        wp_msg_clear(&cm);
        wp_buf_free(&cb);
    }
    wp_msg_clear(&m);

    /* Impossible run counts and missing fields are refused. */
    r.measure.min_runs = 20;
    r.measure.max_runs = 5;
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
    CHECK(strstr(err, "run counts") != NULL);
    wp_msg_clear(&m);
    CHECK(parse_text("eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1", &m, err, sizeof err) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
    CHECK(strstr(err, "config missing") != NULL);
    wp_msg_clear(&m);
    CHECK(parse_text("eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=-1",
                     &m, err, sizeof err) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
    CHECK(strstr(err, "seed") != NULL);
    wp_msg_clear(&m);
    wp_buf_free(&b);
}

static void test_result(void)
{
    double samples[] = { 12.5, 13.25, 0.001, 123456.789, 11.0 };
    eval_result r;
    memset(&r, 0, sizeof r);
    r.status = EVAL_OK;
    r.samples = samples;
    r.n_samples = 5;
    wp_buf b = { 0 };
    CHECK(wp_format_result(&b, &r) == 0);
    wp_msg m;
    char err[256];
    CHECK(parse_line(&b, &m) == 0);
    eval_result back;
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.status == EVAL_OK);
    CHECK(back.n_samples == 5);
    for (int i = 0; i < 5 && back.samples; i++)
        CHECK(fabs(back.samples[i] - samples[i]) <= 1e-8 * samples[i]);
    CHECK(back.stats.n == 5);
    CHECK(back.stats.median == 12.5);
    CHECK(back.stats.min == 0.001);
    CHECK_STR(back.error, "");
    eval_result_clear(&back);
    wp_msg_clear(&m);

    /* A failure with a multi-line error and no samples. */
    memset(&r, 0, sizeof r);
    r.status = EVAL_INVALID;
    snprintf(r.error, sizeof r.error, "2 of 8 elements differ;\tfirst: [3] got 1 expected 0\n100%%");
    CHECK(wp_format_result(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.status == EVAL_INVALID);
    CHECK_STR(back.error, r.error);
    CHECK(back.n_samples == 0 && back.samples == NULL);
    eval_result_clear(&back);
    wp_msg_clear(&m);

    /* Every worker status travels. */
    eval_status sts[] = { EVAL_OK, EVAL_INVALID, EVAL_LAUNCH_ERROR, EVAL_FAULT, EVAL_TIMEOUT,
                          EVAL_UNSUPPORTED };
    double one = 7.0;
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++) {
        memset(&r, 0, sizeof r);
        r.status = sts[i];
        if (sts[i] == EVAL_OK) { r.samples = &one; r.n_samples = 1; }
        CHECK(wp_format_result(&b, &r) == 0);
        CHECK(parse_line(&b, &m) == 0);
        CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
        CHECK(back.status == sts[i]);
        eval_result_clear(&back);
        wp_msg_clear(&m);
    }

    /* Malformed results. */
    static const char *const bad[] = {
        "result\tstatus=ok\terror=\tsamples=",         /* ok without samples */
        "result\tstatus=skipped\terror=\tsamples=",    /* not a worker status */
        "result\tstatus=unrecorded\terror=\tsamples=",
        "result\tstatus=bogus",
        "result\terror=x",                             /* no status */
        "result\tstatus=ok\tsamples=1,x",
        "result\tstatus=ok\tsamples=1,,2",
        "result\tstatus=ok\tsamples=1,-2",
        "result\tstatus=ok\tsamples=1,inf",
        "result\tstatus=ok\tsamples=1,",
        "prepared",                                     /* not a result */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(parse_text(bad[i], &m, err, sizeof err) == 0);
        back.samples = (double *)&one;   /* must be reset, never freed */
        int rc = wp_parse_result(&m, &back, err, sizeof err);
        if (rc != -1) fprintf(stderr, "accepted malformed result %zu\n", i);
        CHECK(rc == -1);
        CHECK(back.samples == NULL && back.n_samples == 0);
        wp_msg_clear(&m);
    }

    /* A long run: 20000 samples in one line. */
    int n = 20000;
    double *many = malloc((size_t)n * sizeof *many);
    for (int i = 0; i < n; i++) many[i] = 100.0 + i * 0.001;
    memset(&r, 0, sizeof r);
    r.status = EVAL_OK;
    r.samples = many;
    r.n_samples = n;
    CHECK(wp_format_result(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.n_samples == n);
    int same = 1;
    for (int i = 0; i < n && back.samples; i++)
        if (fabs(back.samples[i] - many[i]) > 1e-9 * many[i]) same = 0;
    CHECK(same);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    free(many);
    wp_buf_free(&b);
}

/* An elementwise mul request on problem p (text its canonical text): 3 warm-up runs, 10 to 200
 * timed, 1% CI; the tests below set what they carry on top. */
static eval_request mul_request(problem *p, char *text)
{
    memset(p, 0, sizeof *p);
    p->text = text;
    eval_request r;
    memset(&r, 0, sizeof r);
    r.kernel = "elementwise";
    r.op = "mul";
    r.dtype = "f32";
    r.problem = p;
    r.config = "a=1";
    r.measure = (measure_settings){ .warmup = 3, .min_runs = 10, .max_runs = 200, .rel_ci = 0.01 };
    return r;
}

/* Racing and the playoff travel both ways: race_margin and race_us on the request, raced on the
 * result; a playoff's configs (and modules) on the request, its runs per config on the result.
 * Malformed ones are refused. */
static void test_race_and_playoff(void)
{
    char text[] = "n=1024,offset=0";
    problem p;
    eval_request r = mul_request(&p, text);
    r.measure.race_margin = 0.05;
    r.race_us = 12.75;
    wp_buf b = { 0 };
    wp_msg m;
    wp_eval e;
    char err[256];
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.measure.race_margin == 0.05 && e.race_us == 12.75 && e.n_playoff == 0);
    wp_msg_clear(&m);
    /* no racing: the fields are left out and read as 0 */
    r.measure.race_margin = 0;
    r.race_us = 0;
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(strstr(b.s, "race") == NULL);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.measure.race_margin == 0 && e.race_us == 0);
    wp_msg_clear(&m);
    /* a playoff of three */
    r.n_playoff = 3;
    r.playoff[0] = "a=1";
    r.playoff[1] = "a=2";
    r.playoff[2] = "a=3,b=tab\there";
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.n_playoff == 3);
    CHECK_STR(e.playoff[0], "a=1");
    CHECK_STR(e.playoff[1], "a=2");
    CHECK_STR(e.playoff[2], "a=3,b=tab\there");
    CHECK(e.playoff_module[0] == NULL);
    wp_msg_clear(&m);
    /* a user kernel's playoff needs each config's module */
    r.space_path = "/s.yaml";
    r.module = "/m0.cubin";
    r.playoff_module[0] = "/m0.cubin";
    r.playoff_module[1] = "/m1.cubin";
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
    CHECK(strstr(err, "pm2") != NULL);
    wp_msg_clear(&m);
    r.playoff_module[2] = "/m2.cubin";
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK_STR(e.playoff_module[1], "/m1.cubin");
    wp_msg_clear(&m);
    /* refused: a playoff of one or of too many, a missing config, a negative margin */
    const char *bad[] = {
        "eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=1\tvalidate=1"
        "\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2\trel_ci=0.1\tcold=1"
        "\tmax_seconds=1\tplayoff=1\tpc0=a=1",
        "eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=1\tvalidate=1"
        "\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2\trel_ci=0.1\tcold=1"
        "\tmax_seconds=1\tplayoff=5\tpc0=a=1",
        "eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=1\tvalidate=1"
        "\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2\trel_ci=0.1\tcold=1"
        "\tmax_seconds=1\tplayoff=2\tpc0=a=1",
        "eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=1\tvalidate=1"
        "\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2\trel_ci=0.1\tcold=1"
        "\tmax_seconds=1\trace_margin=-0.1",
        "eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=1\tvalidate=1"
        "\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2\trel_ci=0.1\tcold=1"
        "\tmax_seconds=1\trace_us=x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(parse_text(bad[i], &m, err, sizeof err) == 0);
        CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
        wp_msg_clear(&m);
    }

    /* results: raced, and a playoff's runs */
    double s1[] = {13.0, 13.5, 13.25, 13.0, 13.1};
    eval_result res;
    memset(&res, 0, sizeof res);
    res.status = EVAL_OK;
    res.samples = s1;
    res.n_samples = 5;
    res.raced = 1;
    res.setup_ms = 12.625;
    snprintf(res.error, sizeof res.error, "%s after 5 runs", EVAL_RACED_NOTE);
    CHECK(wp_format_result(&b, &res) == 0);
    eval_result back;
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.raced == 1 && back.n_samples == 5 && back.n_playoff == 0);
    CHECK(back.setup_ms == 12.625);   /* the worker's preparation time travels with the result */
    CHECK(strncmp(back.error, EVAL_RACED_NOTE, strlen(EVAL_RACED_NOTE)) == 0);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    double pa[] = {10.0, 10.5, 10.25}, pb[] = {9.0, 9.5, 9.25};
    memset(&res, 0, sizeof res);
    res.status = EVAL_OK;
    res.n_playoff = 2;
    res.playoff_n[0] = res.playoff_n[1] = 3;
    res.playoff_samples[0] = pa;
    res.playoff_samples[1] = pb;
    CHECK(wp_format_result(&b, &res) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.status == EVAL_OK && back.n_samples == 0 && back.n_playoff == 2);
    CHECK(back.setup_ms == 0);   /* absent: the problem was prepared before */
    CHECK(back.playoff_n[0] == 3 && back.playoff_n[1] == 3);
    CHECK(back.playoff_samples[1] && back.playoff_samples[1][1] == 9.5);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    /* refused: uneven playoff runs, an ok result with neither samples nor playoff */
    CHECK(parse_text("result\tstatus=ok\terror=\tsamples=\tplayoff=2\tps0=1,2\tps1=1", &m, err,
                     sizeof err) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == -1);
    CHECK(strstr(err, "playoff config 1") != NULL);
    wp_msg_clear(&m);
    CHECK(parse_text("result\tstatus=ok\terror=\tsamples=", &m, err, sizeof err) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == -1);
    wp_msg_clear(&m);
    CHECK(parse_text("result\tstatus=ok\terror=\tsamples=1\traced=2", &m, err, sizeof err) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == -1);
    wp_msg_clear(&m);
    CHECK(parse_text("result\tstatus=ok\terror=\tsamples=1\tsetup_ms=-1", &m, err, sizeof err) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == -1);
    wp_msg_clear(&m);
    wp_buf_free(&b);
}

/* Energy (docs/energy.md) travels both ways: the window on the request, the figures on an ok
 * result; left out when off or not measured; malformed or out-of-range figures refused. */
static void test_energy(void)
{
    char text[] = "n=1024,offset=0";
    problem p;
    eval_request r = mul_request(&p, text);
    r.measure.energy_s = 0.25;
    wp_buf b = { 0 };
    wp_msg m;
    wp_eval e;
    char err[256];
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.measure.energy_s == 0.25);
    wp_msg_clear(&m);
    r.measure.energy_s = 0;
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(strstr(b.s, "energy") == NULL);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.measure.energy_s == 0);
    wp_msg_clear(&m);
    CHECK(parse_text("eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1\tseed=1"
                     "\tvalidate=1\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2"
                     "\trel_ci=0.1\tcold=1\tmax_seconds=1\tenergy_s=61", &m, err, sizeof err) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
    CHECK(strstr(err, "energy_s") != NULL);
    wp_msg_clear(&m);

    double s1[] = {100.0, 101.0, 99.5};
    eval_result res, back;
    memset(&res, 0, sizeof res);
    res.status = EVAL_OK;
    res.samples = s1;
    res.n_samples = 3;
    res.energy = (eval_energy){ .joules = 0.0421875, .power_w = 421.875, .window_ms = 251.5,
                                .sm_mhz = 1980, .mem_mhz = 2619, .temp_c = 47, .throttle = 4 };
    CHECK(wp_format_result(&b, &res) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.energy.joules == 0.0421875 && back.energy.power_w == 421.875);
    CHECK(back.energy.window_ms == 251.5 && back.energy.sm_mhz == 1980);
    CHECK(back.energy.mem_mhz == 2619 && back.energy.temp_c == 47 && back.energy.throttle == 4);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    res.energy.joules = 0;   /* not measured: left out, read as 0 */
    CHECK(wp_format_result(&b, &res) == 0);
    CHECK(strstr(b.s, "energy") == NULL);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.energy.joules == 0 && back.energy.power_w == 0);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    const char *bad[] = {
        "result\tstatus=ok\terror=\tsamples=1\tenergy=0,400,250,1,1,1,0",
        "result\tstatus=ok\terror=\tsamples=1\tenergy=0.1,400,250,1,1,1",
        "result\tstatus=ok\terror=\tsamples=1\tenergy=0.1,-4,250,1,1,1,0",
        "result\tstatus=ok\terror=\tsamples=1\tenergy=0.1,400,250,1,1,1,0x",
        "result\tstatus=ok\terror=\tsamples=1\tenergy=nan,400,250,1,1,1,0",
        "result\tstatus=invalid\terror=wrong\tsamples=\tenergy=0.1,400,250,1,1,1,0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(parse_text(bad[i], &m, err, sizeof err) == 0);
        CHECK(wp_parse_result(&m, &back, err, sizeof err) == -1);
        CHECK(strstr(err, "energy") != NULL);
        wp_msg_clear(&m);
    }
    wp_buf_free(&b);
}

/* An energy window alone (docs/energy.md, "Contenders only"): energy_of= on the request with the
 * config's median, needing energy_s; its answer ok without samples, marked energy_only, with or
 * without energy. An ok answer without samples that is not one is still refused. */
static void test_energy_window(void)
{
    char text[] = "n=1024,offset=0";
    problem p;
    eval_request r = mul_request(&p, text);
    r.measure.energy_s = 1;
    r.energy_us = 73.5;
    wp_buf b = { 0 };
    wp_msg m;
    wp_eval e;
    char err[256];
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(strstr(b.s, "\tenergy_of=73.5") != NULL);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_eval(&m, &e, err, sizeof err) == 0);
    CHECK(e.energy_us == 73.5 && e.measure.energy_s == 1);
    wp_msg_clear(&m);
    r.energy_us = 0;
    CHECK(wp_format_eval(&b, &r) == 0);
    CHECK(strstr(b.s, "energy_of") == NULL);
    const char *bad[] = { "energy_s=1\tenergy_of=0", "energy_of=5", "energy_s=1\tenergy_of=x" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char line[512];
        snprintf(line, sizeof line, "eval\tkernel=x\top=y\tdtype=f32\tproblem=n=1\tconfig=a=1"
                 "\tseed=1\tvalidate=0\ttolerance_scale=1\twarmup=1\tmin_runs=1\tmax_runs=2"
                 "\trel_ci=0.1\tcold=1\tmax_seconds=1\t%s", bad[i]);
        CHECK(parse_text(line, &m, err, sizeof err) == 0);
        CHECK(wp_parse_eval(&m, &e, err, sizeof err) == -1);
        CHECK(strstr(err, "energy_of") != NULL);
        wp_msg_clear(&m);
    }

    eval_result res, back;
    memset(&res, 0, sizeof res);
    res.status = EVAL_OK;
    res.energy_only = 1;
    res.energy = (eval_energy){ .joules = 0.025, .power_w = 345, .window_ms = 1003,
                                .throttle = -1 };
    CHECK(wp_format_result(&b, &res) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.status == EVAL_OK && back.energy_only && back.n_samples == 0);
    CHECK(back.energy.joules == 0.025 && back.energy.window_ms == 1003);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    res.energy.joules = 0;   /* the counter did not move twice: ok, no energy */
    CHECK(wp_format_result(&b, &res) == 0);
    CHECK(parse_line(&b, &m) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == 0);
    CHECK(back.energy_only && back.energy.joules == 0);
    eval_result_clear(&back);
    wp_msg_clear(&m);
    CHECK(parse_text("result\tstatus=ok\terror=\tsamples=", &m, err, sizeof err) == 0);
    CHECK(wp_parse_result(&m, &back, err, sizeof err) == -1);
    CHECK(strstr(err, "without samples") != NULL);
    wp_msg_clear(&m);
    wp_buf_free(&b);
}

/* What fuzzing found (tests/fuzz/fuzz_protocol.c): a value quoted in an error, unescaped, could
 * hold a line break, and the error then spanned two lines. */
static void test_errors_one_line(void)
{
    static const char line[] = "result\tstatus=inval%0Aid\terror=\tsamples=\n";
    wp_msg m;
    eval_result r;
    char err[256] = "";
    CHECK(wp_parse(line, strlen(line), &m, err, sizeof err) == 0);
    CHECK(wp_parse_result(&m, &r, err, sizeof err) == -1);
    CHECK_STR(err, "protocol: result: status 'inval id' is not a worker status");
    wp_msg_clear(&m);
}

int main(void)
{
    test_errors_one_line();
    test_race_and_playoff();
    test_energy();
    test_energy_window();
    test_escaping();
    test_malformed();
    test_numbers();
    test_device();
    test_eval();
    test_result();
    return CHECK_DONE();
}

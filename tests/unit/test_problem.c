/* test_problem.c: unit tests of problems (tuner/core/problem.c), values (tuner/core/value.c) and
 * devices (tuner/core/device.c): canonical text, parsing, attribute lookup, errors, and the
 * GPU's peak FP32 and FP64 rates. */
#include <math.h>
#include <stdint.h>
#include "check.h"
#include "core/problem.h"
#include "core/device.h"
#include "core/value.h"

static void test_value(void)
{
    char buf[64];
    CHECK(value_format(value_int(-42), buf, sizeof buf) == 3);
    CHECK_STR(buf, "-42");
    value_format(value_int(INT64_MIN), buf, sizeof buf);
    CHECK_STR(buf, "-9223372036854775808");
    value_format(value_float(0.5), buf, sizeof buf);
    CHECK_STR(buf, "0.5");
    value_format(value_float(0.1), buf, sizeof buf);
    CHECK_STR(buf, "0.10000000000000001");
    value_format(value_string("grid_stride"), buf, sizeof buf);
    CHECK_STR(buf, "grid_stride");
    CHECK(value_format(value_string("abcdef"), buf, 3) == 6);
    CHECK_STR(buf, "ab");

    char a[] = "x", b[] = "x";
    CHECK(value_equal(value_string(a), value_string(b)));
    CHECK(!value_equal(value_string("x"), value_string("y")));
    CHECK(value_equal(value_int(3), value_int(3)));
    CHECK(!value_equal(value_int(3), value_int(4)));
    CHECK(!value_equal(value_int(3), value_float(3.0)));
    CHECK(value_equal(value_float(2.5), value_float(2.5)));
}

static void test_init(void)
{
    problem p;
    const char *names[] = {"offset", "n", "layout"};
    value values[] = {value_int(1), value_int(33554431), value_string("nchw")};
    CHECK(problem_init(&p, 3, names, values) == 0);
    CHECK(p.n_fields == 3);
    CHECK_STR(p.text, "layout=nchw,n=33554431,offset=1");
    CHECK_STR(p.names[0], "layout");
    CHECK(problem_int(&p, "n", -1) == 33554431);
    CHECK(problem_int(&p, "offset", -1) == 1);
    CHECK(problem_int(&p, "missing", -7) == -7);
    CHECK(problem_int(&p, "layout", -5) == -5);
    const value *v = problem_get(&p, "layout");
    CHECK(v && v->kind == VALUE_STRING && v->s != values[2].s);
    CHECK(v && strcmp(v->s, "nchw") == 0);
    CHECK(problem_get(&p, "zzz") == NULL);
    CHECK(problem_get(&p, "a") == NULL);
    problem_clear(&p);
    CHECK(p.n_fields == 0 && p.text == NULL);
    problem_clear(&p);

    const char *dup[] = {"n", "offset", "n"};
    CHECK(problem_init(&p, 3, dup, values) == -1);
    CHECK(p.text == NULL && p.n_fields == 0);

    CHECK(problem_init(&p, 0, NULL, NULL) == 0);
    CHECK_STR(p.text, "");
    problem_clear(&p);
}

static void test_parse(void)
{
    problem p;
    CHECK(problem_parse(&p, "offset=0,n=1048576") == 0);
    CHECK_STR(p.text, "n=1048576,offset=0");
    CHECK(problem_int(&p, "n", 0) == 1048576);
    CHECK(problem_get(&p, "n")->kind == VALUE_INT);
    problem_clear(&p);

    CHECK(problem_parse(&p, "N=8,C=-3,mode=bilinear,x=12a") == 0);
    CHECK_STR(p.text, "C=-3,N=8,mode=bilinear,x=12a");
    CHECK(problem_int(&p, "C", 0) == -3);
    CHECK(problem_get(&p, "x")->kind == VALUE_STRING);
    CHECK(problem_get(&p, "mode")->kind == VALUE_STRING);
    problem_clear(&p);

    /* Round trip of a canonical text. */
    problem q;
    CHECK(problem_parse(&p, "a=1,b=two,c=99999999999") == 0);
    CHECK(problem_parse(&q, p.text) == 0);
    CHECK_STR(q.text, p.text);
    problem_clear(&p);
    problem_clear(&q);

    CHECK(problem_parse(&p, "") == 0 && p.n_fields == 0);
    problem_clear(&p);
    CHECK(problem_parse(&p, "n") == -1);
    CHECK(problem_parse(&p, "=3") == -1);
    CHECK(problem_parse(&p, "n=1,,m=2") == -1);
    CHECK(problem_parse(&p, "n=1,") == -1);
    CHECK(problem_parse(&p, "n=1,n=2") == -1);
    CHECK(p.text == NULL);
    /* Too large for int64: kept as a string, not silently wrapped. */
    CHECK(problem_parse(&p, "n=99999999999999999999") == 0);
    CHECK(problem_get(&p, "n")->kind == VALUE_STRING);
    problem_clear(&p);
}

static void test_device(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    d.sm_count = 132;
    d.cc_major = 9;
    d.cc_minor = 0;
    d.l2_bytes = 52428800;
    d.mem_bytes = 85899345920LL;
    d.max_threads_per_sm = 2048;
    d.max_threads_per_block = 1024;
    d.regs_per_sm = 65536;
    d.smem_per_sm = 233472;
    value v;
    CHECK(device_attr_lookup(&d, "sm_count", &v) == 1 && v.kind == VALUE_INT && v.i == 132);
    CHECK(device_attr_lookup(&d, "cc", &v) == 1 && v.i == 90);
    CHECK(device_attr_lookup(&d, "l2_bytes", &v) == 1 && v.i == 52428800);
    CHECK(device_attr_lookup(&d, "mem_bytes", &v) == 1 && v.i == 85899345920LL);
    CHECK(device_attr_lookup(&d, "max_threads_per_sm", &v) == 1 && v.i == 2048);
    CHECK(device_attr_lookup(&d, "max_threads_per_block", &v) == 1 && v.i == 1024);
    CHECK(device_attr_lookup(&d, "regs_per_sm", &v) == 1 && v.i == 65536);
    CHECK(device_attr_lookup(&d, "smem_per_sm", &v) == 1 && v.i == 233472);
    CHECK(device_attr_lookup(&d, "block_size", &v) == 0);
    CHECK(device_attr_lookup(&d, "name", &v) == 0);
    v = value_int(5);
    CHECK(device_attr_lookup(NULL, "sm_count", &v) == 1 && v.kind == VALUE_INT && v.i == 0);
    CHECK(device_attr_lookup(NULL, "sm_counts", &v) == 0);
}

/* The peak rates: an H100 SXM (132 SMs at 1980 MHz, cc 9.0) is 66.9 TFLOP/s FP32 and 33.5
 * FP64; an A100 (108 SMs, 1410 MHz, cc 8.0) 19.5 and 9.7; a consumer part (8.9) runs FP64 at
 * 1/64 of FP32; an unknown capability or clock gives 0. */
static void test_peak_flops(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    d.sm_count = 132;
    d.sm_clock_khz = 1980000;
    d.cc_major = 9;
    d.cc_minor = 0;
    CHECK(device_peak_flops(&d, 0) == 132 * 1980e6 * 2 * 128);
    CHECK(fabs(device_peak_flops(&d, 0) / 1e12 - 66.9) < 0.05);
    CHECK(fabs(device_peak_flops(&d, 1) / 1e12 - 33.5) < 0.05);
    d.sm_count = 108;
    d.sm_clock_khz = 1410000;
    d.cc_major = 8;
    CHECK(fabs(device_peak_flops(&d, 0) / 1e12 - 19.5) < 0.05);
    CHECK(fabs(device_peak_flops(&d, 1) / 1e12 - 9.7) < 0.05);
    d.cc_minor = 9;
    CHECK(device_peak_flops(&d, 0) == 64 * device_peak_flops(&d, 1));
    d.cc_major = 7;
    d.cc_minor = 5;
    CHECK(device_peak_flops(&d, 0) == 108 * 1410e6 * 2 * 64);
    d.cc_major = 12;
    d.cc_minor = 0;
    CHECK(device_peak_flops(&d, 0) == 108 * 1410e6 * 2 * 128);
    d.cc_major = 5;
    d.cc_minor = 2;
    CHECK(device_peak_flops(&d, 0) == 0 && device_peak_flops(&d, 1) == 0);
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_clock_khz = 0;
    CHECK(device_peak_flops(&d, 0) == 0);
}

int main(void)
{
    test_value();
    test_init();
    test_parse();
    test_device();
    test_peak_flops();
    return CHECK_DONE();
}

/* test_config_text.c: unit tests (CPU only) of the kernel library's host helpers: status strings,
 * dtype names and sizes, tk_param_supports, the generic config parser tk_config_parse (over a
 * made-up space and the elementwise space), the elementwise default config, and the host
 * double <-> f16 / bf16 conversions (round to nearest even, in one step) on chosen bit patterns. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "tk_check.h"
#include "tunekit.h"

static const int64_t sizes[] = {1, 2, 4, 8};
static const char *const modes[] = {"fast", "exact", "slow"};
static const tk_param_desc params[] = {
    {"block", 0, 0, NULL, NULL, 32, 1024, 32, 256},
    {"mode", 1, 3, NULL, modes, 0, 0, 0, 0},
    {"pack", 1, 4, sizes, NULL, 0, 0, 0, 4},
    {"shift", 0, 0, NULL, NULL, -8, 8, 1, 0},
};
static const tk_config_space space = {"madeup", 4, params};

static void test_status_and_dtypes(void)
{
    CHECK_STR(tk_status_string(TK_OK), "ok");
    CHECK_STR(tk_status_string(TK_ERR_UNSUPPORTED_CONFIG), "unsupported config");
    CHECK_STR(tk_status_string((tk_status)99), "unknown status");
    CHECK(tk_dtype_parse("f32") == TK_F32);
    CHECK(tk_dtype_parse("f16") == TK_F16);
    CHECK(tk_dtype_parse("bf16") == TK_BF16);
    CHECK(tk_dtype_parse("F32") == -1);
    CHECK(tk_dtype_parse("f3") == -1);
    CHECK(tk_dtype_parse("") == -1);
    CHECK(tk_dtype_parse(NULL) == -1);
    CHECK_STR(tk_dtype_name(TK_F32), "f32");
    CHECK_STR(tk_dtype_name(TK_F16), "f16");
    CHECK_STR(tk_dtype_name(TK_BF16), "bf16");
    CHECK(tk_dtype_name((tk_dtype)7) == NULL);
    CHECK(tk_dtype_size(TK_F32) == 4 && tk_dtype_size(TK_F16) == 2 && tk_dtype_size(TK_BF16) == 2);
    CHECK(tk_dtype_size((tk_dtype)-1) == 0);
}

static void test_param_supports(void)
{
    CHECK(tk_param_supports(&params[0], 32));
    CHECK(tk_param_supports(&params[0], 96));
    CHECK(tk_param_supports(&params[0], 1024));
    CHECK(!tk_param_supports(&params[0], 0));
    CHECK(!tk_param_supports(&params[0], 33));
    CHECK(!tk_param_supports(&params[0], 1056));
    CHECK(!tk_param_supports(&params[0], -32));
    CHECK(tk_param_supports(&params[1], 0) && tk_param_supports(&params[1], 2));
    CHECK(!tk_param_supports(&params[1], 3) && !tk_param_supports(&params[1], -1));
    CHECK(tk_param_supports(&params[2], 8) && !tk_param_supports(&params[2], 3));
    CHECK(!tk_param_supports(&params[2], 16));
    CHECK(tk_param_supports(&params[3], -8) && tk_param_supports(&params[3], 0));
    CHECK(!tk_param_supports(&params[3], 9));
    CHECK(!tk_param_supports(NULL, 1));
}

static void test_config_parse(void)
{
    int64_t v[4] = {-1, -1, -1, -1};
    CHECK(tk_config_parse(&space, "block=256,mode=exact,pack=4,shift=-3", v) == TK_OK);
    CHECK(v[0] == 256 && v[1] == 1 && v[2] == 4 && v[3] == -3);
    /* any order */
    CHECK(tk_config_parse(&space, "shift=8,pack=1,mode=slow,block=1024", v) == TK_OK);
    CHECK(v[0] == 1024 && v[1] == 2 && v[2] == 1 && v[3] == 8);

    /* semantic errors leave values alone */
    int64_t w[4] = {7, 7, 7, 7};
    CHECK(tk_config_parse(&space, "block=256,mode=exact,pack=4", w) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=256,mode=exact,pack=4,shift=0,extra=1", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=256,mode=exact,pack=4,shift=0,block=256", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=250,mode=exact,pack=4,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=256,mode=Exact,pack=4,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=256,mode=exac,pack=4,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=256,mode=exactly,pack=4,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "block=256,mode=exact,pack=3,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "bloc=256,mode=exact,pack=4,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_config_parse(&space, "", w) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(w[0] == 7 && w[1] == 7 && w[2] == 7 && w[3] == 7);

    /* syntax errors */
    const char *bad[] = {
        "block=256,mode=exact,pack=4,shift=0,",  "block=256,,mode=exact,pack=4,shift=0",
        ",block=256,mode=exact,pack=4,shift=0",  "block=,mode=exact,pack=4,shift=0",
        "=256,mode=exact,pack=4,shift=0",        "block256,mode=exact,pack=4,shift=0",
        "block=256 ,mode=exact,pack=4,shift=0",  "block= 256,mode=exact,pack=4,shift=0",
        "block=0x100,mode=exact,pack=4,shift=0", "block=256,mode=exact,pack=4,shift=--1",
        "block=256,mode=exact,pack=4,shift=-",   "block=99999999999999999999,mode=exact,pack=4,shift=0",
        "block=256,mode=exact,pack=4,shift=1e1", ",",
        "=",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tk_status st = tk_config_parse(&space, bad[i], w);
        CHECK(st == TK_ERR_INVALID_ARGUMENT || st == TK_ERR_UNSUPPORTED_CONFIG);
        if (st == TK_OK) fprintf(stderr, "accepted: %s\n", bad[i]);
    }
    CHECK(tk_config_parse(&space, "block=256 ,mode=exact,pack=4,shift=0", w) ==
          TK_ERR_INVALID_ARGUMENT); /* "256 " is not a number */
    CHECK(tk_config_parse(&space, "block =256,mode=exact,pack=4,shift=0", w) ==
          TK_ERR_UNSUPPORTED_CONFIG); /* "block " is not a parameter */
    CHECK(tk_config_parse(&space, "block=256,mode=exact,pack=4,shift=0,", w) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_config_parse(&space, "block=x,mode=exact,pack=4,shift=0", w) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_config_parse(&space, "block=99999999999999999999,mode=exact,pack=4,shift=0", w) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(w[0] == 7);

    /* int64 limits parse exactly (then fail the range check) */
    static const tk_param_desc wide_p[] = {{"v", 0, 0, NULL, NULL, INT64_MIN, INT64_MAX, 1, 0}};
    static const tk_config_space wide = {"wide", 1, wide_p};
    int64_t x = 0;
    CHECK(tk_config_parse(&wide, "v=9223372036854775807", &x) == TK_OK && x == INT64_MAX);
    CHECK(tk_config_parse(&wide, "v=-9223372036854775808", &x) == TK_OK && x == INT64_MIN);
    CHECK(tk_config_parse(&wide, "v=9223372036854775808", &x) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_config_parse(&wide, "v=-9223372036854775809", &x) == TK_ERR_INVALID_ARGUMENT);

    /* NULL arguments */
    CHECK(tk_config_parse(NULL, "block=32", w) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_config_parse(&space, NULL, w) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_config_parse(&space, "block=32", NULL) == TK_ERR_INVALID_ARGUMENT);

    /* no crash on arbitrary bytes: every prefix and every one-byte change of a valid text */
    const char *good = "block=256,mode=exact,pack=4,shift=-3";
    char buf[64];
    int prefixes_rejected = 0;
    for (size_t len = 0; len < strlen(good); len++) {
        memcpy(buf, good, len);
        buf[len] = '\0';
        prefixes_rejected += tk_config_parse(&space, buf, w) != TK_OK;
    }
    CHECK(prefixes_rejected == (int)strlen(good));
    int statuses_known = 1, accepted = 0;
    for (size_t i = 0; i < strlen(good); i++)
        for (int c = 1; c < 256; c++) {
            strcpy(buf, good);
            buf[i] = (char)c;
            tk_status st = tk_config_parse(&space, buf, w);
            statuses_known &= st == TK_OK || st == TK_ERR_INVALID_ARGUMENT ||
                              st == TK_ERR_UNSUPPORTED_CONFIG;
            accepted += st == TK_OK;
        }
    CHECK(statuses_known);
    /* exactly the changes that still spell a valid config are accepted (sscanf as the oracle,
     * minus the signs and spaces it tolerates and the parser does not) */
    int expect = 0;
    for (size_t i = 0; i < strlen(good); i++)
        for (int c = 1; c < 256; c++) {
            strcpy(buf, good);
            buf[i] = (char)c;
            int64_t b = 0, sh = 0, pk = 0;
            char mode[16] = "", tail = 0;
            int got = sscanf(buf, "block=%" SCNd64 ",mode=%15[a-z],pack=%" SCNd64 ",shift=%" SCNd64 "%c",
                             &b, mode, &pk, &sh, &tail);
            int digits_only = 1; /* sscanf accepts "+5" and " 5": the parser does not */
            for (const char *q = buf; *q; q++)
                if (*q == '+' || *q == ' ' || (*q >= '\t' && *q <= '\r')) digits_only = 0;
            if (got == 4 && digits_only && b >= 32 && b <= 1024 && b % 32 == 0 &&
                (pk == 1 || pk == 2 || pk == 4 || pk == 8) && sh >= -8 && sh <= 8 &&
                (!strcmp(mode, "fast") || !strcmp(mode, "exact") || !strcmp(mode, "slow")))
                expect++;
        }
    CHECK(accepted == expect);
}

static void test_elementwise_space(void)
{
    const tk_config_space *s = tk_elementwise_config_space();
    CHECK(s && s->n_params == 6);
    CHECK_STR(s->family, "elementwise");
    CHECK_STR(s->params[0].name, "block_size");
    CHECK_STR(s->params[1].name, "cache_hint");
    CHECK_STR(s->params[2].name, "loop");
    CHECK_STR(s->params[3].name, "pack_size");
    CHECK_STR(s->params[4].name, "unroll");
    CHECK_STR(s->params[5].name, "waves");
    CHECK(s->params[3].compile_time && s->params[2].compile_time && !s->params[0].compile_time);
    CHECK(s->params[1].compile_time && s->params[1].default_value == TK_CACHE_NORMAL);
    CHECK(s->params[4].compile_time && s->params[4].default_value == 1);
    CHECK(s->params[0].default_value == 256 && s->params[5].default_value == 32);
    CHECK(s->params[3].default_value == 4);
    CHECK(tk_elementwise_default_config(TK_F16).unroll == 1 && tk_elementwise_default_config(TK_F16).pack_size == 8);

    tk_elementwise_config c;
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=7", &c) ==
          TK_OK);
    CHECK(c.block_size == 96 && c.loop == TK_LOOP_ONE_SHOT && c.pack_size == 8 && c.waves == 7 &&
          c.unroll == 1 && c.cache_hint == TK_CACHE_NORMAL);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=evict_first,loop=one_shot,pack_size=8,unroll=1,waves=7",
                                          &c) == TK_OK && c.cache_hint == TK_CACHE_EVICT_FIRST);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=one_shot,pack_size=8,unroll=4,waves=7", &c) ==
          TK_OK && c.unroll == 4);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=one_shot,pack_size=8,unroll=3,waves=7", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=one_shot,pack_size=8,waves=7", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=one_shot,pack_size=16,unroll=1,waves=7",
                                          &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_elementwise_config_from_text("block_size=100,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=1,waves=7",
                                          &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=unrolled,pack_size=4,unroll=1,waves=7", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_elementwise_config_from_text("block_size=96,cache_hint=normal,loop=one_shot,pack_size=4,unroll=1,waves=0", &c) ==
          TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_elementwise_config_from_text(NULL, &c) == TK_ERR_INVALID_ARGUMENT);

    tk_elementwise_config d = tk_elementwise_default_config(TK_F32);
    CHECK(d.block_size == 256 && d.waves == 32 && d.pack_size == 4 && d.loop == TK_LOOP_GRID_STRIDE);
    CHECK(tk_elementwise_default_config(TK_F16).pack_size == 8);
    CHECK(tk_elementwise_default_config(TK_BF16).pack_size == 8);
}

/* f16 bits of x through tk_host_from_double. */
static uint16_t h16(double x)
{
    uint16_t h = 0;
    tk_host_from_double(TK_F16, &x, &h, 1);
    return h;
}
static uint16_t b16(double x)
{
    uint16_t h = 0;
    tk_host_from_double(TK_BF16, &x, &h, 1);
    return h;
}

static void test_host_conversion(void)
{
    /* f16: exact values, ties to even, double rounding avoided, subnormals, overflow */
    CHECK(h16(1.0) == 0x3c00);
    CHECK(h16(-2.0) == 0xc000);
    CHECK(h16(0.0) == 0x0000);
    CHECK(h16(-0.0) == 0x8000);
    CHECK(h16(1.0 + 0x1p-10) == 0x3c01);
    CHECK(h16(1.0 + 0x1p-11) == 0x3c00);          /* tie -> even (down) */
    CHECK(h16(1.0 + 3 * 0x1p-11) == 0x3c02);      /* tie -> even (up) */
    CHECK(h16(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01); /* through float this would tie to 0x3c00 */
    CHECK(h16(1.0 + 0x1p-11 - 0x1p-40) == 0x3c00);
    CHECK(h16(65504.0) == 0x7bff);
    CHECK(h16(65519.99) == 0x7bff);
    CHECK(h16(65520.0) == 0x7c00);                /* tie between max and 2^16 -> inf */
    CHECK(h16(-1e10) == 0xfc00);
    CHECK(h16(0x1p-14) == 0x0400);                /* smallest normal */
    CHECK(h16(0x1p-14 - 0x1p-24) == 0x03ff);      /* largest subnormal */
    CHECK(h16(0x1p-24) == 0x0001);                /* smallest subnormal */
    CHECK(h16(0x1p-25) == 0x0000);                /* tie -> even 0 */
    CHECK(h16(0x1p-25 + 0x1p-60) == 0x0001);
    CHECK(h16(1.5 * 0x1p-24) == 0x0002);          /* tie -> even 2 */
    CHECK(h16(2.5 * 0x1p-24) == 0x0002);          /* tie -> even 2 */
    CHECK(h16(0x1p-14 - 0x1p-26) == 0x0400);      /* rounds up into the normal range */
    CHECK(h16(1e-300) == 0x0000);
    CHECK(h16(-1e-300) == 0x8000);
    CHECK(h16(0x1.ffcp15 + 0x1p3) == 0x7bff);     /* 65512: below the tie */
    CHECK(h16(INFINITY) == 0x7c00);
    CHECK(h16(-INFINITY) == 0xfc00);
    CHECK((h16(NAN) & 0x7c00) == 0x7c00 && (h16(NAN) & 0x03ff) != 0);
    CHECK(h16(1.0 / 3.0) == 0x3555);
    CHECK(h16(3.14159265358979) == 0x4248);

    /* bf16 */
    CHECK(b16(1.0) == 0x3f80);
    CHECK(b16(-1.0) == 0xbf80);
    CHECK(b16(1.0 + 0x1p-7) == 0x3f81);
    CHECK(b16(1.0 + 0x1p-8) == 0x3f80);           /* tie -> even */
    CHECK(b16(1.0 + 3 * 0x1p-8) == 0x3f82);
    CHECK(b16(1.0 + 0x1p-8 + 0x1p-40) == 0x3f81); /* through float this would tie to 0x3f80 */
    CHECK(b16(3.3895313892515355e38) == 0x7f7f);  /* the largest bf16 */
    CHECK(b16(3.4e38) == 0x7f80);
    CHECK(b16(0x1p-126) == 0x0080);
    CHECK(b16(0x1p-133) == 0x0001);               /* smallest subnormal */
    CHECK(b16(0x1p-134) == 0x0000);               /* tie -> even 0 */
    CHECK(b16(1.0 / 3.0) == 0x3eab);
    CHECK((b16(-NAN) & 0xff80) == 0xff80 && (b16(NAN) & 0x007f) != 0);

    /* f32 */
    float f = 0;
    double third = 1.0 / 3.0;
    tk_host_from_double(TK_F32, &third, &f, 1);
    CHECK(f == (float)third);

    /* back to double, exactly */
    uint16_t hs[] = {0x3c00, 0x0001, 0x03ff, 0x7bff, 0xfc00, 0x8000, 0x3555};
    double d[7];
    tk_host_to_double(TK_F16, hs, d, 7);
    CHECK(d[0] == 1.0 && d[1] == 0x1p-24 && d[2] == 0x1p-14 - 0x1p-24 && d[3] == 65504.0);
    CHECK(isinf(d[4]) && d[4] < 0 && d[5] == 0.0 && signbit(d[5]));
    CHECK(d[6] == 0x1.554p-2);
    uint16_t h_nan = 0x7e00;
    double dn = 0;
    tk_host_to_double(TK_F16, &h_nan, &dn, 1);
    CHECK(isnan(dn));
    uint16_t bs[] = {0x3f80, 0x0001, 0x7f7f, 0xff80};
    tk_host_to_double(TK_BF16, bs, d, 4);
    CHECK(d[0] == 1.0 && d[1] == 0x1p-133 && d[2] == 3.3895313892515355e38);
    CHECK(isinf(d[3]) && d[3] < 0);

    /* every finite f16 survives a round trip */
    int round_trip_ok = 1;
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t h = (uint16_t)b, back = 0;
        if ((h & 0x7c00) == 0x7c00) continue;
        double v;
        tk_host_to_double(TK_F16, &h, &v, 1);
        tk_host_from_double(TK_F16, &v, &back, 1);
        if (back != h) round_trip_ok = 0;
    }
    CHECK(round_trip_ok);
    int bf_round_trip_ok = 1;
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t h = (uint16_t)b, back = 0;
        if ((h & 0x7f80) == 0x7f80) continue;
        double v;
        tk_host_to_double(TK_BF16, &h, &v, 1);
        tk_host_from_double(TK_BF16, &v, &back, 1);
        if (back != h) bf_round_trip_ok = 0;
    }
    CHECK(bf_round_trip_ok);

    /* midpoints between neighbouring positive f16 values tie to the even one */
    int ties_ok = 1;
    for (uint16_t h = 0; h < 0x7bff; h++) {
        uint16_t hn = (uint16_t)(h + 1);
        double a, b;
        tk_host_to_double(TK_F16, &h, &a, 1);
        tk_host_to_double(TK_F16, &hn, &b, 1);
        uint16_t want = (h & 1) ? hn : h;
        if (h16((a + b) / 2) != want) ties_ok = 0;
    }
    CHECK(ties_ok);
}

int main(void)
{
    test_status_and_dtypes();
    test_param_supports();
    test_config_parse();
    test_elementwise_space();
    test_host_conversion();
    return CHECK_DONE();
}

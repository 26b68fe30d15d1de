/* test_relu_mask.c: unit tests (CPU only) of the relu_mask family: the mask comparison catching
 * planted errors, the problem fields, bytes moved (PERF.md's 77 MB and 52 MB) and size keys, the canonical config text against the library's parser, the library's
 * host helpers (mask words, default configs, the parameter space). The harness's references are
 * computed on the GPU; tests/gpu/relu_mask_test.cu checks them against its CPU reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ops/ops.h"
#include "ops/relu_mask.h"
#include "tk_check.h"
#include "tunekit.h"

static void test_compare(void)
{
    uint32_t want[4] = {1, 2, 3, 4}, got[4] = {1, 2, 3, 4};
    char err[512] = "";
    CHECK(relu_mask_compare_words(got, want, 4, err, sizeof err) == 0);
    got[2] ^= 1u << 5;          /* element 69 */
    got[3] = ~got[3];
    CHECK(relu_mask_compare_words(got, want, 4, err, sizeof err) == 1);
    CHECK(strstr(err, "2 of 4 mask words differ") != NULL);
    CHECK(strstr(err, "[2] got 0x00000023 expected 0x00000003 (element 69)") != NULL);
    CHECK(strstr(err, "[3] got 0xfffffffb expected 0x00000004 (element 96)") != NULL);
    CHECK(relu_mask_compare_words(got, want, 2, err, sizeof err) == 0);   /* only n_words */
}

static problem make_problem(int64_t n, int64_t offset, int64_t with_mask)
{
    const char *names[] = {"n", "offset", "with_mask"};
    value v[] = {value_int(n), value_int(offset), value_int(with_mask)};
    problem p;
    memset(&p, 0, sizeof p);
    CHECK(problem_init(&p, 3, names, v) == 0);
    return p;
}

static void test_family(void)
{
    const op_family *f = op_family_find("relu_mask");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(op_family_op_index(f, "relu_fwd") == 0 && op_family_op_index(f, "add_relu_bwd") == 3);
    CHECK(op_family_op_index(f, "relu") < 0);
    CHECK(op_family_dtype_index(f, "bf16") == 2);
    CHECK(f->n_fields == 3 && strcmp(f->fields[2].name, "with_mask") == 0 &&
          f->fields[2].def == 1 && f->fields[2].max == 1);
    CHECK(f->config_space() == tk_relu_mask_config_space());

    /* PERF.md: f32 (16,32,112,112) backward moves 77 MB reading y, 52 MB reading the mask */
    problem p = make_problem(6422528, 0, 1), q = make_problem(6422528, 0, 0);
    problem r = make_problem(1000003, 1, 1);
    CHECK(f->bytes_moved(f, "relu_bwd", "f32", &q) == 3 * 6422528LL * 4);
    CHECK(f->bytes_moved(f, "relu_bwd", "f32", &p) == 2 * 6422528LL * 4 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "relu_fwd", "f32", &p) == 2 * 6422528LL * 4 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "relu_fwd", "f32", &q) == 2 * 6422528LL * 4);
    CHECK(f->bytes_moved(f, "add_relu_fwd", "f16", &p) == 3 * 6422528LL * 2 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "add_relu_bwd", "bf16", &p) == 3 * 6422528LL * 2 + 200704LL * 4);
    CHECK(f->bytes_moved(f, "add_relu_bwd", "bf16", &q) == 4 * 6422528LL * 2);
    CHECK(f->bytes_moved(f, "relu_bwd", "f32", &r) == 2 * 1000003LL * 4 + 31251LL * 4);
    CHECK(f->bytes_moved(f, "gelu", "f32", &p) == 0 && f->bytes_moved(f, "relu_fwd", "f64", &p) == 0);
    CHECK(f->elements(f, &p) == 6422528);
    CHECK(f->size_key(f, &p) == 6422528 && f->size_key(f, &q) == -1 && f->size_key(f, &r) == -1);
    char err[64];
    CHECK(f->check_problem(f, "relu_fwd", "f32", &p, err, sizeof err) == 0);

    /* the default config, as text the library parses back */
    char text[128];
    CHECK(f->default_config(f, "f32", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=256,cache_hint=normal,loop=grid_stride,mask=ballot32,pack_size=4,"
                    "unroll=1,waves=32");
    CHECK(f->default_config(f, "bf16", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=256,cache_hint=normal,loop=grid_stride,mask=ballot32,pack_size=8,"
                    "unroll=1,waves=32");
    CHECK(f->default_config(f, "f64", text, sizeof text) == -1);
    tk_relu_mask_config c;
    CHECK(tk_relu_mask_config_from_text(text, &c) == TK_OK);
    const tk_relu_mask_config d = tk_relu_mask_default_config(TK_BF16, TK_MASK_BALLOT32);
    CHECK(memcmp(&c, &d, sizeof c) == 0);
    problem_clear(&p);
    problem_clear(&q);
    problem_clear(&r);
}

static void test_config_text(void)
{
    const tk_relu_mask_config all[] = {
        {32, 1, 1, TK_MASK_NONE, TK_CACHE_NORMAL, TK_LOOP_GRID_STRIDE, 1},
        {1024, 1024, 8, TK_MASK_BYTE8, TK_CACHE_EVICT_FIRST, TK_LOOP_ONE_SHOT, 4},
        {96, 7, 2, TK_MASK_BALLOT32, TK_CACHE_NORMAL, TK_LOOP_ONE_SHOT, 2},
    };
    char text[128];
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        tk_relu_mask_config back;
        CHECK(relu_mask_config_text(&all[i], text, sizeof text) == 0);
        CHECK(tk_relu_mask_config_from_text(text, &back) == TK_OK);
        CHECK(memcmp(&back, &all[i], sizeof back) == 0);
    }
    CHECK(relu_mask_config_text(&all[1], text, sizeof text) == 0);
    CHECK_STR(text, "block_size=1024,cache_hint=evict_first,loop=one_shot,mask=byte8,"
                    "pack_size=8,unroll=4,waves=1024");
    tk_relu_mask_config bad = all[0];
    bad.mask = (tk_mask_scheme)3;
    CHECK(relu_mask_config_text(&bad, text, sizeof text) == -1);
    bad = all[0];
    bad.cache_hint = (tk_cache_hint)-1;
    CHECK(relu_mask_config_text(&bad, text, sizeof text) == -1);
    bad = all[0];
    bad.loop = (tk_loop)2;
    CHECK(relu_mask_config_text(&bad, text, sizeof text) == -1);
    CHECK(relu_mask_config_text(&all[1], text, 20) == -1);   /* does not fit */

    tk_relu_mask_config c;
    CHECK(tk_relu_mask_config_from_text("unroll=2,waves=8,mask=none,pack_size=2,loop=one_shot,"
                                        "cache_hint=normal,block_size=128",
                                        &c) == TK_OK);
    CHECK(c.waves == 8 && c.mask == TK_MASK_NONE && c.pack_size == 2 && c.block_size == 128 &&
          c.loop == TK_LOOP_ONE_SHOT && c.unroll == 2);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=byte4,pack_size=2,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);   /* no pack_size */
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,mask=none,"
                                        "pack_size=2,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);   /* no loop, unroll */
    CHECK(tk_relu_mask_config_from_text("block_size=100,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,pack_size=2,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,pack_size=16,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=grid_stride,"
                                        "mask=none,pack_size=4,unroll=3,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text("block_size=128,cache_hint=normal,loop=persistent,"
                                        "mask=none,pack_size=4,unroll=1,waves=8",
                                        &c) == TK_ERR_UNSUPPORTED_CONFIG);
    CHECK(tk_relu_mask_config_from_text(NULL, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_config_from_text("block_size=128", NULL) == TK_ERR_INVALID_ARGUMENT);
}

static void test_library_host_helpers(void)
{
    CHECK(tk_relu_mask_words(0) == 0 && tk_relu_mask_words(-5) == 0);
    CHECK(tk_relu_mask_words(1) == 1 && tk_relu_mask_words(32) == 1);
    CHECK(tk_relu_mask_words(33) == 2 && tk_relu_mask_words(6422528) == 200704);
    CHECK(tk_relu_mask_words((int64_t)1 << 40) == (int64_t)1 << 35);
    CHECK(tk_relu_mask_words(((int64_t)1 << 31) + 37) == ((int64_t)1 << 26) + 2);

    const tk_relu_mask_config f32 = tk_relu_mask_default_config(TK_F32, TK_MASK_NONE);
    CHECK(f32.block_size == 256 && f32.waves == 32 && f32.pack_size == 4 &&
          f32.mask == TK_MASK_NONE && f32.cache_hint == TK_CACHE_NORMAL &&
          f32.loop == TK_LOOP_GRID_STRIDE && f32.unroll == 1);
    const tk_relu_mask_config f16 = tk_relu_mask_default_config(TK_F16, TK_MASK_BYTE8);
    CHECK(f16.pack_size == 8 && f16.mask == TK_MASK_BYTE8);

    /* the space: parameters in canonical (sorted) order, with the values the library has */
    const tk_config_space *s = tk_relu_mask_config_space();
    CHECK(s && strcmp(s->family, "relu_mask") == 0 && s->n_params == 7);
    if (!s || s->n_params != 7) return;
    const char *names[] = {"block_size", "cache_hint", "loop", "mask", "pack_size", "unroll",
                           "waves"};
    for (int i = 0; i < 7; i++) CHECK_STR(s->params[i].name, names[i]);
    CHECK(!s->params[2].compile_time && s->params[2].n_values == 2);
    CHECK_STR(s->params[2].str_values[0], "grid_stride");
    CHECK_STR(s->params[2].str_values[1], "one_shot");
    CHECK(s->params[2].default_value == TK_LOOP_GRID_STRIDE);
    CHECK(s->params[3].compile_time && s->params[3].n_values == 3);
    CHECK_STR(s->params[3].str_values[0], "none");
    CHECK_STR(s->params[3].str_values[1], "byte8");
    CHECK_STR(s->params[3].str_values[2], "ballot32");
    CHECK(s->params[3].default_value == TK_MASK_BALLOT32);
    CHECK(tk_param_supports(&s->params[0], 96) && !tk_param_supports(&s->params[0], 2048));
    CHECK(tk_param_supports(&s->params[4], 8) && !tk_param_supports(&s->params[4], 16));
    CHECK(s->params[5].compile_time && s->params[5].default_value == 1);
    CHECK(tk_param_supports(&s->params[5], 4) && !tk_param_supports(&s->params[5], 3) &&
          !tk_param_supports(&s->params[5], 8));
    CHECK(tk_param_supports(&s->params[6], 1) && !tk_param_supports(&s->params[6], 0));

    tk_relu_mask_config c;
    CHECK(tk_relu_mask_tuned_config("relu_mask.gelu", TK_F32, 10, 1, &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_fwd", TK_F32, 10, 1, &c) == TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_mask.relu_fwd", (tk_dtype)4, 10, 1, &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_mask.relu_fwd", TK_F32, -1, 1, &c) ==
          TK_ERR_INVALID_ARGUMENT);
    CHECK(tk_relu_mask_tuned_config("relu_mask.relu_fwd", TK_F32, 10, 1, NULL) ==
          TK_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    test_compare();
    test_family();
    test_config_text();
    test_library_host_helpers();
    return CHECK_DONE();
}

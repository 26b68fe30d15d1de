/* test_space.c: unit tests of space files (tuner/space/space_load.c, space_yaml.c, space_enum.c,
 * sha256.c): loading the valid cases with every field and default checked, counting and
 * enumeration against a brute force over every raw point (with and without a device), pruning
 * (a constraint is never evaluated on a rejected prefix), canonical config text round trips,
 * errors without a position (missing file, a file over 1 MiB), and the speed of enumerating a
 * space of 10^6 raw points. Run from the repository root (tests/run.sh does). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "space/space.h"
#include "space/space_internal.h"
#include "core/sha256.h"

/* ---- helpers ---- */

/* Writes text to a new temporary .yaml file; returns its path (static buffer per call site is
 * not needed: the caller passes one). Returns 0 or -1. */
static int write_temp(const char *text, size_t len, char path[64])
{
    strcpy(path, "/tmp/test_space_XXXXXX.yaml");
    int fd = mkstemps(path, 5);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    close(fd);
    return 0;
}

/* Loads text as a space file; on failure copies the error into err. Caller frees. */
static space *load_text(const char *text, char *err, size_t len, char path[64])
{
    if (write_temp(text, strlen(text), path) != 0) {
        snprintf(err, len, "cannot write a temporary file");
        return NULL;
    }
    space *sp = space_load(path, err, len);
    unlink(path);
    return sp;
}

static device_info test_device(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "Test GPU");
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.max_threads_per_sm = 2048;
    d.max_threads_per_block = 256;
    d.regs_per_sm = 65536;
    d.smem_per_sm = 233472;
    d.l2_bytes = 52428800;
    d.mem_bytes = 85899345920LL;
    return d;
}

/* Compares space_iter with a brute force over every raw point (space_allows on each), in
 * order. Returns the number of configs, or -1 when they differ. */
static int64_t brute_force_matches(const space *sp, const space_binding *b)
{
    int n = sp->n_params;
    int *raw = calloc((size_t)n, sizeof *raw), *got = calloc((size_t)n, sizeof *got);
    space_iter it;
    space_iter_init(&it, sp, b);
    int64_t count = 0;
    int ok = raw && got;
    while (ok) {
        int allowed = space_allows(sp, b, raw);
        if (allowed < 0) {
            ok = 0;
            break;
        }
        if (allowed) {
            if (space_iter_next(&it, got) != 1 || memcmp(raw, got, (size_t)n * sizeof *raw) != 0)
                ok = 0;
            count++;
        }
        int k = n - 1;
        while (k >= 0 && ++raw[k] == sp->params[k].n_values)
            raw[k--] = 0;
        if (k < 0)
            break;
    }
    if (ok && space_iter_next(&it, got) != 0)
        ok = 0;
    space_iter_free(&it);
    free(raw);
    free(got);
    return ok ? count : -1;
}

/* ---- tests ---- */

static void test_sha256(void)
{
    char hex[65];
    sha256_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_every_setting(void)
{
    char err[1024] = "";
    const char *path = "tests/cases/valid/every_setting.yaml";
    space *sp = space_load(path, err, sizeof err);
    CHECK(sp != NULL);
    if (!sp) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    CHECK_STR(sp->path, path);
    CHECK_STR(sp->kernel, "elementwise");
    CHECK(sp->family && strcmp(sp->family->kernel, "elementwise") == 0);
    CHECK(sp->n_ops == 4 && strcmp(sp->ops[0], "mul") == 0 && strcmp(sp->ops[3], "gelu") == 0);
    CHECK(sp->n_dtypes == 2 && strcmp(sp->dtypes[1], "bf16") == 0);
    CHECK(sp->n_problems == 3);
    if (sp->n_problems == 3) {
        CHECK_STR(sp->problems[0].text, "n=1048576,offset=0");
        CHECK_STR(sp->problems[1].text, "n=33554431,offset=1");
        CHECK_STR(sp->problems[2].text, "n=1099511627776,offset=0");
    }
    CHECK(sp->n_params == 6);   /* unroll and cache_hint, not listed: library defaults */
    if (sp->n_params == 6) {
        CHECK_STR(sp->params[0].name, "block_size");
        CHECK(sp->params[0].n_values == 16 && sp->params[0].values[15].i == 1024);
        CHECK(sp->params[0].line == 20 && sp->params[0].col == 3);
        CHECK(sp->params[1].n_values == 11 && sp->params[1].values[10].i == 1024 &&
              sp->params[1].values[3].i == 8);
        CHECK(sp->params[3].n_values == 2 && sp->params[3].values[1].kind == VALUE_STRING &&
              strcmp(sp->params[3].values[1].s, "one_shot") == 0);
    }
    CHECK(sp->n_constraints == 7);
    if (sp->n_constraints == 7) {
        CHECK_STR(sp->constraints[0].text, "pack_size * dtype_size <= 16");
        CHECK(sp->constraints[0].line == 29 && sp->constraints[0].col == 5);
        CHECK_STR(sp->constraints[1].text, "loop == 'grid_stride' || waves == 1");
        CHECK(sp->constraints[1].line == 30 && sp->constraints[1].col == 6);   /* after the quote */
        for (int k = 0; k < 7; k++)
            CHECK(sp->constraints[k].uses_device == 0);
    }
    CHECK_STR(sp->search.strategy, "random");
    CHECK(sp->search.budget_evals == 200 && sp->search.budget_seconds == 30.5);
    CHECK(sp->search.seed == 42);
    CHECK(sp->measure.warmup == 0 && sp->measure.min_runs == 1 && sp->measure.max_runs == 1);
    CHECK(sp->measure.rel_ci == 0.5 && sp->measure.cold == 0);
    CHECK(sp->measure.timeout_s == 0.25 && sp->measure.max_seconds == 0.1);
    CHECK(sp->validate.enabled == 0 && sp->validate.tolerance_scale == 2.0);

    /* The recorded hash is of the file's bytes. */
    FILE *f = fopen(path, "rb");
    static char bytes[1 << 16];
    size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f)
        fclose(f);
    char hex[65];
    sha256_hex(bytes, n, hex);
    CHECK(n > 0 && strcmp(hex, sp->sha256) == 0);

    CHECK(space_raw_size(sp) == 16 * 11 * 4 * 2);
    /* Every binding enumerates exactly what the brute force allows, and the total is what an
     * independent count (a Python loop over the same rules) gave. */
    int64_t total = 0;
    int all_match = 1;
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = {sp->ops[a], sp->dtypes[b], &sp->problems[c], NULL};
                int64_t bf = brute_force_matches(sp, &bind);
                int64_t cnt = space_count(sp, &bind, err, sizeof err);
                if (bf < 0 || bf != cnt)
                    all_match = 0;
                total += cnt;
            }
    CHECK(all_match);
    CHECK(total == 8128);
    /* By hand, fma bf16 n=1048576: 4 packs x (grid_stride pairs with block_size <= 512 and
     * waves * block_size <= 65536: 11+10+9+9+8+8+8+8 = 71, plus one_shot at waves 1: 8). */
    space_binding fma = {"fma", "bf16", &sp->problems[0], NULL};
    CHECK(space_count(sp, &fma, err, sizeof err) == 4 * (71 + 8));
    /* The misaligned problem (offset 1) allows pack_size 1 only: a third of the aligned f32. */
    space_binding mul = {"mul", "f32", &sp->problems[0], NULL};
    space_binding mis = {"mul", "f32", &sp->problems[1], NULL};
    CHECK(space_count(sp, &mul, err, sizeof err) == 429);
    CHECK(space_count(sp, &mis, err, sizeof err) == 143);
    space_free(sp);
}

static void test_minimal_defaults(void)
{
    char err[1024] = "";
    space *sp = space_load("tests/cases/valid/minimal.yaml", err, sizeof err);
    CHECK(sp != NULL);
    if (!sp) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    CHECK_STR(sp->search.strategy, "exhaustive");
    CHECK(sp->search.budget_evals == 0 && sp->search.budget_seconds == 0 && sp->search.seed == 1);
    CHECK(sp->measure.warmup == 2 && sp->measure.min_runs == 10 && sp->measure.max_runs == 200);
    CHECK(sp->measure.rel_ci == 0.01 && sp->measure.cold == 1);
    CHECK(sp->measure.timeout_s == 10 && sp->measure.max_seconds == 2);
    CHECK(sp->validate.enabled == 1 && sp->validate.tolerance_scale == 1.0);
    CHECK(sp->n_constraints == 0);
    CHECK_STR(sp->problems[0].text, "n=4096,offset=0");
    space_binding b = {"relu", "f32", &sp->problems[0], NULL};
    CHECK(space_count(sp, &b, err, sizeof err) == 1);
    int choice[6] = {-1, -1, -1, -1, -1, -1};
    space_iter it;
    space_iter_init(&it, sp, &b);
    CHECK(space_iter_next(&it, choice) == 1);
    CHECK(choice[0] == 0 && choice[1] == 0 && choice[2] == 0 && choice[3] == 0);
    CHECK(space_iter_next(&it, choice) == 0);
    CHECK(space_iter_next(&it, choice) == 0);
    space_iter_free(&it);
    char text[256];
    CHECK(space_config_text(sp, choice, text, sizeof text) ==
          (int)strlen("block_size=256,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=1,waves=32"));
    CHECK_STR(text, "block_size=256,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=1,waves=32");
    space_free(sp);
}

static void test_device_constraints(void)
{
    char err[1024] = "";
    space *sp = space_load("tests/cases/valid/device_constraints.yaml", err, sizeof err);
    CHECK(sp != NULL);
    if (!sp) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    CHECK(sp->n_constraints == 4);
    CHECK(sp->constraints[0].uses_device && sp->constraints[1].uses_device &&
          sp->constraints[2].uses_device && !sp->constraints[3].uses_device);
    device_info dev = test_device();
    space_binding none = {"add", "f16", &sp->problems[0], NULL};
    space_binding gpu = {"add", "f16", &sp->problems[0], &dev};
    /* Without a device: 4 block sizes x 3 packs x (7 grid_stride + 1 one_shot). */
    CHECK(space_count(sp, &none, err, sizeof err) == 96);
    CHECK(brute_force_matches(sp, &none) == 96);
    /* With it: block sizes <= 256 only. */
    CHECK(space_count(sp, &gpu, err, sizeof err) == 48);
    CHECK(brute_force_matches(sp, &gpu) == 48);
    dev.cc_major = 7;
    CHECK(space_count(sp, &gpu, err, sizeof err) == 0);
    space_free(sp);
}

static void test_config_text(void)
{
    char err[1024] = "";
    space *sp = space_load("tests/cases/valid/every_setting.yaml", err, sizeof err);
    CHECK(sp != NULL);
    if (!sp)
        return;
    space_binding b = {"mul", "bf16", &sp->problems[0], NULL};
    space_iter it;
    space_iter_init(&it, sp, &b);
    int choice[6], back[6];
    int round_trips = 1, n = 0;
    char text[256], first[256] = "";
    while (space_iter_next(&it, choice) == 1) {
        space_config_text(sp, choice, text, sizeof text);
        if (n++ == 0)
            strcpy(first, text);
        if (space_config_parse(sp, text, back) != 0 || memcmp(back, choice, sizeof back) != 0)
            round_trips = 0;
    }
    space_iter_free(&it);
    CHECK(n > 0 && round_trips);
    CHECK_STR(first, "block_size=64,cache_hint=normal,loop=grid_stride,pack_size=1,unroll=1,waves=1");
    /* Truncation follows snprintf: the full length is returned. */
    int want = (int)strlen(first);
    int zero[6] = {0, 0, 0, 0, 0, 0};
    char small[10];
    CHECK(space_config_text(sp, zero, small, sizeof small) == want);
    CHECK_STR(small, "block_siz");
    CHECK(space_config_parse(sp, "waves=1,block_size=64,pack_size=1,unroll=1,cache_hint=normal,loop=grid_stride", back) == 0);
    CHECK(back[0] == 0 && back[1] == 0 && back[2] == 0 && back[3] == 0 && back[4] == 0 && back[5] == 0);
    CHECK(space_config_parse(sp, "block_size=128,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=1024", back) == 0);
    CHECK(back[0] == 1 && back[1] == 10 && back[2] == 3 && back[3] == 1);
    CHECK(space_config_parse(sp, "block_size=65,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=1", back) == -1);
    CHECK(space_config_parse(sp, "block_size=64,cache_hint=normal,loop=tiled,pack_size=8,unroll=1,waves=1", back) == -1);
    CHECK(space_config_parse(sp, "block_size=64,cache_hint=normal,loop=one_shot,pack_size=8", back) == -1);
    CHECK(space_config_parse(sp, "block_size=64,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=1,", back) == -1);
    CHECK(space_config_parse(sp, "block_size=64,block_size=64,loop=one_shot,pack_size=8,unroll=1,waves=1",
                             back) == -1);
    CHECK(space_config_parse(sp, "block_size=64,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=1,unroll=2",
                             back) == -1);
    CHECK(space_config_parse(sp, "block_size,loop=one_shot,pack_size=8,unroll=1,waves=1", back) == -1);
    CHECK(space_config_parse(sp, "", back) == -1);
    space_free(sp);
}

static const char *const pruning_space =
    "kernel: elementwise\n"
    "ops: [mul]\n"
    "dtypes: [f32]\n"
    "problems: [{ n: 1024 }]\n"
    "params:\n"
    "  block_size: { values: [64, 128, 256] }\n"
    "  waves: { pow2: [1, 64] }\n"
    "  pack_size: { values: [4] }\n"
    "  loop: { values: [grid_stride] }\n"
    "constraints:\n"
    "  - block_size %s\n"
    "  - waves / (block_size - 128) <= 0\n";

static void test_pruning(void)
{
    char text[1024], err[1024] = "", path[64];
    /* block_size == 64 rejects 128 before waves is assigned: the division by zero that
     * block_size 128 would cause is never evaluated. */
    snprintf(text, sizeof text, pruning_space, "== 64");
    space *sp = load_text(text, err, sizeof err, path);
    CHECK(sp != NULL);
    if (sp) {
        space_binding b = {"mul", "f32", &sp->problems[0], NULL};
        CHECK(space_count(sp, &b, err, sizeof err) == 7);
        space_free(sp);
    } else {
        fprintf(stderr, "  %s\n", err);
    }
    /* Letting 128 through reaches the division: an error at the '/' (line 12, col 11). */
    snprintf(text, sizeof text, pruning_space, "<= 128");
    sp = load_text(text, err, sizeof err, path);
    CHECK(sp == NULL);
    char want[256];
    snprintf(want, sizeof want, "%s:12:11: error: division by zero", path);
    CHECK_STR(err, want);
}

static void test_iter_error(void)
{
    char err[1024] = "", path[64];
    /* A device constraint is not evaluated at load; with a device whose sm_count makes it divide
     * by zero, iteration stops with -1 and the constraint's position. */
    const char *text =
        "kernel: elementwise\n"
        "ops: [mul]\n"
        "dtypes: [f32]\n"
        "problems: [{ n: 1024 }]\n"
        "params:\n"
        "  block_size: { values: [64, 128] }\n"
        "  waves: { values: [1] }\n"
        "  pack_size: { values: [4] }\n"
        "  loop: { values: [grid_stride] }\n"
        "constraints: [\"waves <= 1\", \"block_size / (sm_count - 132) < 1000\"]\n";
    space *sp = load_text(text, err, sizeof err, path);
    CHECK(sp != NULL);
    if (!sp) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    CHECK(sp->constraints[1].uses_device == 1);
    CHECK(sp->constraints[1].line == 10 && sp->constraints[1].col == 30);
    device_info dev = test_device();
    space_binding b = {"mul", "f32", &sp->problems[0], &dev};
    CHECK(space_count(sp, &b, err, sizeof err) == -1);
    char want[256];
    snprintf(want, sizeof want, "%s:10:41: error: division by zero", path);
    CHECK_STR(err, want);
    space_iter it;
    int choice[6];
    space_iter_init(&it, sp, &b);
    CHECK(space_iter_next(&it, choice) == -1);
    CHECK(it.err_constraint == 1 && it.err.offset == 11);
    CHECK(space_iter_next(&it, choice) == 0);
    space_iter_free(&it);
    int zero[6] = {0, 0, 0, 0, 0, 0};
    CHECK(space_allows(sp, &b, zero) == -1);
    dev.sm_count = 133;
    CHECK(space_count(sp, &b, err, sizeof err) == 2);
    CHECK(space_allows(sp, &b, zero) == 1);
    int bad[6] = {2, 0, 0, 0, 0, 0};
    CHECK(space_allows(sp, &b, bad) == -1);
    space_free(sp);
}

static void test_unpositioned_errors(void)
{
    char err[1024] = "";
    CHECK(space_load("tests/cases/valid/no_such_file.yaml", err, sizeof err) == NULL);
    CHECK_STR(err, "tests/cases/valid/no_such_file.yaml: error: cannot open: No such file or "
                   "directory");
    /* Over 1 MiB: refused before parsing (a valid file padded with a long comment). */
    size_t size = (1u << 20) + 1;
    char *big = malloc(size);
    char path[64];
    CHECK(big != NULL);
    if (!big)
        return;
    memset(big, ' ', size);
    big[0] = '#';
    big[size - 1] = '\n';
    if (write_temp(big, size, path) == 0) {
        CHECK(space_load(path, err, sizeof err) == NULL);
        char want[256];
        snprintf(want, sizeof want, "%s: error: file is larger than 1 MiB (1048576 bytes)", path);
        CHECK_STR(err, want);
        unlink(path);
    }
    free(big);
    /* Errors never span lines and fit the buffer they are given. */
    char tiny[16];
    CHECK(space_load("tests/cases/invalid/alias/space.yaml", tiny, sizeof tiny) == NULL);
    CHECK(strlen(tiny) == 15 && strchr(tiny, '\n') == NULL);
}

/* ---- a space of 10^6 raw points, built in memory over a made-up family ---- */

static const char *const fake_ops[] = {"op"};
static const char *const fake_dtypes[] = {"f32"};
static const problem_field fake_fields[] = {{"n", 1, 1, 1000000, 0}};
static const tk_param_desc fake_params[] = {
    {"a", 0, 0, NULL, NULL, 0, 1 << 20, 1, 0},
    {"b", 0, 0, NULL, NULL, 0, 1 << 20, 1, 0},
    {"c", 0, 0, NULL, NULL, 0, 1 << 20, 1, 0},
    {"d", 0, 0, NULL, NULL, 0, 1 << 20, 1, 0},
};
static const tk_config_space fake_space = {"fake", 4, fake_params};
static const tk_config_space *fake_config_space(void) { return &fake_space; }
static const op_family fake_family = {
    .kernel = "fake", .n_ops = 1, .ops = fake_ops, .n_dtypes = 1, .dtypes = fake_dtypes,
    .n_fields = 1, .fields = fake_fields, .config_space = fake_config_space,
};

static int fake_resolve(void *ctx, const char *name, int *mask)
{
    int is_device;
    return space_resolve_slot(ctx, name, mask, &is_device);
}

/* A space over the fake family with params a, b, c, d of counts[k] values 0..count-1 and the
 * given constraints; NULL when a constraint does not bind. Free with space_free. */
static space *fake_space_new(const int *counts, int n_params, const char *const *constraints,
                             int n_constraints)
{
    space *sp = calloc(1, sizeof *sp);
    sp->path = strdup("fake.yaml");
    sp->kernel = strdup("fake");
    sp->family = &fake_family;
    sp->n_fields = fake_family.n_fields;
    sp->fields = fake_family.fields;
    sp->n_ops = 1;
    sp->ops = calloc(1, sizeof *sp->ops);
    sp->ops[0] = strdup("op");
    sp->n_dtypes = 1;
    sp->dtypes = calloc(1, sizeof *sp->dtypes);
    sp->dtypes[0] = strdup("f32");
    sp->problems = calloc(1, sizeof *sp->problems);
    const char *names[] = {"n"};
    value values[] = {value_int(100)};
    problem_init(&sp->problems[0], 1, names, values);
    sp->n_problems = 1;
    sp->params = calloc((size_t)n_params, sizeof *sp->params);
    for (int k = 0; k < n_params; k++) {
        space_param *p = &sp->params[k];
        p->name = strdup(fake_params[k].name);
        p->values = calloc((size_t)counts[k], sizeof *p->values);
        for (int v = 0; v < counts[k]; v++)
            p->values[v] = value_int(v);
        p->n_values = counts[k];
        sp->n_params = k + 1;
    }
    sp->constraints = calloc((size_t)n_constraints + 1, sizeof *sp->constraints);
    for (int k = 0; k < n_constraints; k++) {
        space_constraint *c = &sp->constraints[k];
        expr_error e;
        c->text = strdup(constraints[k]);
        c->e = expr_parse(c->text, &e);
        c->line = k + 1;
        c->col = 1;
        sp->n_constraints = k + 1;
        if (!c->e || expr_bind(c->e, fake_resolve, sp, &e) != 0) {
            space_free(sp);
            return NULL;
        }
    }
    sp->search.strategy = strdup("exhaustive");
    return sp;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static void test_million_points(void)
{
    int counts[3] = {100, 100, 100};
    const char *const constraints[] = {
        "a % 3 != 1",                 /* tested when a is assigned: prunes a third */
        "(a * b) % 7 != 3",          /* when b is assigned */
        "a + b + c < 200 && c != a", /* when c is: every one of the remaining leaves */
        "n == 100",                   /* reads no parameter: tested once */
    };
    space *sp = fake_space_new(counts, 3, constraints, 4);
    CHECK(sp != NULL);
    if (!sp)
        return;
    CHECK(space_raw_size(sp) == 1000000);
    int64_t want = 0;
    for (int a = 0; a < 100; a++)
        for (int b = 0; b < 100; b++)
            for (int c = 0; c < 100; c++)
                want += a % 3 != 1 && (a * b) % 7 != 3 && a + b + c < 200 && c != a;
    space_binding bind = {"op", "f32", &sp->problems[0], NULL};
    char err[256];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t got = space_count(sp, &bind, err, sizeof err);
    double s = seconds_since(&t0);
    CHECK(got == want);
    CHECK(s < 1.0 * SANITIZER_SLOWDOWN);
    if (s >= 1.0 * SANITIZER_SLOWDOWN)
        fprintf(stderr, "  10^6 raw points took %.3f s\n", s);

    /* No constraint at all: every one of the 10^6 points comes out of the iterator. */
    space_free(sp);
    sp = fake_space_new(counts, 3, NULL, 0);
    CHECK(sp != NULL);
    if (!sp)
        return;
    bind.problem = &sp->problems[0];
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(space_count(sp, &bind, err, sizeof err) == 1000000);
    CHECK(seconds_since(&t0) < 1.0);
    space_free(sp);

    /* A constraint on the first parameter that keeps one value: the other 10^4 x 100 - 1 subtrees
     * are never expanded, so 10^8 raw points count in no time. */
    int big[4] = {10000, 100, 100, 1};
    const char *const first_only[] = {"a == 42", "b >= c"};
    sp = fake_space_new(big, 4, first_only, 2);
    CHECK(sp != NULL);
    if (!sp)
        return;
    CHECK(space_raw_size(sp) == 100000000);
    bind.problem = &sp->problems[0];
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(space_count(sp, &bind, err, sizeof err) == 5050);
    CHECK(seconds_since(&t0) < 0.1);
    space_free(sp);

    /* The raw size saturates instead of overflowing. */
    int huge[4] = {65536, 65536, 65536, 65536};
    sp = fake_space_new(huge, 4, NULL, 0);
    CHECK(sp && space_raw_size(sp) == INT64_MAX);
    space_free(sp);
}

int main(void)
{
    test_sha256();
    test_every_setting();
    test_minimal_defaults();
    test_device_constraints();
    test_config_text();
    test_pruning();
    test_iter_error();
    test_unpositioned_errors();
    test_million_points();
    return CHECK_DONE();
}

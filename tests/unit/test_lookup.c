/* test_lookup.c: unit tests (CPU only) of the tuned-config lookup (kernels/tuned_lookup.h) over
 * made-up device and entry tables: device match by exact name, then same compute capability
 * with the nearest SM count (ties: the larger), unknown devices; nearest problem size on a log
 * scale (ties: the smaller; sizes outside the table); missing op or dtype; and the cache
 * (tk_tuned_cache_*): values parsed against a space, one describe call per device, stable
 * pointers, bad entries skipped, devices out of range, threads racing on a fresh cache; the
 * cache's precomputed size bounds pick what tk_tuned_nearest picks for random tables (unsorted,
 * repeated, tiny and near-2^63 sizes) and random queries; whether all devices match alike
 * (tk_tuned_cache_uniform). Also the compiled-in (empty) header. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "tuned_lookup.h"

static const tk_tuned_device devs[] = {
    {"NVIDIA H100 80GB HBM3", 9, 0, 132, 0, 7},
    {"NVIDIA A100-SXM4-80GB", 8, 0, 108, 7, 2},
    {"NVIDIA H100 PCIe", 9, 0, 114, 9, 1},
    {"Made-up sm_90 with 123 SMs", 9, 0, 123, 10, 1},
};
enum { N_DEVS = 4 };

static const tk_tuned_entry entries[] = {
    /* H100 SXM */
    {"elementwise.gelu", "f32", 1048576, "block_size=128,loop=grid_stride,pack_size=4,waves=8"},
    {"elementwise.mul", "f16", 1024, "block_size=64,loop=one_shot,pack_size=8,waves=1"},
    {"elementwise.mul", "f16", 4096, "block_size=96,loop=one_shot,pack_size=8,waves=1"},
    {"elementwise.mul", "f32", 1024, "block_size=32,loop=one_shot,pack_size=4,waves=1"},
    {"elementwise.mul", "f32", 1048576, "block_size=256,loop=grid_stride,pack_size=4,waves=16"},
    {"elementwise.mul", "f32", 33554432, "block_size=512,loop=grid_stride,pack_size=4,waves=4"},
    {"elementwise.relu", "f32", 1000, "block_size=oops,loop=grid_stride,pack_size=4,waves=4"},
    /* A100 */
    {"elementwise.mul", "f32", 1048576, "block_size=1024,loop=grid_stride,pack_size=2,waves=2"},
    {"elementwise.mul", "f32", 33554432, "block_size=128,loop=one_shot,pack_size=1,waves=1"},
    /* H100 PCIe */
    {"elementwise.mul", "f32", 1048576, "block_size=64,loop=grid_stride,pack_size=2,waves=3"},
    /* made-up 123 SMs */
    {"elementwise.mul", "f32", 1048576, "block_size=32,loop=grid_stride,pack_size=1,waves=5"},
};

static void test_match_device(void)
{
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA H100 80GB HBM3", 9, 0, 132) == 0);
    /* the name wins over cc and SM count */
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA H100 PCIe", 8, 6, 1) == 2);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA A100-SXM4-80GB", 8, 0, 108) == 1);
    /* same cc, nearest SM count */
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA H800", 9, 0, 132) == 0);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA H20", 9, 0, 78) == 2);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA H200", 9, 0, 140) == 0);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "X", 9, 0, 120) == 3);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "X", 9, 0, 118) == 2);
    /* nearest either way round; exact ties (the larger SM count wins) in the table below */
    CHECK(tk_tuned_match_device(devs, N_DEVS, "X", 9, 0, 127) == 3); /* 123: 4, 132: 5 */
    CHECK(tk_tuned_match_device(devs, N_DEVS, "X", 9, 0, 128) == 0); /* 123: 5, 132: 4 */
    static const tk_tuned_device tie[] = {
        {"a", 9, 0, 100, 0, 0}, {"b", 9, 0, 110, 0, 0}, {"c", 9, 0, 90, 0, 0}};
    CHECK(tk_tuned_match_device(tie, 3, "z", 9, 0, 105) == 1);
    CHECK(tk_tuned_match_device(tie, 3, "z", 9, 0, 95) == 0);
    CHECK(tk_tuned_match_device(tie, 3, "z", 9, 0, 100) == 0);
    /* no device of that cc; minor version counts */
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA L4", 8, 9, 58) == -1);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "NVIDIA A10", 8, 6, 72) == -1);
    CHECK(tk_tuned_match_device(devs, N_DEVS, "B200", 10, 0, 148) == -1);
    CHECK(tk_tuned_match_device(devs, N_DEVS, NULL, 8, 0, 100) == 1);
    CHECK(tk_tuned_match_device(devs, 0, "NVIDIA H100 80GB HBM3", 9, 0, 132) == -1);
    CHECK(tk_tuned_match_device(NULL, 3, "NVIDIA H100 80GB HBM3", 9, 0, 132) == -1);
}

static void test_nearest(void)
{
    const tk_tuned_device *h100 = &devs[0];
    /* exact sizes */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 1024) == 3);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 1048576) == 4);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 33554432) == 5);
    /* log scale: 32768 is 32x above 1024 and 32x below 1 Mi: a tie -> the smaller */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 32768) == 3);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 32769) == 4);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 32767) == 3);
    /* linear distance would pick 1 Mi for 17 Mi; on a log scale 32 Mi is nearer (1.9x vs 17x) */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 17000000) == 5);
    /* 1 Mi .. 32 Mi: the geometric midpoint is 2^22.5 = 5931641.6 */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 5931641) == 4);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 5931642) == 5);
    /* out of range on both sides, and degenerate sizes */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 1) == 3);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", 0) == 3);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", -5) == 3);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", (int64_t)1 << 40) == 5);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f32", INT64_MAX) == 5);
    /* f16 entries: 2048 is 2x from both -> the smaller */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f16", 2048) == 1);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "f16", 2049) == 2);
    /* a single entry answers every size */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.gelu", "f32", 7) == 0);
    /* missing op or dtype, or another device's entries */
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.add", "f32", 1024) == -1);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mul", "bf16", 1024) == -1);
    CHECK(tk_tuned_nearest(entries, h100, "elementwise.mu", "f32", 1024) == -1);
    CHECK(tk_tuned_nearest(entries, &devs[1], "elementwise.mul", "f32", 1024) == 7);
    CHECK(tk_tuned_nearest(entries, &devs[1], "elementwise.gelu", "f32", 1024) == -1);
    CHECK(tk_tuned_nearest(entries, &devs[2], "elementwise.mul", "f32", 33554432) == 9);
    CHECK(tk_tuned_nearest(NULL, h100, "elementwise.mul", "f32", 1024) == -1);
    CHECK(tk_tuned_nearest(entries, NULL, "elementwise.mul", "f32", 1024) == -1);
    CHECK(tk_tuned_nearest(entries, h100, NULL, "f32", 1024) == -1);
}

/* ---- the cache, over a made-up device per ordinal ---- */

static int describe_calls;

/* Ordinal 0: an H100 SXM, 1: an H800 (same cc, 132 SMs), 2: an A100 40GB (108 SMs by cc),
 * 3: an RTX 4090 (cc 8.9: no match); any other ordinal fails. */
static int describe_fake(int dev, char *name, size_t len, int *major, int *minor, int *sms)
{
    static const struct { const char *name; int major, minor, sms; } fake[] = {
        {"NVIDIA H100 80GB HBM3", 9, 0, 132}, {"NVIDIA H800", 9, 0, 132},
        {"NVIDIA A100-PCIE-40GB", 8, 0, 108}, {"NVIDIA GeForce RTX 4090", 8, 9, 128}};
    describe_calls++;
    if (dev < 0 || dev >= 4) return -1;
    strncpy(name, fake[dev].name, len - 1);
    name[len - 1] = '\0';
    *major = fake[dev].major;
    *minor = fake[dev].minor;
    *sms = fake[dev].sms;
    return 0;
}

static const int64_t pack_values[] = {1, 2, 4, 8};
static const char *const loops[] = {"grid_stride", "one_shot"};
static const tk_param_desc ew_params[] = {
    {"block_size", 0, 0, NULL, NULL, 32, 1024, 32, 256},
    {"loop", 1, 2, NULL, loops, 0, 0, 0, 0},
    {"pack_size", 1, 4, pack_values, NULL, 0, 0, 0, 4},
    {"waves", 0, 0, NULL, NULL, 1, 1024, 1, 32},
};
static const tk_config_space ew_space = {"elementwise", 4, ew_params};

static void test_cache(void)
{
    /* op and dtype keys are pointers: use one literal per key, as the library does */
    static const char mul[] = "elementwise.mul", gelu[] = "elementwise.gelu",
                      relu[] = "elementwise.relu", add[] = "elementwise.add";
    static const char f32[] = "f32", f16[] = "f16";
    tk_tuned_cache *c = tk_tuned_cache_new(devs, N_DEVS, entries, describe_fake);
    CHECK(c != NULL);
    if (!c) return;
    describe_calls = 0;

    const int64_t *v = tk_tuned_cache_values(c, 0, &ew_space, mul, f32, 1 << 20);
    CHECK(v && v[0] == 256 && v[1] == 0 && v[2] == 4 && v[3] == 16);
    CHECK(describe_calls == 1);
    const int64_t *again = tk_tuned_cache_values(c, 0, &ew_space, mul, f32, 1 << 20);
    CHECK(again == v);
    v = tk_tuned_cache_values(c, 0, &ew_space, mul, f32, 100);
    CHECK(v && v[0] == 32 && v[1] == 1 && v[2] == 4 && v[3] == 1);
    v = tk_tuned_cache_values(c, 0, &ew_space, mul, f32, 32768); /* tie -> smaller */
    CHECK(v && v[0] == 32);
    v = tk_tuned_cache_values(c, 0, &ew_space, mul, f32, (int64_t)1 << 40);
    CHECK(v && v[0] == 512 && v[3] == 4);
    v = tk_tuned_cache_values(c, 0, &ew_space, mul, f16, 3000);
    CHECK(v && v[0] == 96 && v[2] == 8);
    v = tk_tuned_cache_values(c, 0, &ew_space, gelu, f32, 5);
    CHECK(v && v[0] == 128 && v[3] == 8);
    /* missing op, and an entry whose config does not parse: absent */
    CHECK(tk_tuned_cache_values(c, 0, &ew_space, add, f32, 1000) == NULL);
    CHECK(tk_tuned_cache_values(c, 0, &ew_space, relu, f32, 1000) == NULL);
    CHECK(describe_calls == 1);

    /* same cc, nearest SM count: ordinal 1 (H800, 132 SMs) gets the H100 SXM entries */
    v = tk_tuned_cache_values(c, 1, &ew_space, mul, f32, 1 << 20);
    CHECK(v && v[0] == 256 && v[3] == 16);
    /* ordinal 2: A100 by cc */
    v = tk_tuned_cache_values(c, 2, &ew_space, mul, f32, 1 << 25);
    CHECK(v && v[0] == 128 && v[1] == 1 && v[2] == 1);
    CHECK(describe_calls == 3);
    /* ordinal 3: no match, cached as such */
    CHECK(tk_tuned_cache_values(c, 3, &ew_space, mul, f32, 1 << 20) == NULL);
    CHECK(tk_tuned_cache_values(c, 3, &ew_space, gelu, f32, 1 << 20) == NULL);
    CHECK(describe_calls == 4);
    /* ordinal 4: describe fails, nothing cached (asked again next time) */
    CHECK(tk_tuned_cache_values(c, 4, &ew_space, mul, f32, 1 << 20) == NULL);
    CHECK(tk_tuned_cache_values(c, 4, &ew_space, mul, f32, 1 << 20) == NULL);
    CHECK(describe_calls == 6);
    /* ordinals outside 0..63 and NULL arguments */
    CHECK(tk_tuned_cache_values(c, 64, &ew_space, mul, f32, 1 << 20) == NULL);
    CHECK(tk_tuned_cache_values(c, -1, &ew_space, mul, f32, 1 << 20) == NULL);
    CHECK(tk_tuned_cache_values(c, 0, NULL, mul, f32, 1 << 20) == NULL);
    CHECK(tk_tuned_cache_values(c, 0, &ew_space, NULL, f32, 1 << 20) == NULL);
    CHECK(tk_tuned_cache_values(NULL, 0, &ew_space, mul, f32, 1 << 20) == NULL);
    CHECK(describe_calls == 6);

    /* many distinct keys (more than the 256 slots) neither crash nor disturb the others */
    static char names[300][16];
    int found = 0;
    for (int i = 0; i < 300; i++) {
        snprintf(names[i], sizeof names[i], "op%d", i);
        found += tk_tuned_cache_values(c, 0, &ew_space, names[i], f32, 1) != NULL;
    }
    CHECK(found == 0);
    v = tk_tuned_cache_values(c, 0, &ew_space, mul, f32, 1 << 20);
    CHECK(v && v[0] == 256 && v[3] == 16);
    tk_tuned_cache_free(c);

    /* an empty table: nothing matches */
    tk_tuned_cache *e = tk_tuned_cache_new(NULL, 0, NULL, describe_fake);
    CHECK(e != NULL);
    CHECK(tk_tuned_cache_values(e, 0, &ew_space, mul, f32, 1 << 20) == NULL);
    tk_tuned_cache_free(e);
    CHECK(tk_tuned_cache_new(devs, N_DEVS, entries, NULL) == NULL);
}

/* Several threads racing on a fresh cache see the same arrays, and each device is described
 * once (describe runs under the cache's mutex, so the plain counter is safe). */
enum { RACE_THREADS = 8, RACE_ROUNDS = 2000 };
static tk_tuned_cache *race_cache;
static const int64_t *race_seen[RACE_THREADS][3][2];

static void *race_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    static const char mul[] = "elementwise.mul", gelu[] = "elementwise.gelu";
    for (int round = 0; round < RACE_ROUNDS; round++)
        for (int d = 0; d < 3; d++) {
            race_seen[t][d][0] = tk_tuned_cache_values(race_cache, d, &ew_space, mul, "f32", 4096);
            race_seen[t][d][1] = tk_tuned_cache_values(race_cache, d, &ew_space, gelu, "f32", 1);
        }
    return NULL;
}

static void test_cache_threads(void)
{
    race_cache = tk_tuned_cache_new(devs, N_DEVS, entries, describe_fake);
    CHECK(race_cache != NULL);
    if (!race_cache) return;
    describe_calls = 0;
    pthread_t th[RACE_THREADS];
    int started = 0;
    for (int t = 0; t < RACE_THREADS; t++)
        started += pthread_create(&th[t], NULL, race_worker, (void *)(intptr_t)t) == 0;
    CHECK(started == RACE_THREADS);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    int same = 1;
    for (int t = 1; t < started; t++)
        same &= memcmp(race_seen[t], race_seen[0], sizeof race_seen[0]) == 0;
    CHECK(same);
    CHECK(race_seen[0][0][0] && race_seen[0][0][0][0] == 32);  /* 4096: nearer 1024 than 1 Mi */
    CHECK(race_seen[0][1][1] && race_seen[0][1][1][0] == 128); /* H800 -> H100's gelu */
    CHECK(race_seen[0][2][1] == NULL);                          /* A100 has no gelu entry */
    CHECK(describe_calls == 3);
    tk_tuned_cache_free(race_cache);
}

/* tk_tuned_cache_uniform over the fake ordinals: 0 (H100) and 1 (H800) match the same tuned
 * device; 2 (A100) another; 4 cannot be described. The first answer sticks. */
static void test_cache_uniform(void)
{
    struct { int n, want; } cases[] = {{1, 1}, {2, 1}, {3, 0}, {5, 0}, {0, 0}, {65, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tk_tuned_cache *c = tk_tuned_cache_new(devs, N_DEVS, entries, describe_fake);
        CHECK(c != NULL);
        if (!c) return;
        describe_calls = 0;
        CHECK(tk_tuned_cache_uniform(c, cases[k].n) == cases[k].want);
        const int calls = describe_calls;
        CHECK(tk_tuned_cache_uniform(c, 2) == cases[k].want); /* asked once */
        CHECK(describe_calls == calls);
        tk_tuned_cache_free(c);
    }
    CHECK(tk_tuned_cache_uniform(NULL, 1) == 0);
    /* ordinal 3 (RTX 4090) matches nothing: one device matching nothing is uniform too */
    static const tk_tuned_device only_a100[] = {{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 7, 2}};
    tk_tuned_cache *c = tk_tuned_cache_new(only_a100, 1, entries, describe_fake);
    CHECK(c && tk_tuned_cache_uniform(c, 2) == 1); /* H100 and H800: neither matches */
    tk_tuned_cache_free(c);
}

static void test_compiled_header(void)
{
    /* an empty header (the committed one) gives no tuned values, without asking CUDA; a
     * generated one has at least one entry per device */
    if (tk_tuned_device_count() == 0)
        CHECK(tk_tuned_values(&ew_space, "elementwise.mul", "f32", 1 << 20) == NULL);
    else
        CHECK(tk_tuned_entry_count() >= tk_tuned_device_count());
}

/* xorshift64*: deterministic random numbers for the equivalence test */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* A random size: often small, sometimes near the int64 limit, sometimes 0 or negative. */
static int64_t random_size(void)
{
    switch (rng() % 6) {
    case 0: return (int64_t)(rng() % 4) - 1;
    case 1: return (int64_t)(rng() >> 1);
    case 2: return (int64_t)(rng() % 100);
    default: return (int64_t)(rng() % ((uint64_t)1 << (rng() % 40)));
    }
}

/* The cache (bounds between neighbouring sizes) and tk_tuned_nearest (a scan with exact
 * cross-multiplication) agree: each table's i-th entry's config carries i in block_size. */
static void test_cache_matches_nearest(void)
{
    static const char op[] = "elementwise.mul", f32[] = "f32";
    static char configs[16][96];
    for (int i = 0; i < 16; i++)
        snprintf(configs[i], sizeof configs[i],
                 "block_size=%d,loop=grid_stride,pack_size=4,waves=1", 32 * (i + 1));
    int mismatches = 0, queries = 0;
    for (int table = 0; table < 400; table++) {
        tk_tuned_entry es[16];
        const int n = 1 + (int)(rng() % 16);
        for (int i = 0; i < n; i++) {
            int64_t size = random_size();
            if (i > 0 && rng() % 5 == 0) size = es[rng() % i].size; /* a repeat */
            es[i] = (tk_tuned_entry){op, f32, size, configs[i]};
        }
        const tk_tuned_device dev[1] = {{"NVIDIA H100 80GB HBM3", 9, 0, 132, 0, n}};
        tk_tuned_cache *c = tk_tuned_cache_new(dev, 1, es, describe_fake);
        CHECK(c != NULL);
        if (!c) return;
        for (int q = 0; q < 200; q++) {
            int64_t s = random_size();
            if (q < 2 * n) { /* at and around the table's own sizes and their midpoints */
                const int64_t a = es[q % n].size, b = es[(q + 1) % n].size;
                s = q & 1 ? a + (int64_t)(rng() % 3) - 1 : a / 2 + b / 2;
            }
            const int want = tk_tuned_nearest(es, &dev[0], op, f32, s);
            const int64_t *v = tk_tuned_cache_values(c, 0, &ew_space, op, f32, s);
            queries++;
            if (want < 0 || !v || v[0] != 32 * (want + 1)) {
                if (mismatches++ < 5)
                    fprintf(stderr, "table %d size %lld: nearest entry %d, cache block_size %lld\n",
                            table, (long long)s, want, v ? (long long)v[0] : -1LL);
            }
        }
        tk_tuned_cache_free(c);
    }
    CHECK(queries == 400 * 200);
    CHECK(mismatches == 0);
}

int main(void)
{
    test_match_device();
    test_nearest();
    test_cache();
    test_cache_threads();
    test_cache_matches_nearest();
    test_cache_uniform();
    test_compiled_header();
    return CHECK_DONE();
}

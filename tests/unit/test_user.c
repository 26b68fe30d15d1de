/* test_user.c: user kernels without a GPU or a compiler: the element types, reading a kernel's
 * parameters and launch bounds (.maxntid) out of PTX (alignment, byte arrays, names that prefix
 * each other, declarations), and what a loaded user space evaluates for a binding and a config:
 * NVRTC options and name expressions (defines, templates from ctype), launch geometry, bytes and
 * elements, tolerances, structs passed by value (their layout per dtype, their pointers, their
 * values' ranges), clusters and cooperative launches against the device, and the family the
 * loader attaches (parent side). */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include "space/space.h"
#include "space/space_user.h"
#include "build/ptx.h"
#include "ops/user_kernel.h"

static void test_types(void)
{
    CHECK(su_type_parse("f32") == SU_F32 && su_type_parse("u64") == SU_U64);
    CHECK(su_type_parse("f24") == -1 && su_type_parse(NULL) == -1);
    CHECK(su_type_size(SU_BF16) == 2 && su_type_size(SU_I64) == 8 && su_type_size(99) == 0);
    CHECK_STR(su_type_ctype(SU_F16), "__half");
    CHECK_STR(su_ctype_of("bf16"), "__nv_bfloat16");
    CHECK_STR(su_ctype_of("x"), "");
    CHECK(su_type_is_float(SU_F64) && !su_type_is_float(SU_U8));
    CHECK(su_is_identifier("block_size") && su_is_identifier("_x1"));
    CHECK(!su_is_identifier("1x") && !su_is_identifier("a-b") && !su_is_identifier(""));
}

static const char ptx[] =
    ".version 8.8\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry sgemm2(\n\t.param .u64 sgemm2_param_0\n)\n{\n\tret;\n}\n"
    ".visible .entry sgemm(\n"
    "\t.param .u64 .ptr .align 1 sgemm_param_0,\n"
    "\t.param .f32 sgemm_param_1,\n"
    "\t.param .align 16 .b8 sgemm_param_2[48],\n"
    "\t.param .u16 sgemm_param_3,\n"
    "\t.param .s64 sgemm_param_4\n"
    ")\n.maxntid 256, 1, 1\n{\n\tret;\n}\n"
    ".visible .entry empty()\n{\n\tret;\n}\n";

static void test_ptx(void)
{
    int sizes[8];
    CHECK(ptx_entry_params(ptx, "sgemm", sizes, 8) == 5);
    CHECK(sizes[0] == 8 && sizes[1] == 4 && sizes[2] == 48 && sizes[3] == 2 && sizes[4] == 8);
    CHECK(ptx_entry_params(ptx, "sgemm2", sizes, 8) == 1 && sizes[0] == 8);
    CHECK(ptx_entry_params(ptx, "empty", sizes, 8) == 0);
    CHECK(ptx_entry_params(ptx, "sgem", sizes, 8) == -1);
    CHECK(ptx_entry_params(ptx, "missing", sizes, 8) == -1);
    CHECK(ptx_entry_params(ptx, "sgemm", sizes, 2) == 2);   /* bounded by max */
    /* __launch_bounds__: .maxntid between the parameter list and the body, its numbers'
     * product; none for a kernel without; the next kernel's bound is not this one's */
    CHECK(ptx_entry_max_threads(ptx, "sgemm") == 256);
    CHECK(ptx_entry_max_threads(ptx, "sgemm2") == 0);
    CHECK(ptx_entry_max_threads(ptx, "empty") == 0);
    CHECK(ptx_entry_max_threads(ptx, "missing") == -1);
    static const char bounds[] =
        ".extern .entry decl(\n\t.param .u64 decl_param_0\n);\n"
        ".visible .entry tile(\n\t.param .u64 tile_param_0\n)\n.maxntid 16, 8, 2\n"
        ".minnctapersm 4\n{\n\tret;\n}\n"
        ".visible .entry one()\n.maxntid 64\n{\n\tret;\n}\n";
    CHECK(ptx_entry_max_threads(bounds, "decl") == 0);   /* a declaration: up to its ';' */
    CHECK(ptx_entry_max_threads(bounds, "tile") == 256);
    CHECK(ptx_entry_max_threads(bounds, "one") == 64);
}

static space *load(const char *path)
{
    char err[1024];
    space *sp = user_space_load(path, NULL, err, sizeof err);
    if (!sp)
        fprintf(stderr, "%s\n", err);
    return sp;
}

static void test_saxpy(void)
{
    space *sp = load("examples/vector/saxpy.yaml");
    CHECK(sp && sp->user && sp->family);
    if (!sp)
        return;
    CHECK_STR(sp->kernel, "vector");
    CHECK_STR(sp->ops[0], "saxpy");
    CHECK(sp->n_dtypes == 1 && strcmp(sp->dtypes[0], "f32") == 0);
    CHECK(sp->n_fields == 1 && strcmp(sp->fields[0].name, "n") == 0);
    CHECK(strlen(space_user_hash(sp->user)) == 16);
    device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 9;
    dev.max_threads_per_block = 1024;
    dev.mem_bytes = 80LL << 30;
    space_binding b = {"saxpy", "f32", &sp->problems[1], &dev};   /* n = 16 Mi */
    int choice[2];
    char err[1024];
    CHECK(space_config_parse(sp, "block_size=256,items=4", choice) == 0);
    su_compile c;
    CHECK(space_user_compile(sp, &b, choice, &sp->user->kernel, 1, &c, err, sizeof err) == 0);
    CHECK(c.n_options == 4);
    if (c.n_options == 4) {
        CHECK_STR(c.options[0], "-std=c++17");
        CHECK_STR(c.options[1], "-Iexamples/vector");
        CHECK_STR(c.options[2], "-DBLOCK=256");
        CHECK_STR(c.options[3], "-DITEMS=4");
    }
    CHECK(c.n_kernels == 1 && c.n_symbols == 0);
    CHECK_STR(c.kernels[0], "saxpy");
    su_compile_clear(&c);
    su_geometry l;
    CHECK(space_user_geometry(sp, &b, choice, &sp->user->kernel.launches[0], &l, err, sizeof err) == 0);
    CHECK(l.grid[0] == 16777216 / 1024 && l.grid[1] == 1 && l.grid[2] == 1);
    CHECK(l.block[0] == 256 && l.block[1] == 1 && l.shared == 0);
    /* y is read and written (initialised output), x read once */
    CHECK(space_user_bytes(sp, &b, choice, err, sizeof err) == 3LL * 4 * 16777216);
    CHECK(space_user_elements(sp, &b, choice, err, sizeof err) == 16777216);
    CHECK(sp->family->bytes_moved(sp->family, "saxpy", "f32", &sp->problems[0]) ==
          3LL * 4 * 1048576);
    CHECK(sp->family->size_key(sp->family, &sp->problems[0]) == 1048576);
    char text[256];
    CHECK(sp->family->default_config(sp->family, "f32", text, sizeof text) == 0);
    CHECK_STR(text, "block_size=128,items=1");   /* the reference config */
    CHECK(space_user_check(sp, &dev, err, sizeof err) == 0);
    dev.mem_bytes = 100 << 20;   /* 100 MB: n = 16 Mi floats need 3 x 64 MB + x */
    CHECK(space_user_check(sp, &dev, err, sizeof err) == -1);
    CHECK(strstr(err, "the GPU has 0.10 GB") != NULL);
    user_space_free(sp);
}

static void test_templated(void)
{
    space *sp = load("examples/vector/scale_shift.yaml");
    CHECK(sp && sp->user);
    if (!sp)
        return;
    CHECK(sp->n_dtypes == 2);
    CHECK(sp->user->ref == SU_REF_KERNEL);
    device_info dev;
    memset(&dev, 0, sizeof dev);
    space_binding b = {"scale_shift", "f16", &sp->problems[0], &dev};
    int choice[2];
    char err[1024];
    CHECK(space_config_parse(sp, "block_size=512,items=2", choice) == 0);
    su_compile c;
    CHECK(space_user_compile(sp, &b, choice, &sp->user->kernel, 1, &c, err, sizeof err) == 0);
    CHECK_STR(c.kernels[0], "scale_shift<__half, 512, 2>");
    CHECK(c.n_options == 2);   /* no defines: only the standard and the source's folder */
    su_compile_clear(&c);
    CHECK(space_user_compile(sp, &b, NULL, &sp->user->ref_kernel, 1, &c, err, sizeof err) == 0);
    CHECK_STR(c.kernels[0], "scale_shift_reference<__half>");
    su_compile_clear(&c);
    /* y is a pure output: poisoned, written once; x read once; 2 bytes each in f16 */
    CHECK(space_user_bytes(sp, &b, choice, err, sizeof err) == 2LL * 2 * 4194304);
    double atol, rtol;
    space_user_tolerance(&sp->user->args[0], "f16", &atol, &rtol);
    CHECK(atol == 1e-3 && rtol == 1e-3);
    space_user_tolerance(&sp->user->args[0], "f32", &atol, &rtol);
    CHECK(atol == 1e-5 && rtol == 1e-5);
    user_space_free(sp);
}

static void test_every_key(void)
{
    space *sp = load("tests/cases/valid/user_every_key.yaml");
    CHECK(sp != NULL);
    if (!sp)
        return;
    const space_user *u = sp->user;
    CHECK_STR(sp->kernel, "every_key_case");
    CHECK(u->n_args == 5 && u->args[0].init == SU_INIT_CONSTANT && u->args[1].init == SU_INIT_ARANGE);
    double atol, rtol;
    space_user_tolerance(&u->args[0], "f32", &atol, &rtol);
    CHECK(atol == 0.01 && rtol == 0.001);
    space_user_tolerance(&u->args[0], "f16", &atol, &rtol);
    CHECK(atol == 0.02 && rtol == 1e-3);   /* rel: the f16 default */
    CHECK(u->peer && strstr(u->peer, "user_every_key.py"));
    device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 9;
    dev.max_threads_per_block = 1024;
    space_binding b = {"every_key", "f16", &sp->problems[0], &dev};
    int choice[2];
    char err[1024];
    CHECK(space_config_parse(sp, "block=128,unroll=3", choice) == 0);
    su_compile c;
    CHECK(space_user_compile(sp, &b, choice, &u->kernel, 1, &c, err, sizeof err) == 0);
    int found = 0;
    for (int i = 0; i < c.n_options; i++)
        found += strcmp(c.options[i], "-DUNROLL=3") == 0 || strcmp(c.options[i], "-DNAME=case") == 0 ||
                 strcmp(c.options[i], "-Itests/cases/valid/user_include") == 0 ||
                 strcmp(c.options[i], "--use_fast_math") == 0;
    CHECK(found == 4);
    CHECK_STR(c.kernels[0], "every_key<__half, 128>");
    su_compile_clear(&c);
    su_geometry l;
    CHECK(space_user_geometry(sp, &b, choice, &u->kernel.launches[0], &l, err, sizeof err) == 0);
    CHECK(l.grid[0] == 8 && l.shared == 128 * 2);
    CHECK(space_user_bytes(sp, &b, choice, err, sizeof err) == 3 * 1000 * 2 + 4 * 1000);
    value v;
    CHECK(space_user_eval(sp, &b, choice, &u->args[3].value, &v, err, sizeof err) == 0 &&
          v.kind == VALUE_FLOAT && v.f == 0.25);
    /* the included header is part of the kernel's files */
    char **files = NULL;
    int n = su_kernel_files(&u->kernel, &files, err, sizeof err);
    CHECK(n == 2 && strstr(files[1], "user_include/user_helpers.cuh"));
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
    user_space_free(sp);
}

/* struct arguments: the layout (offsets as nvcc lays out the C struct, which
 * tests/cases/valid/user_struct.cu declares; checked against offsetof() once), for three dtypes,
 * the pointed-to buffers out of the parameter list, the by-value sizes and the value checks */
typedef struct leaves {
    int n;
    size_t offset[32];
    int type[32];
} leaves;

static int collect(void *ctx, const su_field *f, int element, int type, size_t offset)
{
    (void)f;
    (void)element;
    leaves *l = ctx;
    if (l->n < 32) {
        l->offset[l->n] = offset;
        l->type[l->n] = type;
    }
    l->n++;
    return 0;
}

static void test_struct(void)
{
    space *sp = load("tests/cases/valid/user_struct.yaml");
    CHECK(sp != NULL);
    if (!sp)
        return;
    const space_user *u = sp->user;
    CHECK(u->n_args == 5 && u->args[1].record && !u->args[0].record && u->args[1].type == -1);
    /* y and x are reached through a's pointers: the kernel takes a, flag and beta */
    const su_launch_spec *l = &u->kernel.launches[0];
    CHECK(l->n_args == 3 && l->args[0] == 1 && l->args[1] == 2 && l->args[2] == 3);
    CHECK(su_arg_pointed_to(u, 0) && su_arg_pointed_to(u, 4) && !su_arg_pointed_to(u, 2));
    static const size_t f32_off[] = {0, 4, 8, 16, 32, 36, 40, 48, 56, 64};
    static const size_t f16_off[] = {0, 2, 8, 16, 32, 36, 40, 48, 56, 64};
    static const size_t f64_off[] = {0, 8, 16, 24, 32, 36, 40, 48, 56, 64};
    const size_t *want[] = {f32_off, f16_off, f64_off};
    const int dtypes[] = {SU_F32, SU_F16, SU_F64};
    for (int d = 0; d < 3; d++) {
        leaves got = {0};
        size_t size = 0, align = 0;
        CHECK(su_struct_layout(u->args[1].record, dtypes[d], &size, &align, collect, &got) == 0);
        CHECK(size == 80 && align == 16 && got.n == 10);
        for (int i = 0; i < 10 && i < got.n; i++)
            CHECK(got.offset[i] == want[d][i]);
        CHECK(got.type[1] == dtypes[d] && got.type[7] == -1 && got.type[3] == SU_I64);
    }
    /* align: on a value is alignas on the member (where it starts, not its size); on a struct,
     * an aligned type (its size rounds up): struct { alignas(16) float a; float b; } is 16 bytes
     * with b at 4, struct __align__(16) { float c[3]; } is 16 bytes */
    {
        su_field m[2] = {{.kind = SU_FIELD_VALUE, .type = SU_F32, .n = 1, .align = 16},
                         {.kind = SU_FIELD_VALUE, .type = SU_F32, .n = 1}};
        su_field rec = {.kind = SU_FIELD_STRUCT, .n = 2, .members = m};
        leaves got = {0};
        size_t sz = 0, al = 0;
        CHECK(su_struct_layout(&rec, -1, &sz, &al, collect, &got) == 0);
        CHECK(sz == 16 && al == 16 && got.n == 2 && got.offset[1] == 4);
        su_field c3 = {.kind = SU_FIELD_VALUE, .type = SU_F32, .n = 3, .is_array = 1};
        su_field inner = {.kind = SU_FIELD_STRUCT, .n = 1, .members = &c3, .align = 16};
        su_field outer = {.kind = SU_FIELD_STRUCT, .n = 1, .members = &inner};
        CHECK(su_struct_layout(&outer, -1, &sz, &al, NULL, NULL) == 0 && sz == 16 && al == 16);
    }
    /* a dtype field without an element dtype has no layout */
    size_t size, align;
    CHECK(su_struct_layout(u->args[1].record, -1, &size, &align, NULL, NULL) == -1);
    /* sizes as parameters: the struct's, a bool's byte, a dtype scalar's element */
    device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 9;
    char err[1024];
    space_binding b = {"apply", "f16", &sp->problems[0], &dev};
    CHECK(space_user_value_size(sp, &b, &u->args[1], &size, err, sizeof err) == 0 && size == 80);
    CHECK(space_user_value_size(sp, &b, &u->args[2], &size, err, sizeof err) == 0 && size == 1);
    CHECK(space_user_value_size(sp, &b, &u->args[3], &size, err, sizeof err) == 0 && size == 2);
    CHECK(space_user_value_size(sp, &b, &u->args[0], &size, err, sizeof err) == 0 && size == 8);
    int choice[1] = {0};
    CHECK(space_user_scalar_check(sp, &b, choice, &u->args[1], err, sizeof err) == 0);
    CHECK(space_user_scalar_check(sp, &b, choice, &u->args[3], err, sizeof err) == 0);
    /* values that do not fit their type: n (5000) in the i8 field tag, in the bool flag */
    su_field *rec = u->args[1].record;
    su_expr keep = rec->members[0].values[0];
    rec->members[0].values[0] = rec->members[6].values[0];
    CHECK(space_user_scalar_check(sp, &b, choice, &u->args[1], err, sizeof err) == -1);
    CHECK(strstr(err, "kernel.args a.struct tag: 5000 does not fit in i8") != NULL);
    rec->members[0].values[0] = keep;
    su_arg *flag = (su_arg *)&u->args[2];
    keep = flag->value;
    flag->value = rec->members[6].values[0];
    CHECK(space_user_scalar_check(sp, &b, choice, flag, err, sizeof err) == -1);
    CHECK(strstr(err, "kernel.args flag.value: 5000 does not fit in bool (0 or 1)") != NULL);
    flag->value = keep;
    user_space_free(sp);

    /* pointer arguments: a buffer passed a second time stays a parameter of its own; null */
    if (!(sp = load("tests/gpu/user/struct_echo.yaml")))
        return;
    u = sp->user;
    l = &u->kernel.launches[0];
    CHECK(u->n_args == 7 && u->args[3].is_pointer && u->args[4].is_pointer);
    CHECK(l->n_args == 5 && l->args[3] == 3 && l->args[4] == 4);   /* a, flag, beta, x_again, none */
    CHECK(u->args[3].record->members[0].buffer == 5 && u->args[4].record->members[0].buffer == -1);
    CHECK(su_arg_pointed_to(u, 5) && su_arg_pointed_to(u, 6));   /* through a's fields */
    CHECK(space_user_value_size(sp, &b, &u->args[3], &size, err, sizeof err) == 0 && size == 8);
    user_space_free(sp);
}

/* thread block clusters and cooperative launches: read from the corpus's spaces, evaluated,
 * and held against the device (compute capability, whole clusters, at most 16 blocks) */
static void test_launch_attributes(void)
{
    space *sp = load("tests/corpus/cluster_reduce/cluster_reduce.yaml");
    CHECK(sp != NULL);
    if (!sp)
        return;
    const su_launch_spec *l = &sp->user->kernel.launches[0];
    CHECK(l->cluster_dims == 1 && !l->cooperative);
    device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 9;
    dev.max_threads_per_block = 1024;
    space_binding b = {"cluster_sum", "f32", &sp->problems[0], &dev};
    int choice[4];
    char err[1024], why[400];
    CHECK(space_config_parse(sp, "cl=8,items=4,n_short=0,threads=256", choice) == 0);
    su_geometry g;
    CHECK(space_user_geometry(sp, &b, choice, l, &g, err, sizeof err) == 0);
    CHECK(g.cluster[0] == 8 && g.cluster[1] == 1 && g.cluster[2] == 1 && g.grid[0] % 8 == 0);
    CHECK(su_geometry_fits(&g, &dev, why, sizeof why) == 1);
    int what = -1;
    g.grid[0] += 1;   /* not whole clusters */
    CHECK(su_geometry_fits_at(&g, &dev, &what, why, sizeof why) == 0 && what == SU_LIMIT_CLUSTER);
    CHECK(strstr(why, "not a multiple of cluster.x (8)") != NULL);
    g.grid[0] = 64;
    g.cluster[0] = 32;   /* beyond 16 blocks */
    CHECK(su_geometry_fits(&g, &dev, why, sizeof why) == 0 && strstr(why, "at most 16 (8 portable)"));
    g.cluster[0] = 16;
    CHECK(su_geometry_fits(&g, &dev, why, sizeof why) == 1);
    dev.cc_major = 8;   /* an A100 has no clusters */
    CHECK(su_geometry_fits(&g, &dev, why, sizeof why) == 0 && strstr(why, "compute capability 9.0"));
    user_space_free(sp);

    if (!(sp = load("tests/corpus/grid_sync/grid_sync.yaml")))
        return;
    l = &sp->user->kernel.launches[0];
    CHECK(l->cooperative == 1 && l->cluster_dims == 0);
    dev.cc_major = 9;
    dev.sm_count = 132;
    space_binding b2 = {"sumsq_persistent", "f32", &sp->problems[0], &dev};
    CHECK(space_config_parse(sp, "block=256,blocks_per_sm=4,n_short=0", choice) == 0);
    CHECK(space_user_geometry(sp, &b2, choice, l, &g, err, sizeof err) == 0);
    CHECK(g.cooperative == 1 && g.grid[0] == 528 && g.cluster[0] == 0);
    CHECK(su_geometry_fits(&g, &dev, why, sizeof why) == 1);
    user_space_free(sp);
}

int main(void)
{
    test_types();
    test_ptx();
    test_saxpy();
    test_templated();
    test_every_key();
    test_struct();
    test_launch_attributes();
    return CHECK_DONE();
}

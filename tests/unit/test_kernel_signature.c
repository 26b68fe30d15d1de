/* test_kernel_signature.c: a kernel's parameter types read from its lowered name (C++ linkage,
 * templates resolved, function pointers, no parameters, extern "C"), and which buffers a
 * pointer parameter takes: a scalar floating pointee only its own format; integers and vectors
 * (reinterpretations) and void*, char* or a type of the program's anything. */
#include "check.h"

#include "build/kernel_signature.h"

static void expect_params(const char *lowered, int want_rc, const char *joined)
{
    char **t = NULL, got[1024] = "";
    int n = -1;
    CHECK(kernel_signature_params(lowered, &t, &n) == want_rc);
    for (int i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " | " : "", t[i]);
    CHECK_STR(got, joined);
    kernel_signature_free(t, n);
}

static void test_params(void)
{
    expect_params("_Z5twiceP13__nv_bfloat16PKS_i", 0,
                  "__nv_bfloat16* | __nv_bfloat16 const* | int");
    expect_params("_Z5scaleIfLi4EEvPT_PKS0_x", 0, "float* | float const* | long long");
    expect_params("_ZN2ns1kEPFvPfiEPS1_", 0, "void (*)(float*, int) | void (*)(float*, int)");
    expect_params("_Z2k2v", 0, "");
    expect_params("saxpy", 1, "");             /* extern "C": no types */
    expect_params("_Zgarbage", 1, "");
}

static int takes(const char *param, const char *elem, const char *want_pointee)
{
    char pointee[128] = "";
    int r = kernel_pointer_takes(param, elem, pointee, sizeof pointee);
    if (want_pointee)
        CHECK_STR(pointee, want_pointee);
    return r;
}

static void test_takes(void)
{
    CHECK(takes("float*", "f32", NULL));
    CHECK(takes("float const*", "f32", NULL));
    CHECK(takes("__half*", "f16", NULL));
    CHECK(takes("__nv_bfloat16 const volatile*", "bf16", NULL));
    CHECK(takes("double*", "f64", NULL));
    /* reinterpretations kernels make on purpose: integers and vectors */
    CHECK(takes("float4 const*", "f32", NULL));
    CHECK(takes("float4*", "f16", NULL));             /* 16-byte loads of halves */
    CHECK(takes("uint4 const volatile*", "bf16", NULL));
    CHECK(takes("unsigned short*", "f16", NULL));     /* uint16_t * over f16 */
    CHECK(takes("unsigned int*", "f16", NULL));       /* packed pairs */
    CHECK(takes("__half2*", "f16", NULL));
    CHECK(takes("unsigned int*", "i32", NULL));
    CHECK(takes("long*", "u64", NULL));
    CHECK(takes("int*", "f32", NULL));
    /* nothing to judge */
    CHECK(takes("void*", "f32", NULL));
    CHECK(takes("char*", "f64", NULL));
    CHECK(takes("Packed128<float>*", "bf16", NULL));
    CHECK(takes("float**", "f32", NULL));
    CHECK(takes("int", "f32", NULL));                 /* not a pointer */
    CHECK(takes("void (*)(float*, int)", "f16", NULL));
    /* a scalar of another floating format: a macro that picked the wrong type */
    CHECK(!takes("__nv_bfloat16*", "f32", "__nv_bfloat16"));
    CHECK(!takes("float const*", "bf16", "float"));
    CHECK(!takes("__half*", "bf16", "__half"));       /* two formats of one size */
    CHECK(!takes("float*", "i32", "float"));
    CHECK(!takes("double*", "f32", "double"));
}

int main(void)
{
    test_params();
    test_takes();
    return CHECK_DONE();
}

/* nvrtc_headers.c: the C and C++ standard headers a kernel written for nvcc includes, given to
 * NVRTC from memory (nvrtc_headers.h), and the hint for kernels that need host code.
 *
 * What NVRTC has without any header (measured, NVRTC 13.0): printf, malloc, free, memcpy,
 * memset, assert (a macro that honours -DNDEBUG), size_t, ptrdiff_t, NULL, and the math library
 * at global scope with float and double overloads (sqrt, expf, isnan, ...; no isnormal or
 * fpclassify). What it lacks: every standard header, the limit macros (INT_MAX, FLT_MAX, ...),
 * the fixed-width integer types, INFINITY and the M_ constants, std:: forms, offsetof; and the
 * GCC builtins (__builtin_huge_valf, __builtin_nanf, __builtin_offsetof are not there;
 * __builtin_bit_cast is). So each header here declares what device code may use of its
 * namesake, in a form right under -std=c++11 to c++20.
 *
 * Under C++17 and later the integer types and limits come from libcu++ (<cuda/std/cstdint>,
 * <cuda/std/climits>), so a kernel that also includes libcu++ or CUB sees one definition of
 * each; libcu++ of CUDA 13 refuses C++11 and C++14 (#error), so there the headers define the
 * same types (int64_t is long long, as libcu++ has it under NVRTC) themselves. Every header
 * includes <stddef.h>, so std::size_t, std::ptrdiff_t and std::nullptr_t come with any of them,
 * as they do with libstdc++'s.
 *
 * The C++ headers with a device form in libcu++ (<type_traits>, <limits>, <utility>, <tuple>,
 * ...) are that form, with the standard's names declared in std (nvrtc_headers_cxx.c), so
 * templated kernels that switch on std::is_same or read std::numeric_limits compile
 * unedited. */
#include "nvrtc_headers.h"
#include "nvrtc_headers_cxx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/sha256.h"

/* ---- <stdio.h> ---- */
static const char h_stdio[] =
    "/* tunekit's <stdio.h> for NVRTC (tuner/build/nvrtc_headers.c). printf is an NVRTC built-in\n"
    "   for device code; nothing else of stdio exists on the device. */\n"
    "#ifndef TUNEKIT_NVRTC_STDIO_H\n"
    "#define TUNEKIT_NVRTC_STDIO_H\n"
    "#include <stddef.h>\n"
    "namespace std { using ::printf; }\n"
    "#endif\n";

static const char h_cstdio[] =
    "/* tunekit's <cstdio> for NVRTC: see <stdio.h>. */\n"
    "#include <stdio.h>\n";

/* ---- <limits.h> ---- */
static const char h_limits[] =
    "/* tunekit's <limits.h> for NVRTC (tuner/build/nvrtc_headers.c): libcu++'s <cuda/std/climits>\n"
    "   under C++17 and later (so CUB and libcu++ see the same macros), else the same values here.\n"
    "   long is 64 bits (LP64). */\n"
    "#ifndef TUNEKIT_NVRTC_LIMITS_H\n"
    "#define TUNEKIT_NVRTC_LIMITS_H\n"
    "#include <stddef.h>\n"
    "#if __cplusplus >= 201703L && defined(__has_include)\n"
    "#if __has_include(<cuda/std/climits>)\n"
    "#include <cuda/std/climits>\n"
    "#endif\n"
    "#endif\n"
    "#ifndef CHAR_BIT\n"
    "#define CHAR_BIT 8\n"
    "#endif\n"
    "#ifndef SCHAR_MIN\n"
    "#define SCHAR_MIN (-128)\n"
    "#endif\n"
    "#ifndef SCHAR_MAX\n"
    "#define SCHAR_MAX 127\n"
    "#endif\n"
    "#ifndef UCHAR_MAX\n"
    "#define UCHAR_MAX 255\n"
    "#endif\n"
    "#ifndef CHAR_MIN\n"
    "#if '\\xff' > 0\n"
    "#define CHAR_MIN 0\n"
    "#define CHAR_MAX UCHAR_MAX\n"
    "#else\n"
    "#define CHAR_MIN SCHAR_MIN\n"
    "#define CHAR_MAX SCHAR_MAX\n"
    "#endif\n"
    "#endif\n"
    "#ifndef SHRT_MAX\n"
    "#define SHRT_MAX 0x7fff\n"
    "#endif\n"
    "#ifndef SHRT_MIN\n"
    "#define SHRT_MIN (-SHRT_MAX - 1)\n"
    "#endif\n"
    "#ifndef USHRT_MAX\n"
    "#define USHRT_MAX 0xffff\n"
    "#endif\n"
    "#ifndef INT_MAX\n"
    "#define INT_MAX 0x7fffffff\n"
    "#endif\n"
    "#ifndef INT_MIN\n"
    "#define INT_MIN (-INT_MAX - 1)\n"
    "#endif\n"
    "#ifndef UINT_MAX\n"
    "#define UINT_MAX 0xffffffffU\n"
    "#endif\n"
    "#ifndef LLONG_MAX\n"
    "#define LLONG_MAX 0x7fffffffffffffffLL\n"
    "#endif\n"
    "#ifndef LLONG_MIN\n"
    "#define LLONG_MIN (-LLONG_MAX - 1)\n"
    "#endif\n"
    "#ifndef ULLONG_MAX\n"
    "#define ULLONG_MAX 0xffffffffffffffffULL\n"
    "#endif\n"
    "#ifndef LONG_MAX\n"
    "#define LONG_MAX 0x7fffffffffffffffL\n"
    "#endif\n"
    "#ifndef LONG_MIN\n"
    "#define LONG_MIN (-LONG_MAX - 1)\n"
    "#endif\n"
    "#ifndef ULONG_MAX\n"
    "#define ULONG_MAX 0xffffffffffffffffUL\n"
    "#endif\n"
    "#endif\n";

static const char h_climits[] =
    "/* tunekit's <climits> for NVRTC: see <limits.h>. */\n"
    "#include <limits.h>\n";

/* ---- <stdint.h> ---- */
static const char h_stdint[] =
    "/* tunekit's <stdint.h> for NVRTC (tuner/build/nvrtc_headers.c): the fixed-width types at\n"
    "   global scope and in std, their limits and the INTn_C macros. Under C++17 and later they\n"
    "   are libcu++'s (<cuda/std/cstdint>); else the same types (int64_t is long long) here. */\n"
    "#ifndef TUNEKIT_NVRTC_STDINT_H\n"
    "#define TUNEKIT_NVRTC_STDINT_H\n"
    "#include <stddef.h>\n"
    "#include <limits.h>\n"
    "#if __cplusplus >= 201703L && defined(__has_include)\n"
    "#if __has_include(<cuda/std/cstdint>)\n"
    "#include <cuda/std/cstdint>\n"
    "#define TUNEKIT_NVRTC_STDINT_FROM_LIBCUXX 1\n"
    "#endif\n"
    "#endif\n"
    "#ifndef TUNEKIT_NVRTC_STDINT_FROM_LIBCUXX\n"
    "typedef signed char int8_t;\n"
    "typedef short int16_t;\n"
    "typedef int int32_t;\n"
    "typedef long long int64_t;\n"
    "typedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "typedef int8_t int_least8_t;\n"
    "typedef int16_t int_least16_t;\n"
    "typedef int32_t int_least32_t;\n"
    "typedef int64_t int_least64_t;\n"
    "typedef uint8_t uint_least8_t;\n"
    "typedef uint16_t uint_least16_t;\n"
    "typedef uint32_t uint_least32_t;\n"
    "typedef uint64_t uint_least64_t;\n"
    "typedef int8_t int_fast8_t;\n"
    "typedef int16_t int_fast16_t;\n"
    "typedef int32_t int_fast32_t;\n"
    "typedef int64_t int_fast64_t;\n"
    "typedef uint8_t uint_fast8_t;\n"
    "typedef uint16_t uint_fast16_t;\n"
    "typedef uint32_t uint_fast32_t;\n"
    "typedef uint64_t uint_fast64_t;\n"
    "typedef int64_t intptr_t;\n"
    "typedef uint64_t uintptr_t;\n"
    "typedef int64_t intmax_t;\n"
    "typedef uint64_t uintmax_t;\n"
    "#endif\n"
    "#ifndef INT8_MIN\n"
    "#define INT8_MIN SCHAR_MIN\n"
    "#define INT16_MIN SHRT_MIN\n"
    "#define INT32_MIN INT_MIN\n"
    "#define INT64_MIN LLONG_MIN\n"
    "#define INT8_MAX SCHAR_MAX\n"
    "#define INT16_MAX SHRT_MAX\n"
    "#define INT32_MAX INT_MAX\n"
    "#define INT64_MAX LLONG_MAX\n"
    "#define UINT8_MAX UCHAR_MAX\n"
    "#define UINT16_MAX USHRT_MAX\n"
    "#define UINT32_MAX UINT_MAX\n"
    "#define UINT64_MAX ULLONG_MAX\n"
    "#define INT_LEAST8_MIN INT8_MIN\n"
    "#define INT_LEAST16_MIN INT16_MIN\n"
    "#define INT_LEAST32_MIN INT32_MIN\n"
    "#define INT_LEAST64_MIN INT64_MIN\n"
    "#define INT_LEAST8_MAX INT8_MAX\n"
    "#define INT_LEAST16_MAX INT16_MAX\n"
    "#define INT_LEAST32_MAX INT32_MAX\n"
    "#define INT_LEAST64_MAX INT64_MAX\n"
    "#define UINT_LEAST8_MAX UINT8_MAX\n"
    "#define UINT_LEAST16_MAX UINT16_MAX\n"
    "#define UINT_LEAST32_MAX UINT32_MAX\n"
    "#define UINT_LEAST64_MAX UINT64_MAX\n"
    "#define INT_FAST8_MIN INT8_MIN\n"
    "#define INT_FAST16_MIN INT16_MIN\n"
    "#define INT_FAST32_MIN INT32_MIN\n"
    "#define INT_FAST64_MIN INT64_MIN\n"
    "#define INT_FAST8_MAX INT8_MAX\n"
    "#define INT_FAST16_MAX INT16_MAX\n"
    "#define INT_FAST32_MAX INT32_MAX\n"
    "#define INT_FAST64_MAX INT64_MAX\n"
    "#define UINT_FAST8_MAX UINT8_MAX\n"
    "#define UINT_FAST16_MAX UINT16_MAX\n"
    "#define UINT_FAST32_MAX UINT32_MAX\n"
    "#define UINT_FAST64_MAX UINT64_MAX\n"
    "#endif\n"
    "#ifndef INTPTR_MIN\n"
    "#define INTPTR_MIN INT64_MIN\n"
    "#define INTPTR_MAX INT64_MAX\n"
    "#define UINTPTR_MAX UINT64_MAX\n"
    "#define INTMAX_MIN INT64_MIN\n"
    "#define INTMAX_MAX INT64_MAX\n"
    "#define UINTMAX_MAX UINT64_MAX\n"
    "#endif\n"
    "#ifndef PTRDIFF_MIN\n"
    "#define PTRDIFF_MIN INT64_MIN\n"
    "#define PTRDIFF_MAX INT64_MAX\n"
    "#endif\n"
    "#ifndef SIZE_MAX\n"
    "#define SIZE_MAX UINT64_MAX\n"
    "#endif\n"
    "#ifndef INT8_C\n"
    "#define INT8_C(X) ((::int_least8_t)(X))\n"
    "#define INT16_C(X) ((::int_least16_t)(X))\n"
    "#define INT32_C(X) ((::int_least32_t)(X))\n"
    "#define INT64_C(X) ((::int_least64_t)(X))\n"
    "#define UINT8_C(X) ((::uint_least8_t)(X))\n"
    "#define UINT16_C(X) ((::uint_least16_t)(X))\n"
    "#define UINT32_C(X) ((::uint_least32_t)(X))\n"
    "#define UINT64_C(X) ((::uint_least64_t)(X))\n"
    "#define INTMAX_C(X) ((::intmax_t)(X))\n"
    "#define UINTMAX_C(X) ((::uintmax_t)(X))\n"
    "#endif\n"
    "namespace std {\n"
    "using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;\n"
    "using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;\n"
    "using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;\n"
    "using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;\n"
    "using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;\n"
    "using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;\n"
    "using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;\n"
    "}\n"
    "#endif\n";

static const char h_cstdint[] =
    "/* tunekit's <cstdint> for NVRTC: see <stdint.h>. */\n"
    "#include <stdint.h>\n";

/* ---- <inttypes.h>: the printf formats of <stdint.h>'s types (64-bit ones are long long) ---- */
static const char h_inttypes[] =
    "/* tunekit's <inttypes.h> for NVRTC (tuner/build/nvrtc_headers.c): <stdint.h> and the printf\n"
    "   formats of its types, for device printf (int64_t, intptr_t, intmax_t are long long). */\n"
    "#ifndef TUNEKIT_NVRTC_INTTYPES_H\n"
    "#define TUNEKIT_NVRTC_INTTYPES_H\n"
    "#include <stdint.h>\n"
    "#ifndef PRId32\n"
    "#define PRId8 \"d\"\n#define PRIi8 \"i\"\n#define PRIo8 \"o\"\n"
    "#define PRIu8 \"u\"\n#define PRIx8 \"x\"\n#define PRIX8 \"X\"\n"
    "#define PRId16 \"d\"\n#define PRIi16 \"i\"\n#define PRIo16 \"o\"\n"
    "#define PRIu16 \"u\"\n#define PRIx16 \"x\"\n#define PRIX16 \"X\"\n"
    "#define PRId32 \"d\"\n#define PRIi32 \"i\"\n#define PRIo32 \"o\"\n"
    "#define PRIu32 \"u\"\n#define PRIx32 \"x\"\n#define PRIX32 \"X\"\n"
    "#define PRId64 \"lld\"\n#define PRIi64 \"lli\"\n#define PRIo64 \"llo\"\n"
    "#define PRIu64 \"llu\"\n#define PRIx64 \"llx\"\n#define PRIX64 \"llX\"\n"
    "#define PRIdPTR \"lld\"\n#define PRIiPTR \"lli\"\n#define PRIoPTR \"llo\"\n"
    "#define PRIuPTR \"llu\"\n#define PRIxPTR \"llx\"\n#define PRIXPTR \"llX\"\n"
    "#define PRIdMAX \"lld\"\n#define PRIiMAX \"lli\"\n#define PRIoMAX \"llo\"\n"
    "#define PRIuMAX \"llu\"\n#define PRIxMAX \"llx\"\n#define PRIXMAX \"llX\"\n"
    "#endif\n"
    "#endif\n";

static const char h_cinttypes[] =
    "/* tunekit's <cinttypes> for NVRTC: see <inttypes.h>. */\n"
    "#include <inttypes.h>\n";

/* ---- <float.h>: IEEE binary32 and binary64 (device long double is double: no LDBL_) ---- */
static const char h_float[] =
    "/* tunekit's <float.h> for NVRTC (tuner/build/nvrtc_headers.c): float and double (IEEE\n"
    "   binary32 and binary64); exact values, as GCC spells them. */\n"
    "#ifndef TUNEKIT_NVRTC_FLOAT_H\n"
    "#define TUNEKIT_NVRTC_FLOAT_H\n"
    "#include <stddef.h>\n"
    "#ifndef FLT_RADIX\n#define FLT_RADIX 2\n#endif\n"
    "#ifndef FLT_MANT_DIG\n#define FLT_MANT_DIG 24\n#endif\n"
    "#ifndef FLT_DIG\n#define FLT_DIG 6\n#endif\n"
    "#ifndef FLT_DECIMAL_DIG\n#define FLT_DECIMAL_DIG 9\n#endif\n"
    "#ifndef FLT_MIN_EXP\n#define FLT_MIN_EXP (-125)\n#endif\n"
    "#ifndef FLT_MIN_10_EXP\n#define FLT_MIN_10_EXP (-37)\n#endif\n"
    "#ifndef FLT_MAX_EXP\n#define FLT_MAX_EXP 128\n#endif\n"
    "#ifndef FLT_MAX_10_EXP\n#define FLT_MAX_10_EXP 38\n#endif\n"
    "#ifndef FLT_MAX\n#define FLT_MAX 3.40282346638528859811704183484516925e+38F\n#endif\n"
    "#ifndef FLT_MIN\n#define FLT_MIN 1.17549435082228750796873653722224568e-38F\n#endif\n"
    "#ifndef FLT_EPSILON\n#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F\n#endif\n"
    "#ifndef FLT_TRUE_MIN\n#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F\n#endif\n"
    "#ifndef DBL_MANT_DIG\n#define DBL_MANT_DIG 53\n#endif\n"
    "#ifndef DBL_DIG\n#define DBL_DIG 15\n#endif\n"
    "#ifndef DBL_DECIMAL_DIG\n#define DBL_DECIMAL_DIG 17\n#endif\n"
    "#ifndef DBL_MIN_EXP\n#define DBL_MIN_EXP (-1021)\n#endif\n"
    "#ifndef DBL_MIN_10_EXP\n#define DBL_MIN_10_EXP (-307)\n#endif\n"
    "#ifndef DBL_MAX_EXP\n#define DBL_MAX_EXP 1024\n#endif\n"
    "#ifndef DBL_MAX_10_EXP\n#define DBL_MAX_10_EXP 308\n#endif\n"
    "#ifndef DBL_MAX\n#define DBL_MAX 1.79769313486231570814527423731704357e+308\n#endif\n"
    "#ifndef DBL_MIN\n#define DBL_MIN 2.22507385850720138309023271733240406e-308\n#endif\n"
    "#ifndef DBL_EPSILON\n#define DBL_EPSILON 2.22044604925031308084726333618164062e-16\n#endif\n"
    "#ifndef DBL_TRUE_MIN\n#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324\n#endif\n"
    "#ifndef FLT_EVAL_METHOD\n#define FLT_EVAL_METHOD 0\n#endif\n"
    "#endif\n";

static const char h_cfloat[] =
    "/* tunekit's <cfloat> for NVRTC: see <float.h>. */\n"
    "#include <float.h>\n";

/* ---- <math.h> ---- */
static const char h_math[] =
    "/* tunekit's <math.h> for NVRTC (tuner/build/nvrtc_headers.c). The math functions are NVRTC\n"
    "   built-ins at global scope (float and double overloads); this adds the M_ constants,\n"
    "   INFINITY, NAN, HUGE_VAL, HUGE_VALF, float_t, double_t and the std:: names. Under C++17 with\n"
    "   libcu++ 3, INFINITY and NAN are spelled as <cuda/std/cmath> (which CUB includes) spells\n"
    "   them, so that including both redefines nothing differently. */\n"
    "#ifndef TUNEKIT_NVRTC_MATH_H\n"
    "#define TUNEKIT_NVRTC_MATH_H\n"
    "#include <stddef.h>\n"
    "#ifndef M_E\n#define M_E 2.7182818284590452354\n#endif\n"
    "#ifndef M_LOG2E\n#define M_LOG2E 1.4426950408889634074\n#endif\n"
    "#ifndef M_LOG10E\n#define M_LOG10E 0.43429448190325182765\n#endif\n"
    "#ifndef M_LN2\n#define M_LN2 0.69314718055994530942\n#endif\n"
    "#ifndef M_LN10\n#define M_LN10 2.30258509299404568402\n#endif\n"
    "#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#endif\n"
    "#ifndef M_PI_2\n#define M_PI_2 1.57079632679489661923\n#endif\n"
    "#ifndef M_PI_4\n#define M_PI_4 0.78539816339744830962\n#endif\n"
    "#ifndef M_1_PI\n#define M_1_PI 0.31830988618379067154\n#endif\n"
    "#ifndef M_2_PI\n#define M_2_PI 0.63661977236758134308\n#endif\n"
    "#ifndef M_2_SQRTPI\n#define M_2_SQRTPI 1.12837916709551257390\n#endif\n"
    "#ifndef M_SQRT2\n#define M_SQRT2 1.41421356237309504880\n#endif\n"
    "#ifndef M_SQRT1_2\n#define M_SQRT1_2 0.70710678118654752440\n#endif\n"
    "#if defined(__has_builtin)\n"
    "#if __has_builtin(__builtin_bit_cast)\n"
    "#define TUNEKIT_NVRTC_BITS_F(u) __builtin_bit_cast(float, (unsigned int)(u))\n"
    "#define TUNEKIT_NVRTC_BITS_D(u) __builtin_bit_cast(double, (unsigned long long)(u))\n"
    "#endif\n"
    "#endif\n"
    "#ifndef TUNEKIT_NVRTC_BITS_F\n"
    "#define TUNEKIT_NVRTC_BITS_F(u) __int_as_float((int)(u))\n"
    "#define TUNEKIT_NVRTC_BITS_D(u) __longlong_as_double((long long)(u))\n"
    "#endif\n"
    "#ifndef INFINITY\n"
    "#if __cplusplus >= 201703L && defined(__has_include)\n"
    "#if __has_include(<cuda/std/limits>)\n"
    "#include <cuda/std/limits>\n"
    "#endif\n"
    "#endif\n"
    "#if defined(CCCL_MAJOR_VERSION) && defined(_CUDA_VSTD)\n"
    "#if CCCL_MAJOR_VERSION == 3\n"
    "#define INFINITY _CUDA_VSTD::numeric_limits<float>::infinity()\n"
    "#define NAN      _CUDA_VSTD::numeric_limits<float>::quiet_NaN()\n"
    "#endif\n"
    "#endif\n"
    "#endif\n"
    "#ifndef INFINITY\n#define INFINITY TUNEKIT_NVRTC_BITS_F(0x7f800000u)\n#endif\n"
    "#ifndef NAN\n#define NAN TUNEKIT_NVRTC_BITS_F(0x7fc00000u)\n#endif\n"
    "#ifndef HUGE_VALF\n#define HUGE_VALF TUNEKIT_NVRTC_BITS_F(0x7f800000u)\n#endif\n"
    "#ifndef HUGE_VAL\n#define HUGE_VAL TUNEKIT_NVRTC_BITS_D(0x7ff0000000000000ull)\n#endif\n"
    "typedef float float_t;\n"
    "typedef double double_t;\n"
    "namespace std {\n"
    "using ::float_t; using ::double_t;\n"
    "using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma;\n"
    "using ::fmax; using ::fmin; using ::fdim; using ::nan; using ::nanf;\n"
    "using ::exp; using ::exp2; using ::expm1; using ::log; using ::log10; using ::log2;\n"
    "using ::log1p; using ::pow; using ::sqrt; using ::cbrt; using ::hypot;\n"
    "using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2;\n"
    "using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh; using ::atanh;\n"
    "using ::erf; using ::erfc; using ::tgamma; using ::lgamma;\n"
    "using ::ceil; using ::floor; using ::trunc; using ::round; using ::lround; using ::llround;\n"
    "using ::nearbyint; using ::rint; using ::lrint; using ::llrint;\n"
    "using ::frexp; using ::ldexp; using ::modf; using ::scalbn; using ::ilogb; using ::logb;\n"
    "using ::nextafter; using ::copysign;\n"
    "using ::isfinite; using ::isinf; using ::isnan; using ::signbit;\n"
    "}\n"
    "#endif\n";

static const char h_cmath[] =
    "/* tunekit's <cmath> for NVRTC: see <math.h>. */\n"
    "#include <math.h>\n";

/* ---- <assert.h>: no include guard (NDEBUG is looked at on each inclusion, as the standard
 * says); the same definitions as NVRTC's built-in assert ---- */
static const char h_assert[] =
    "/* tunekit's <assert.h> for NVRTC (tuner/build/nvrtc_headers.c): assert as NVRTC defines it\n"
    "   built in, redefined on each inclusion for NDEBUG as it stands there. */\n"
    "#include <stddef.h>\n"
    "#undef assert\n"
    "#ifdef NDEBUG\n"
    "#define assert(e) (static_cast<void>(0))\n"
    "#else\n"
    "#define assert(e) ((e) ? static_cast<void>(0) \\\n"
    "                       : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))\n"
    "#endif\n";

static const char h_cassert[] =
    "/* tunekit's <cassert> for NVRTC: see <assert.h>. */\n"
    "#include <assert.h>\n";

/* ---- <stddef.h> ---- */
static const char h_stddef[] =
    "/* tunekit's <stddef.h> for NVRTC (tuner/build/nvrtc_headers.c): size_t, ptrdiff_t and NULL\n"
    "   are NVRTC built-ins; this adds offsetof (a constant expression, unlike libcu++'s, which it\n"
    "   replaces), nullptr_t and the std:: names. */\n"
    "#ifndef TUNEKIT_NVRTC_STDDEF_H\n"
    "#define TUNEKIT_NVRTC_STDDEF_H\n"
    "#ifndef NULL\n#define NULL 0\n#endif\n"
    "#undef offsetof\n"
    "#define offsetof(type, member) ((::size_t)__INTADDR__(&(((type *)0)->member)))\n"
    "typedef decltype(nullptr) nullptr_t;\n"
    "namespace std { using ::size_t; using ::ptrdiff_t; using ::nullptr_t; }\n"
    "#endif\n";

static const char h_cstddef[] =
    "/* tunekit's <cstddef> for NVRTC: see <stddef.h>. */\n"
    "#include <stddef.h>\n";

/* ---- <stdlib.h> ---- */
static const char h_stdlib[] =
    "/* tunekit's <stdlib.h> for NVRTC (tuner/build/nvrtc_headers.c): malloc, free, abs, labs and\n"
    "   llabs are NVRTC built-ins for device code; nothing else of stdlib exists there. */\n"
    "#ifndef TUNEKIT_NVRTC_STDLIB_H\n"
    "#define TUNEKIT_NVRTC_STDLIB_H\n"
    "#include <stddef.h>\n"
    "#ifndef EXIT_SUCCESS\n#define EXIT_SUCCESS 0\n#endif\n"
    "#ifndef EXIT_FAILURE\n#define EXIT_FAILURE 1\n#endif\n"
    "namespace std { using ::malloc; using ::free; using ::abs; using ::labs; using ::llabs; }\n"
    "#endif\n";

static const char h_cstdlib[] =
    "/* tunekit's <cstdlib> for NVRTC: see <stdlib.h>. */\n"
    "#include <stdlib.h>\n";

/* ---- <string.h> ---- */
static const char h_string[] =
    "/* tunekit's <string.h> for NVRTC (tuner/build/nvrtc_headers.c): memcpy and memset are NVRTC\n"
    "   built-ins for device code; nothing else of string.h exists there. */\n"
    "#ifndef TUNEKIT_NVRTC_STRING_H\n"
    "#define TUNEKIT_NVRTC_STRING_H\n"
    "#include <stddef.h>\n"
    "namespace std { using ::memcpy; using ::memset; }\n"
    "#endif\n";

static const char h_cstring[] =
    "/* tunekit's <cstring> for NVRTC: see <string.h>. */\n"
    "#include <string.h>\n";

/* ---- <cub/cub.cuh>: the block, warp and thread primitives of the real cub.cuh, which NVRTC
 * compiles; the device-wide algorithms (cub/device/, cub/util_allocator.cuh) are host code.
 * The list is what CUDA 12's and 13's cub.cuh both include, less the headers that also hold
 * host runtime calls (grid_queue, tex_obj_input_iterator, util_device, util_debug,
 * util_temporary_storage). ---- */
static const char h_cub[] =
    "/* tunekit's <cub/cub.cuh> for NVRTC (tuner/build/nvrtc_headers.c): the block, warp and\n"
    "   thread primitives of CUB, which device code uses and NVRTC compiles. CUB's device-wide\n"
    "   algorithms (cub/device/..., cub::DeviceReduce, cub::DeviceScan, ...) and\n"
    "   cub/util_allocator.cuh are host code, which NVRTC cannot compile: a kernel that needs them\n"
    "   compiles with `kernel.compiler: nvcc` in the space file. */\n"
    "#pragma once\n"
    "#include <cub/config.cuh>\n"
    "#include <cub/block/block_adjacent_difference.cuh>\n"
    "#include <cub/block/block_discontinuity.cuh>\n"
    "#include <cub/block/block_exchange.cuh>\n"
    "#include <cub/block/block_histogram.cuh>\n"
    "#include <cub/block/block_load.cuh>\n"
    "#include <cub/block/block_merge_sort.cuh>\n"
    "#include <cub/block/block_radix_rank.cuh>\n"
    "#include <cub/block/block_radix_sort.cuh>\n"
    "#include <cub/block/block_reduce.cuh>\n"
    "#include <cub/block/block_scan.cuh>\n"
    "#include <cub/block/block_store.cuh>\n"
    "#include <cub/grid/grid_even_share.cuh>\n"
    "#include <cub/grid/grid_mapping.cuh>\n"
    "#include <cub/thread/thread_load.cuh>\n"
    "#include <cub/thread/thread_operators.cuh>\n"
    "#include <cub/thread/thread_reduce.cuh>\n"
    "#include <cub/thread/thread_scan.cuh>\n"
    "#include <cub/thread/thread_store.cuh>\n"
    "#include <cub/warp/warp_exchange.cuh>\n"
    "#include <cub/warp/warp_load.cuh>\n"
    "#include <cub/warp/warp_merge_sort.cuh>\n"
    "#include <cub/warp/warp_reduce.cuh>\n"
    "#include <cub/warp/warp_scan.cuh>\n"
    "#include <cub/warp/warp_store.cuh>\n"
    "#include <cub/iterator/arg_index_input_iterator.cuh>\n"
    "#include <cub/iterator/cache_modified_input_iterator.cuh>\n"
    "#include <cub/iterator/cache_modified_output_iterator.cuh>\n"
    "#include <cub/util_ptx.cuh>\n"
    "#include <cub/util_type.cuh>\n";

/* ---- <cuda.h>: the driver API's types device code uses. A TMA kernel takes its tensor map as
 * `const __grid_constant__ CUtensorMap` and includes <cuda.h> for the type; the real header
 * declares the driver's host functions, which NVRTC refuses. Laid out as cuda.h of CUDA 12 and
 * 13 lays them out. ---- */
static const char h_cuda[] =
    "/* tunekit's <cuda.h> for NVRTC (tuner/build/nvrtc_headers.c): the driver API's types that\n"
    "   device code uses (CUtensorMap, CUdeviceptr, cuuint32_t, cuuint64_t) and CUDA_VERSION; the\n"
    "   driver's functions are host code. */\n"
    "#ifndef __cuda_cuda_h__\n"
    "#define __cuda_cuda_h__\n"
    "#include <stdint.h>\n"
    "#ifndef CUDA_VERSION\n"
    "#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)\n"
    "#endif\n"
    "typedef uint32_t cuuint32_t;\n"
    "typedef uint64_t cuuint64_t;\n"
    "typedef unsigned long long CUdeviceptr_v2;\n"
    "typedef CUdeviceptr_v2 CUdeviceptr;\n"
    "#define CU_TENSOR_MAP_NUM_QWORDS 16\n"
    "typedef struct CUtensorMap_st {\n"
    "    alignas(128) cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS];\n"
    "} CUtensorMap;\n"
    "#endif\n";

/* ---- what nvcc's device code sees without including anything ----
 * nvcc includes cuda_runtime.h in every compilation, and with it glibc's <stdlib.h>,
 * <sys/types.h> and <math.h>: uint, ushort and ulong, which kernels use unannounced (SGEMM_CUDA's
 * warptiling kernel takes `const uint warpRow`), and math.h's INFINITY, NAN, HUGE_VAL(F) and
 * M_PI family (a minimal FlashAttention's running max starts at -INFINITY). NVRTC has none of
 * it; the compile pre-includes this (compiler_nvrtc.c). NVRTC knows no __builtin_inff, so the
 * infinities and NaN are CUDA's bit casts, as math_constants.h's CUDART_INF_F: device code only. A kernel that typedefs the types itself,
 * as the same types, still compiles; the macros give way to a header that defines them first. */
static const char h_nvcc_implicit[] =
    "/* tunekit for NVRTC (tuner/build/nvrtc_headers.c): the names nvcc's implicit\n"
    "   cuda_runtime.h brings from glibc's <sys/types.h> and <math.h>. */\n"
    "#pragma once\n"
    "typedef unsigned int uint;\n"
    "typedef unsigned short ushort;\n"
    "typedef unsigned long ulong;\n"
    "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n"
    "#ifndef NAN\n#define NAN __int_as_float(0x7fffffff)\n#endif\n"
    "#ifndef HUGE_VALF\n#define HUGE_VALF __int_as_float(0x7f800000)\n#endif\n"
    "#ifndef HUGE_VAL\n#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)\n#endif\n"
    "#ifndef M_PI\n"
    "#define M_E 2.7182818284590452354\n"
    "#define M_LOG2E 1.4426950408889634074\n"
    "#define M_LOG10E 0.43429448190325182765\n"
    "#define M_LN2 0.69314718055994530942\n"
    "#define M_LN10 2.30258509299404568402\n"
    "#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n"
    "#define M_PI_4 0.78539816339744830962\n"
    "#define M_1_PI 0.31830988618379067154\n"
    "#define M_2_PI 0.63661977236758134308\n"
    "#define M_2_SQRTPI 1.12837916709551257390\n"
    "#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n"
    "#endif\n";

/* ---- the host APIs of CUDA's libraries: <cublas_v2.h>, <cufft.h>, ... ----
 * Device code cannot call them, yet kernel files include them for the host code around the
 * kernels (SGEMM_CUDA's kernels include <cublas_v2.h>; llm.c's common.h does). NVRTC would read
 * the toolkit's own, whose host declarations it refuses; given empty (but for <stddef.h>, as
 * every header here), a file whose code NVRTC compiles never needed them, and host code that uses them fails on the names, which the
 * host-code hint turns into "set kernel.compiler: nvcc". */
static const char h_host_library[] =
    "/* tunekit for NVRTC (tuner/build/nvrtc_headers.c): the host API of a CUDA library, which\n"
    "   device code cannot call, given empty but for <stddef.h>. Host code that uses it needs\n"
    "   nvcc. */\n"
    "#pragma once\n"
    "#include <stddef.h>\n";
/* One list, expanded twice below (names, then sources). Only headers no device header includes:
 * <curand.h> is left out (<curand_kernel.h> includes it), so are <cufftXt.h> (cuFFT's device
 * callbacks) and <nccl.h> (NCCL's device API includes it). */
#define HOST_LIBRARIES(X)                                                                        \
    X("cublas_v2.h") X("cublas.h") X("cublas_api.h") X("cublasLt.h") X("cublasXt.h")             \
    X("cufft.h") X("cusparse.h") X("cusolverDn.h") X("cusolverSp.h") X("cudnn.h")                 \
    X("nvToolsExt.h") X("nvtx3/nvToolsExt.h") X("cuda_profiler_api.h") X("cudaProfiler.h")       \
    X("nvml.h") X("cuda_gl_interop.h")
#define HOST_LIBRARY_NAME(n) n,
#define HOST_LIBRARY_SOURCE(n) h_host_library,

static const char *const header_names[] = {
    "stdio.h", "cstdio", "limits.h", "climits", "stdint.h", "cstdint", "inttypes.h", "cinttypes",
    "float.h", "cfloat", "math.h", "cmath", "assert.h", "cassert", "stddef.h", "cstddef",
    "stdlib.h", "cstdlib", "string.h", "cstring", "cub/cub.cuh", "cuda.h",
    "algorithm", "array", "bit", "functional", "initializer_list", "iterator", "limits",
    "numbers", "numeric", "optional", "ratio", "span", "tuple", "type_traits", "utility",
    "variant", HOST_LIBRARIES(HOST_LIBRARY_NAME) NVRTC_IMPLICIT_HEADER,
};
static const char *const header_sources[] = {
    h_stdio, h_cstdio, h_limits, h_climits, h_stdint, h_cstdint, h_inttypes, h_cinttypes,
    h_float, h_cfloat, h_math, h_cmath, h_assert, h_cassert, h_stddef, h_cstddef,
    h_stdlib, h_cstdlib, h_string, h_cstring, h_cub, h_cuda,
    nvrtc_cxx_algorithm, nvrtc_cxx_array, nvrtc_cxx_bit, nvrtc_cxx_functional, nvrtc_cxx_initializer_list, nvrtc_cxx_iterator, nvrtc_cxx_limits, nvrtc_cxx_numbers,
    nvrtc_cxx_numeric, nvrtc_cxx_optional, nvrtc_cxx_ratio, nvrtc_cxx_span, nvrtc_cxx_tuple, nvrtc_cxx_type_traits, nvrtc_cxx_utility, nvrtc_cxx_variant,
    HOST_LIBRARIES(HOST_LIBRARY_SOURCE) h_nvcc_implicit,
};
#define N_HEADERS ((int)(sizeof header_names / sizeof header_names[0]))
_Static_assert(sizeof header_names / sizeof header_names[0] ==
               sizeof header_sources / sizeof header_sources[0], "one source per name");

int nvrtc_headers_count(void)
{
    return N_HEADERS;
}

const char *const *nvrtc_headers_sources(void)
{
    return header_sources;
}

const char *const *nvrtc_headers_names(void)
{
    return header_names;
}

const char *nvrtc_headers_digest(void)
{
    /* computed once: the headers are constant, so is their digest */
    static char hex[65];
    if (hex[0])
        return hex;
    size_t n = 0;
    for (int i = 0; i < N_HEADERS; i++)
        n += strlen(header_names[i]) + 1 + strlen(header_sources[i]) + 1;
    char *buf = malloc(n);
    if (!buf) {
        /* no memory for the digest: a value no real digest has, never cached */
        static char none[65];
        memset(none, '0', 64);
        return none;
    }
    size_t k = 0;
    for (int i = 0; i < N_HEADERS; i++) {
        /* name NUL content NUL: no two header sets give the same bytes */
        size_t a = strlen(header_names[i]) + 1, b = strlen(header_sources[i]) + 1;
        memcpy(buf + k, header_names[i], a);
        k += a;
        memcpy(buf + k, header_sources[i], b);
        k += b;
    }
    sha256_hex(buf, n, hex);
    free(buf);
    return hex;
}

/* ---- the host-code hint ---- */

/* Headers NVRTC has no form of whose users need nvcc: the C++ standard library, the C headers
 * not given above, POSIX and OS headers. Matched on the whole name, or on a prefix ending in
 * '/'. Where libcu++ has a device form, the hint names it. */
static const char *const host_headers[] = {
    "any", "array", "atomic", "barrier", "bit", "bitset", "cctype", "cerrno",
    "cfenv", "charconv", "chrono", "ciso646", "clocale", "codecvt", "compare", "complex",
    "concepts", "condition_variable", "coroutine", "csetjmp", "csignal", "cstdarg", "cstdbool",
    "ctime", "cuchar", "cwchar", "cwctype", "deque", "exception", "execution", "expected",
    "filesystem", "format", "forward_list", "fstream", "functional", "future", "generator",
    "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "latch",
    "limits", "list", "locale", "map", "mdspan", "memory", "memory_resource", "mutex", "new",
    "numbers", "numeric", "optional", "ostream", "print", "queue", "random", "ranges", "ratio",
    "regex", "scoped_allocator", "semaphore", "set", "shared_mutex", "source_location", "span",
    "sstream", "stack", "stacktrace", "stdexcept", "stop_token", "streambuf", "string",
    "string_view", "syncstream", "system_error", "thread", "tuple", "type_traits", "typeindex",
    "typeinfo", "unordered_map", "unordered_set", "utility", "valarray", "variant", "vector",
    "version",
    "ctype.h", "errno.h", "fenv.h", "locale.h", "setjmp.h", "signal.h", "stdarg.h", "stdbool.h",
    "time.h", "wchar.h", "wctype.h", "uchar.h", "complex.h", "tgmath.h", "stdalign.h",
    "stdatomic.h", "threads.h", "iso646.h", "unistd.h", "pthread.h", "fcntl.h", "dlfcn.h",
    "dirent.h", "windows.h", "malloc.h", "alloca.h", "omp.h", "immintrin.h", "x86intrin.h",
    "sys/", "thrust/", "cub/device/", "cub/agent/", "cub/dispatch/", "cub/util_allocator.cuh",
};
/* The standard headers with a device form in libcu++ (<cuda/std/X>), CUDA 12 and 13; those
 * given from memory above (<type_traits>, ...) never reach the hint. */
static const char *const libcuxx_forms[] = {
    "array", "atomic", "barrier", "bit", "bitset", "chrono", "complex", "concepts", "functional",
    "initializer_list", "iterator", "latch", "limits", "numbers", "optional", "ratio",
    "semaphore", "span", "tuple", "type_traits", "utility", "variant",
};

static int in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(list[i]);
        if (list[i][len - 1] == '/' ? strncmp(name, list[i], len) == 0 : strcmp(name, list[i]) == 0)
            return 1;
    }
    return 0;
}

/* The file a log line at `at` is about: the text from the line's start to "(" before the
 * message ("/usr/.../thrust/x.h(39): catastrophic error: ..."), copied into out. */
static void line_file(const char *log, const char *at, char *out, size_t len)
{
    const char *start = at;
    while (start > log && start[-1] != '\n')
        start--;
    const char *end = strstr(start, "): ");
    while (end && end > start && *end != '(')
        end--;
    size_t n = end && end > start && end < at ? (size_t)(end - start) : 0;
    if (n >= len)
        n = len - 1;
    memcpy(out, start, n);
    out[n] = 0;
}

const char *nvrtc_log_where(const char *log, const char *at)
{
    static char out[160];
    char file[1024];
    line_file(log, at, file, sizeof file);
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    const char *start = at;
    while (start > log && start[-1] != '\n')
        start--;
    const char *open = start + strlen(file), *close = open < at ? strchr(open, ')') : NULL;
    if (*base && *open == '(' && close && close < at)
        snprintf(out, sizeof out, "%s%.*s", base, (int)(close - open + 1), open);
    else
        snprintf(out, sizeof out, "%s", *base ? base : "the source");
    return out;
}

/* The first name NVRTC calls undefined that belongs to a CUDA library's host API
 * (cublasCreate, cufftPlan1d, ...), into name; the library, or NULL. */
static const char *host_library_name(const char *log, char *name, size_t len)
{
    static const struct { const char *prefix, *library; } apis[] = {
        {"cublas", "cuBLAS"}, {"CUBLAS_", "cuBLAS"}, {"cufft", "cuFFT"}, {"CUFFT_", "cuFFT"},
        {"cusparse", "cuSPARSE"}, {"cusolver", "cuSOLVER"}, {"cudnn", "cuDNN"},
        {"CUDNN_", "cuDNN"}, {"nvtx", "NVTX"},
        {"cudaProfiler", "the CUDA profiler"}, {"nvml", "NVML"},
    };
    static const char undefined[] = "identifier \"";
    for (const char *p = log; (p = strstr(p, undefined)); p++) {
        const char *id = p + sizeof undefined - 1, *q = strchr(id, '"');
        if (!q || strncmp(q, "\" is undefined", 14) != 0)
            continue;
        for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
            if (strncmp(id, apis[i].prefix, strlen(apis[i].prefix)) == 0) {
                snprintf(name, len, "%.*s", (int)(q - id), id);
                return apis[i].library;
            }
    }
    return NULL;
}

const char *nvrtc_headers_host_hint(const char *log)
{
    static char hint[512];
    char reason[256], file[1024], name[128];
    const char *lib;
    if (!log)
        return NULL;
    /* a __device__ lambda: NVRTC has no --extended-lambda (nvrtc_options.c leaves it out) */
    if (strstr(log, "requires --extended-lambda")) {
        snprintf(hint, sizeof hint,
                 "this kernel needs nvcc: NVRTC does not compile __device__ lambdas (nvcc's "
                 "--extended-lambda): set kernel.compiler: nvcc in the space file");
        return hint;
    }
    /* the first of the two in the log: NVRTC stops at a header it cannot open, and a __host__
     * function in JIT mode may come before (cub/device/ gives both) */
    const char *open = strstr(log, "cannot open source file \"");
    const char *jit = strstr(log, "is not allowed in JIT mode");
    /* a function with no execution space: host code to NVRTC; so is a variable at namespace
     * scope without __device__ (llm.c's common.h: extern cudaDeviceProp deviceProp;) */
    const char *bare = strstr(log, "host functions are not allowed in JIT mode");
    const char *var = strstr(log, "host variables are not allowed in JIT mode");
    if (var && (!bare || var < bare))
        bare = var;
    if (bare && (!jit || bare < jit))
        jit = bare;
    if (open && (!jit || open < jit)) {
        const char *name = open + strlen("cannot open source file \"");
        const char *q = strchr(name, '"');
        char header[200];
        size_t n = q ? (size_t)(q - name) : 0;
        if (!n || n >= sizeof header)
            return NULL;
        memcpy(header, name, n);
        header[n] = 0;
        if (!in_list(header, host_headers, sizeof host_headers / sizeof host_headers[0]))
            return NULL;   /* the user's own header, or a toolkit one: an include path is missing */
        line_file(log, open, file, sizeof file);
        const char *by = strstr(file, "thrust/");
        if (!by)
            by = strstr(file, "cub/");
        if (strncmp(header, "thrust/", 7) == 0)
            snprintf(reason, sizeof reason, "<%s> is Thrust's host code", header);
        else if (by)
            snprintf(reason, sizeof reason, "<%s> is a host header, included by %s", header, by);
        else if (in_list(header, libcuxx_forms, sizeof libcuxx_forms / sizeof libcuxx_forms[0]))
            snprintf(reason, sizeof reason,
                     "<%s> is a host header; libcu++'s <cuda/std/%s> is its device form", header,
                     header);
        else
            snprintf(reason, sizeof reason, "<%s> is a host header", header);
    } else if (jit) {
        line_file(log, jit, file, sizeof file);
        if (strstr(file, "thrust/"))
            snprintf(reason, sizeof reason, "Thrust's host code");
        else if (strstr(file, "cub/"))
            snprintf(reason, sizeof reason, "CUB's host code");
        else if (jit == bare && bare == var)
            snprintf(reason, sizeof reason, "a variable without __device__ at %s", nvrtc_log_where(log, jit));
        else if (jit == bare)
            snprintf(reason, sizeof reason,
                     "a function without __device__ at %s; if device code calls it, nvcc's "
                     "--expt-relaxed-constexpr in kernel.options compiles it for the device",
                     nvrtc_log_where(log, jit));
        else
            snprintf(reason, sizeof reason, "a __host__ function");
    } else if ((lib = host_library_name(log, name, sizeof name))) {
        snprintf(reason, sizeof reason, "%s is %s's host API, whose header NVRTC gets empty",
                 name, lib);
    } else {
        return NULL;
    }
    snprintf(hint, sizeof hint,
             "this kernel needs host code, which NVRTC does not compile (%s): set "
             "kernel.compiler: nvcc in the space file", reason);
    return hint;
}

/*
 * The C and C++ standard headers a student's kernel may include.
 *
 * nvcc compiles a .cu file with the host's C++ library at hand, so course
 * kernels often start with #include <cstdio> or <cmath>. NVRTC ships no
 * such headers: the include would be a compile error for code that builds
 * with nvcc. What device code can use from them NVRTC already declares
 * (printf, malloc, the CUDA math functions such as expf and exp(float)),
 * so these in-memory headers only add what is missing: the fixed-width
 * integer types (as on 64-bit Linux: int64_t is long), their limits, the
 * math constants and macros, and std:: names for the math functions, made
 * with using-declarations of the global ones as a real <cmath> does, so
 * that `using namespace std; exp(x)` is not ambiguous. Small on purpose:
 * they cost no compile time. The toolkit's own headers (cuda_fp16.h,
 * cooperative_groups.h, cuda/std/...) come from its include folders.
 */
#include "nvrtc_headers.h"

#ifndef KGRADE_CUDA_HOME
#define KGRADE_CUDA_HOME "/usr/local/cuda"
#endif

static const char empty[] = "#pragma once\n";

static const char stdint_h[] = "#pragma once\n"
                               "typedef signed char int8_t;\n"
                               "typedef short int16_t;\n"
                               "typedef int int32_t;\n"
                               "typedef long int64_t;\n"
                               "typedef unsigned char uint8_t;\n"
                               "typedef unsigned short uint16_t;\n"
                               "typedef unsigned int uint32_t;\n"
                               "typedef unsigned long uint64_t;\n"
                               "typedef long intptr_t;\n"
                               "typedef unsigned long uintptr_t;\n"
                               "typedef long intmax_t;\n"
                               "typedef unsigned long uintmax_t;\n"
                               "#define INT8_MIN (-128)\n"
                               "#define INT8_MAX 127\n"
                               "#define UINT8_MAX 255\n"
                               "#define INT16_MIN (-32767 - 1)\n"
                               "#define INT16_MAX 32767\n"
                               "#define UINT16_MAX 65535\n"
                               "#define INT32_MIN (-2147483647 - 1)\n"
                               "#define INT32_MAX 2147483647\n"
                               "#define UINT32_MAX 4294967295U\n"
                               "#define INT64_MIN (-9223372036854775807L - 1)\n"
                               "#define INT64_MAX 9223372036854775807L\n"
                               "#define UINT64_MAX 18446744073709551615UL\n"
                               "#define SIZE_MAX UINT64_MAX\n";

static const char cstdint[] =
    "#pragma once\n"
    "#include <stdint.h>\n"
    "namespace std {\n"
    "using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;\n"
    "using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;\n"
    "using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;\n"
    "}\n";

static const char math_h[] = "#pragma once\n"
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
                             "#define INFINITY __int_as_float(0x7f800000)\n"
                             "#define NAN __int_as_float(0x7fffffff)\n"
                             "#define HUGE_VALF INFINITY\n"
                             "#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)\n";

static const char cmath[] =
    "#pragma once\n"
    "#include <math.h>\n"
    "namespace std {\n"
    "using ::abs; using ::fabs; using ::exp; using ::exp2; using ::expm1; using ::log;\n"
    "using ::log2; using ::log10; using ::log1p; using ::sqrt; using ::cbrt; using ::pow;\n"
    "using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan;\n"
    "using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh;\n"
    "using ::atanh; using ::floor; using ::ceil; using ::round; using ::trunc; using ::rint;\n"
    "using ::nearbyint; using ::lround; using ::llround; using ::lrint; using ::llrint;\n"
    "using ::fmod; using ::remainder; using ::remquo; using ::fmin; using ::fmax;\n"
    "using ::fdim; using ::fma; using ::hypot; using ::frexp; using ::ldexp; using ::modf;\n"
    "using ::scalbn; using ::scalbln; using ::ilogb; using ::logb; using ::erf; using ::erfc;\n"
    "using ::tgamma; using ::lgamma; using ::copysign; using ::nextafter; using ::isnan;\n"
    "using ::isinf; using ::isfinite; using ::signbit;\n"
    "}\n";

const char *const nvrtc_header_names[] = {
    "stdio.h", "cstdio",   "stdlib.h", "cstdlib", "assert.h",
    "cassert", "stdint.h", "cstdint",  "math.h",  "cmath",
};
const char *const nvrtc_header_sources[] = {
    empty, empty, empty, empty, empty, empty, stdint_h, cstdint, math_h, cmath,
};
const int nvrtc_header_count = sizeof nvrtc_header_names / sizeof nvrtc_header_names[0];

const char *const nvrtc_include_options[] = {
    "-I" KGRADE_CUDA_HOME "/include",
    "-I" KGRADE_CUDA_HOME "/include/cccl",
};
const int nvrtc_include_count = sizeof nvrtc_include_options / sizeof nvrtc_include_options[0];

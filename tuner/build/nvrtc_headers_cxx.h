/* nvrtc_headers_cxx.h: the C++ headers with a device form in libcu++ that nvrtc_headers.c gives
 * NVRTC from memory, one source text each (nvrtc_headers_cxx.c). Only nvrtc_headers.c includes
 * it. */
#pragma once

extern const char nvrtc_cxx_algorithm[];
extern const char nvrtc_cxx_array[];
extern const char nvrtc_cxx_bit[];
extern const char nvrtc_cxx_functional[];
extern const char nvrtc_cxx_initializer_list[];
extern const char nvrtc_cxx_iterator[];
extern const char nvrtc_cxx_limits[];
extern const char nvrtc_cxx_numbers[];
extern const char nvrtc_cxx_numeric[];
extern const char nvrtc_cxx_optional[];
extern const char nvrtc_cxx_ratio[];
extern const char nvrtc_cxx_span[];
extern const char nvrtc_cxx_tuple[];
extern const char nvrtc_cxx_type_traits[];
extern const char nvrtc_cxx_utility[];
extern const char nvrtc_cxx_variant[];

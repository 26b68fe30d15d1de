/* nvrtc_headers_cxx.c: the C++ headers that libcu++ has a device form of, as nvrtc_headers.c
 * gives them to NVRTC from memory: each includes <cuda/std/X> and declares in std, one
 * using-declaration each, the names the C++ standard gives X (each checked against CUDA 13's
 * libcu++). */
#include "nvrtc_headers_cxx.h"

/* ---- the C++ headers with a device form in libcu++: <type_traits>, <limits>, <utility>, ...
 * Each includes <cuda/std/X> and declares in std, one using-declaration each, the names the C++
 * standard gives X (those libcu++ has), so std::is_same<T, __half>, std::enable_if_t and
 * std::numeric_limits<float>::max() compile as under nvcc. Names, not a using-directive for all
 * of cuda::std: with one, `using namespace std;` made an unqualified sqrt(x) or abs(i) ambiguous
 * between the global built-ins and cuda::std's wherever <cuda/std/cmath> came in (CUB includes
 * it). What cannot be done this way is specializing a std:: template (std::numeric_limits<
 * MyType>): the template is cuda::std's. libcu++ of CUDA 13 needs C++17, so below that the
 * header says so and names nvcc. Left out: <complex> and <concepts> (their functions would
 * collide with the math built-ins in std, and nvcc's device code cannot use std::complex
 * either), and the headers about threads and clocks (<atomic>, <barrier>, <chrono>, ...), which
 * device code written for nvcc cannot have used. A header of the same name in the kernel's own
 * include directories is not reached: NVRTC looks in memory first. ---- */
#define LIBCUXX_FORM(x)                                                                          \
    "/* tunekit's <" x "> for NVRTC (tuner/build/nvrtc_headers.c): libcu++'s <cuda/std/" x ">,\n" \
    "   whose names the standard gives <" x "> are declared in std. */\n"                       \
    "#pragma once\n"                                                                            \
    "#include <stddef.h>\n"                                                                     \
    "#if __cplusplus < 201703L && defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 13\n"\
    "#error <" x "> under NVRTC is libcu++'s <cuda/std/" x ">, which needs -std=c++17 or later "  \
    "(kernel.options), or set kernel.compiler: nvcc in the space file\n"                        \
    "#endif\n"                                                                                  \
    "#include <cuda/std/" x ">\n"

const char nvrtc_cxx_array[] = LIBCUXX_FORM("array")
    "namespace std {\n"
    "using cuda::std::array; using cuda::std::get;\n"
    "}\n";
const char nvrtc_cxx_bit[] = LIBCUXX_FORM("bit")
    "namespace std {\n"
    "using cuda::std::bit_cast; using cuda::std::popcount; using cuda::std::countl_zero;\n"
    "using cuda::std::countl_one; using cuda::std::countr_zero;\n"
    "using cuda::std::countr_one; using cuda::std::has_single_bit;\n"
    "using cuda::std::bit_ceil; using cuda::std::bit_floor; using cuda::std::bit_width;\n"
    "using cuda::std::rotl; using cuda::std::rotr; using cuda::std::endian;\n"
    "}\n";
const char nvrtc_cxx_functional[] = LIBCUXX_FORM("functional")
    "namespace std {\n"
    "using cuda::std::plus; using cuda::std::minus; using cuda::std::multiplies;\n"
    "using cuda::std::divides; using cuda::std::modulus; using cuda::std::negate;\n"
    "using cuda::std::equal_to; using cuda::std::not_equal_to; using cuda::std::greater;\n"
    "using cuda::std::less; using cuda::std::greater_equal; using cuda::std::less_equal;\n"
    "using cuda::std::logical_and; using cuda::std::logical_or;\n"
    "using cuda::std::logical_not; using cuda::std::bit_and; using cuda::std::bit_or;\n"
    "using cuda::std::bit_xor; using cuda::std::bit_not; using cuda::std::invoke;\n"
    "using cuda::std::reference_wrapper; using cuda::std::ref; using cuda::std::cref;\n"
    "using cuda::std::not_fn;\n"
    "}\n";
const char nvrtc_cxx_initializer_list[] = LIBCUXX_FORM("initializer_list")
    "/* std::initializer_list is NVRTC's own */\n";
const char nvrtc_cxx_iterator[] = LIBCUXX_FORM("iterator")
    "namespace std {\n"
    "using cuda::std::iterator_traits; using cuda::std::input_iterator_tag;\n"
    "using cuda::std::output_iterator_tag; using cuda::std::forward_iterator_tag;\n"
    "using cuda::std::bidirectional_iterator_tag;\n"
    "using cuda::std::random_access_iterator_tag; using cuda::std::advance;\n"
    "using cuda::std::distance; using cuda::std::next; using cuda::std::prev;\n"
    "using cuda::std::begin; using cuda::std::end; using cuda::std::cbegin;\n"
    "using cuda::std::cend; using cuda::std::rbegin; using cuda::std::rend;\n"
    "using cuda::std::crbegin; using cuda::std::crend; using cuda::std::size;\n"
    "using cuda::std::data; using cuda::std::empty; using cuda::std::reverse_iterator;\n"
    "using cuda::std::make_reverse_iterator;\n"
    "}\n";
const char nvrtc_cxx_limits[] = LIBCUXX_FORM("limits")
    "namespace std {\n"
    "using cuda::std::numeric_limits; using cuda::std::float_round_style;\n"
    "using cuda::std::float_denorm_style; using cuda::std::round_indeterminate;\n"
    "using cuda::std::round_toward_zero; using cuda::std::round_to_nearest;\n"
    "using cuda::std::round_toward_infinity; using cuda::std::round_toward_neg_infinity;\n"
    "using cuda::std::denorm_indeterminate; using cuda::std::denorm_absent;\n"
    "using cuda::std::denorm_present;\n"
    "}\n";
const char nvrtc_cxx_numbers[] = LIBCUXX_FORM("numbers")
    "namespace std { namespace numbers = cuda::std::numbers; }\n";
const char nvrtc_cxx_numeric[] = LIBCUXX_FORM("numeric")
    "namespace std {\n"
    "using cuda::std::accumulate; using cuda::std::reduce;\n"
    "using cuda::std::inner_product; using cuda::std::transform_reduce;\n"
    "using cuda::std::partial_sum; using cuda::std::exclusive_scan;\n"
    "using cuda::std::inclusive_scan; using cuda::std::transform_exclusive_scan;\n"
    "using cuda::std::transform_inclusive_scan; using cuda::std::adjacent_difference;\n"
    "using cuda::std::iota; using cuda::std::gcd; using cuda::std::lcm;\n"
    "using cuda::std::midpoint;\n"
    "}\n";
const char nvrtc_cxx_optional[] = LIBCUXX_FORM("optional")
    "namespace std {\n"
    "using cuda::std::optional; using cuda::std::nullopt_t; using cuda::std::nullopt;\n"
    "using cuda::std::make_optional; using cuda::std::in_place_t;\n"
    "using cuda::std::in_place;\n"
    "}\n";
const char nvrtc_cxx_ratio[] = LIBCUXX_FORM("ratio")
    "namespace std {\n"
    "using cuda::std::ratio; using cuda::std::ratio_add; using cuda::std::ratio_subtract;\n"
    "using cuda::std::ratio_multiply; using cuda::std::ratio_divide;\n"
    "using cuda::std::ratio_equal; using cuda::std::ratio_not_equal;\n"
    "using cuda::std::ratio_less; using cuda::std::ratio_less_equal;\n"
    "using cuda::std::ratio_greater; using cuda::std::ratio_greater_equal;\n"
    "using cuda::std::atto; using cuda::std::femto; using cuda::std::pico;\n"
    "using cuda::std::nano; using cuda::std::micro; using cuda::std::milli;\n"
    "using cuda::std::centi; using cuda::std::deci; using cuda::std::deca;\n"
    "using cuda::std::hecto; using cuda::std::kilo; using cuda::std::mega;\n"
    "using cuda::std::giga; using cuda::std::tera; using cuda::std::peta;\n"
    "using cuda::std::exa;\n"
    "}\n";
const char nvrtc_cxx_span[] = LIBCUXX_FORM("span")
    "namespace std {\n"
    "using cuda::std::span; using cuda::std::dynamic_extent;\n"
    "}\n";
const char nvrtc_cxx_tuple[] = LIBCUXX_FORM("tuple")
    "namespace std {\n"
    "using cuda::std::tuple; using cuda::std::make_tuple; using cuda::std::tie;\n"
    "using cuda::std::forward_as_tuple; using cuda::std::tuple_cat;\n"
    "using cuda::std::apply; using cuda::std::make_from_tuple;\n"
    "using cuda::std::tuple_size_v; using cuda::std::tuple_element_t;\n"
    "using cuda::std::get; using cuda::std::ignore;\n"
    "}\n";
const char nvrtc_cxx_type_traits[] = LIBCUXX_FORM("type_traits")
    "namespace std {\n"
    "using cuda::std::integral_constant; using cuda::std::bool_constant;\n"
    "using cuda::std::true_type; using cuda::std::false_type; using cuda::std::is_void;\n"
    "using cuda::std::is_null_pointer; using cuda::std::is_integral;\n"
    "using cuda::std::is_floating_point; using cuda::std::is_array;\n"
    "using cuda::std::is_enum; using cuda::std::is_union; using cuda::std::is_class;\n"
    "using cuda::std::is_function; using cuda::std::is_pointer;\n"
    "using cuda::std::is_lvalue_reference; using cuda::std::is_rvalue_reference;\n"
    "using cuda::std::is_member_object_pointer;\n"
    "using cuda::std::is_member_function_pointer; using cuda::std::is_fundamental;\n"
    "using cuda::std::is_arithmetic; using cuda::std::is_scalar;\n"
    "using cuda::std::is_object; using cuda::std::is_compound;\n"
    "using cuda::std::is_reference; using cuda::std::is_member_pointer;\n"
    "using cuda::std::is_const; using cuda::std::is_volatile;\n"
    "using cuda::std::is_trivial; using cuda::std::is_trivially_copyable;\n"
    "using cuda::std::is_standard_layout; using cuda::std::is_empty;\n"
    "using cuda::std::is_polymorphic; using cuda::std::is_abstract;\n"
    "using cuda::std::is_final; using cuda::std::is_aggregate;\n"
    "using cuda::std::is_signed; using cuda::std::is_unsigned;\n"
    "using cuda::std::is_constructible; using cuda::std::is_trivially_constructible;\n"
    "using cuda::std::is_nothrow_constructible;\n"
    "using cuda::std::is_default_constructible;\n"
    "using cuda::std::is_trivially_default_constructible;\n"
    "using cuda::std::is_nothrow_default_constructible;\n"
    "using cuda::std::is_copy_constructible;\n"
    "using cuda::std::is_trivially_copy_constructible;\n"
    "using cuda::std::is_nothrow_copy_constructible;\n"
    "using cuda::std::is_move_constructible;\n"
    "using cuda::std::is_trivially_move_constructible;\n"
    "using cuda::std::is_nothrow_move_constructible; using cuda::std::is_assignable;\n"
    "using cuda::std::is_trivially_assignable; using cuda::std::is_nothrow_assignable;\n"
    "using cuda::std::is_copy_assignable; using cuda::std::is_trivially_copy_assignable;\n"
    "using cuda::std::is_nothrow_copy_assignable; using cuda::std::is_move_assignable;\n"
    "using cuda::std::is_trivially_move_assignable;\n"
    "using cuda::std::is_nothrow_move_assignable; using cuda::std::is_destructible;\n"
    "using cuda::std::is_trivially_destructible;\n"
    "using cuda::std::is_nothrow_destructible; using cuda::std::has_virtual_destructor;\n"
    "using cuda::std::is_swappable_with; using cuda::std::is_swappable;\n"
    "using cuda::std::is_nothrow_swappable_with; using cuda::std::is_nothrow_swappable;\n"
    "using cuda::std::has_unique_object_representations; using cuda::std::alignment_of;\n"
    "using cuda::std::rank; using cuda::std::extent; using cuda::std::is_same;\n"
    "using cuda::std::is_base_of; using cuda::std::is_convertible;\n"
    "using cuda::std::is_invocable; using cuda::std::is_invocable_r;\n"
    "using cuda::std::is_nothrow_invocable; using cuda::std::is_nothrow_invocable_r;\n"
    "using cuda::std::remove_cv; using cuda::std::remove_const;\n"
    "using cuda::std::remove_volatile; using cuda::std::add_cv;\n"
    "using cuda::std::add_const; using cuda::std::add_volatile;\n"
    "using cuda::std::remove_reference; using cuda::std::add_lvalue_reference;\n"
    "using cuda::std::add_rvalue_reference; using cuda::std::make_signed;\n"
    "using cuda::std::make_unsigned; using cuda::std::remove_extent;\n"
    "using cuda::std::remove_all_extents; using cuda::std::remove_pointer;\n"
    "using cuda::std::add_pointer; using cuda::std::aligned_storage;\n"
    "using cuda::std::aligned_union; using cuda::std::decay; using cuda::std::enable_if;\n"
    "using cuda::std::conditional; using cuda::std::common_type;\n"
    "using cuda::std::underlying_type; using cuda::std::invoke_result;\n"
    "using cuda::std::void_t; using cuda::std::conjunction; using cuda::std::disjunction;\n"
    "using cuda::std::negation; using cuda::std::remove_cv_t;\n"
    "using cuda::std::remove_const_t; using cuda::std::remove_volatile_t;\n"
    "using cuda::std::add_cv_t; using cuda::std::add_const_t;\n"
    "using cuda::std::add_volatile_t; using cuda::std::remove_reference_t;\n"
    "using cuda::std::add_lvalue_reference_t; using cuda::std::add_rvalue_reference_t;\n"
    "using cuda::std::make_signed_t; using cuda::std::make_unsigned_t;\n"
    "using cuda::std::remove_extent_t; using cuda::std::remove_all_extents_t;\n"
    "using cuda::std::remove_pointer_t; using cuda::std::add_pointer_t;\n"
    "using cuda::std::aligned_storage_t; using cuda::std::decay_t;\n"
    "using cuda::std::enable_if_t; using cuda::std::conditional_t;\n"
    "using cuda::std::common_type_t; using cuda::std::underlying_type_t;\n"
    "using cuda::std::invoke_result_t; using cuda::std::remove_cvref;\n"
    "using cuda::std::remove_cvref_t; using cuda::std::type_identity;\n"
    "using cuda::std::type_identity_t; using cuda::std::is_bounded_array;\n"
    "using cuda::std::is_unbounded_array; using cuda::std::is_nothrow_convertible;\n"
    "using cuda::std::is_constant_evaluated; using cuda::std::is_void_v;\n"
    "using cuda::std::is_null_pointer_v; using cuda::std::is_integral_v;\n"
    "using cuda::std::is_floating_point_v; using cuda::std::is_array_v;\n"
    "using cuda::std::is_enum_v; using cuda::std::is_union_v;\n"
    "using cuda::std::is_class_v; using cuda::std::is_function_v;\n"
    "using cuda::std::is_pointer_v; using cuda::std::is_lvalue_reference_v;\n"
    "using cuda::std::is_rvalue_reference_v; using cuda::std::is_member_object_pointer_v;\n"
    "using cuda::std::is_member_function_pointer_v; using cuda::std::is_fundamental_v;\n"
    "using cuda::std::is_arithmetic_v; using cuda::std::is_scalar_v;\n"
    "using cuda::std::is_object_v; using cuda::std::is_compound_v;\n"
    "using cuda::std::is_reference_v; using cuda::std::is_member_pointer_v;\n"
    "using cuda::std::is_const_v; using cuda::std::is_volatile_v;\n"
    "using cuda::std::is_trivial_v; using cuda::std::is_trivially_copyable_v;\n"
    "using cuda::std::is_standard_layout_v; using cuda::std::is_empty_v;\n"
    "using cuda::std::is_polymorphic_v; using cuda::std::is_abstract_v;\n"
    "using cuda::std::is_final_v; using cuda::std::is_aggregate_v;\n"
    "using cuda::std::is_signed_v; using cuda::std::is_unsigned_v;\n"
    "using cuda::std::is_constructible_v; using cuda::std::is_trivially_constructible_v;\n"
    "using cuda::std::is_nothrow_constructible_v;\n"
    "using cuda::std::is_default_constructible_v;\n"
    "using cuda::std::is_trivially_default_constructible_v;\n"
    "using cuda::std::is_nothrow_default_constructible_v;\n"
    "using cuda::std::is_copy_constructible_v;\n"
    "using cuda::std::is_trivially_copy_constructible_v;\n"
    "using cuda::std::is_nothrow_copy_constructible_v;\n"
    "using cuda::std::is_move_constructible_v;\n"
    "using cuda::std::is_trivially_move_constructible_v;\n"
    "using cuda::std::is_nothrow_move_constructible_v; using cuda::std::is_assignable_v;\n"
    "using cuda::std::is_trivially_assignable_v;\n"
    "using cuda::std::is_nothrow_assignable_v; using cuda::std::is_copy_assignable_v;\n"
    "using cuda::std::is_trivially_copy_assignable_v;\n"
    "using cuda::std::is_nothrow_copy_assignable_v;\n"
    "using cuda::std::is_move_assignable_v;\n"
    "using cuda::std::is_trivially_move_assignable_v;\n"
    "using cuda::std::is_nothrow_move_assignable_v; using cuda::std::is_destructible_v;\n"
    "using cuda::std::is_trivially_destructible_v;\n"
    "using cuda::std::is_nothrow_destructible_v;\n"
    "using cuda::std::has_virtual_destructor_v; using cuda::std::is_swappable_with_v;\n"
    "using cuda::std::is_swappable_v; using cuda::std::is_nothrow_swappable_with_v;\n"
    "using cuda::std::is_nothrow_swappable_v;\n"
    "using cuda::std::has_unique_object_representations_v;\n"
    "using cuda::std::alignment_of_v; using cuda::std::rank_v; using cuda::std::extent_v;\n"
    "using cuda::std::is_same_v; using cuda::std::is_base_of_v;\n"
    "using cuda::std::is_convertible_v; using cuda::std::is_invocable_v;\n"
    "using cuda::std::is_invocable_r_v; using cuda::std::is_nothrow_invocable_v;\n"
    "using cuda::std::is_nothrow_invocable_r_v; using cuda::std::conjunction_v;\n"
    "using cuda::std::disjunction_v; using cuda::std::negation_v;\n"
    "}\n";
const char nvrtc_cxx_utility[] = LIBCUXX_FORM("utility")
    "namespace std {\n"
    "using cuda::std::swap; using cuda::std::exchange; using cuda::std::forward;\n"
    "using cuda::std::move; using cuda::std::move_if_noexcept; using cuda::std::as_const;\n"
    "using cuda::std::declval; using cuda::std::pair; using cuda::std::make_pair;\n"
    "using cuda::std::piecewise_construct_t; using cuda::std::piecewise_construct;\n"
    "using cuda::std::in_place_t; using cuda::std::in_place;\n"
    "using cuda::std::in_place_type_t; using cuda::std::in_place_type;\n"
    "using cuda::std::in_place_index_t; using cuda::std::in_place_index;\n"
    "using cuda::std::integer_sequence; using cuda::std::index_sequence;\n"
    "using cuda::std::make_integer_sequence; using cuda::std::make_index_sequence;\n"
    "using cuda::std::index_sequence_for; using cuda::std::tuple_element_t;\n"
    "using cuda::std::tuple_size_v; using cuda::std::get;\n"
    "}\n";
const char nvrtc_cxx_variant[] = LIBCUXX_FORM("variant")
    "namespace std {\n"
    "using cuda::std::variant; using cuda::std::monostate; using cuda::std::visit;\n"
    "using cuda::std::holds_alternative; using cuda::std::get; using cuda::std::get_if;\n"
    "using cuda::std::variant_size; using cuda::std::variant_size_v;\n"
    "using cuda::std::variant_alternative; using cuda::std::variant_alternative_t;\n"
    "using cuda::std::variant_npos;\n"
    "}\n";

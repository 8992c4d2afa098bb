// Validation of Unpack-29's inputs and attributes. The doc leaves invalid inputs unspecified;
// onnxq names each broken rule instead.
#include "ops/unpack_plan.hpp"

#include <string>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "ops/axis.hpp"

namespace onnxq::ops_detail {
namespace {

constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(INT64_MAX);

std::string str(std::uint64_t v) { return std::to_string(v); }

std::int64_t read_count(const Tensor& count) {
  if (count.dtype() != DType::Int64)
    invalid_input("Unpack: count must be an INT64 tensor, got " + std::string(dtype_info(count.dtype()).onnx_name));
  if (count.rank() != 0)
    invalid_input("Unpack: count must be a scalar (rank 0), got shape " + shape_to_string(count.shape()));
  const std::int64_t n = count.at<std::int64_t>(0);
  if (n < 0) invalid_input("Unpack: count must be nonnegative, got " + std::to_string(n));
  return n;
}

// radix^group_size exactly, or 0 when it exceeds 2^63-1.
std::uint64_t checked_power(std::uint64_t radix, std::uint64_t exponent) {
  std::uint64_t p = 1;
  for (std::uint64_t i = 0; i < exponent; ++i) {
    auto next = checked_mul(p, radix);
    if (!next || *next > kInt64Max) return 0;
    p = *next;
  }
  return p;
}

// Smallest W with 2^W >= p, in integers: a float log2 rounds wrongly near powers of two.
unsigned bits_to_hold(std::uint64_t p) {
  unsigned w = 0;
  while (w < 64 && (std::uint64_t{1} << w) < p) ++w;
  return w;
}

}  // namespace

void plan_mode(UnpackPlan& plan, const UnpackAttributes& attrs) {
  const bool has_grouped = attrs.radix.has_value() || attrs.group_size.has_value();
  if (attrs.bits && has_grouped)
    invalid_argument("Unpack: bits and radix/group_size are mutually exclusive; give one spelling");
  if (!attrs.bits && !has_grouped) invalid_argument("Unpack: give either bits or both radix and group_size");
  if (attrs.bits) {
    if (*attrs.bits < 1 || *attrs.bits > 8)
      invalid_argument("Unpack: bits must be in [1, 8], got " + std::to_string(*attrs.bits));
    plan.bits = static_cast<unsigned>(*attrs.bits);
    return;
  }
  if (!attrs.radix) invalid_argument("Unpack: group_size requires radix");
  if (!attrs.group_size) invalid_argument("Unpack: radix requires group_size");
  if (*attrs.radix < 2 || *attrs.radix > 256)
    invalid_argument("Unpack: radix must be in [2, 256], got " + std::to_string(*attrs.radix));
  if (*attrs.group_size < 1)
    invalid_argument("Unpack: group_size must be positive, got " + std::to_string(*attrs.group_size));
  plan.grouped = true;
  plan.radix = static_cast<std::uint64_t>(*attrs.radix);
  plan.group_size = static_cast<std::uint64_t>(*attrs.group_size);
  plan.group_limit = checked_power(plan.radix, plan.group_size);
  if (plan.group_limit == 0)
    invalid_argument("Unpack: radix^group_size = " + str(plan.radix) + "^" + str(plan.group_size) + " exceeds 2^63-1");
  plan.index_bits = bits_to_hold(plan.group_limit);
}

// The axis length the doc requires for plan.count, or nullopt when it does not fit 64 bits.
std::optional<std::uint64_t> required_words(const UnpackPlan& plan) {
  std::optional<std::uint64_t> total_bits;
  if (plan.grouped) {
    const std::uint64_t groups = plan.count / plan.group_size + (plan.count % plan.group_size != 0);
    total_bits = checked_mul(groups, plan.index_bits);
  } else {
    total_bits = checked_mul(plan.count, plan.bits);
  }
  if (!total_bits) return std::nullopt;
  return *total_bits / plan.word_bits + (*total_bits % plan.word_bits != 0);
}

UnpackPlan plan_unpack(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs) {
  UnpackPlan plan;
  if (x.dtype() == DType::UInt8)
    plan.word_bits = 8;
  else if (x.dtype() == DType::UInt32)
    plan.word_bits = 32;
  else
    invalid_input("Unpack: X must be UINT8 or UINT32 storage words, got " +
                  std::string(dtype_info(x.dtype()).onnx_name));
  if (x.rank() < 1) invalid_input("Unpack: X must have rank at least 1, got a scalar");
  plan_mode(plan, attrs);
  plan.axis = normalize_axis(attrs.axis, x.rank(), "Unpack");
  plan.count = static_cast<std::uint64_t>(read_count(count));
  plan.words_per_row = static_cast<std::uint64_t>(x.shape()[plan.axis]);

  const auto need = required_words(plan);
  if (!need || *need != plan.words_per_row) {
    const std::string rule =
        plan.grouped ? "ceil(ceil(count/group_size) * W / word_bits) with W = " + std::to_string(plan.index_bits)
                     : "ceil(count * bits / word_bits)";
    invalid_input("Unpack: axis " + std::to_string(plan.axis) + " of X has length " + str(plan.words_per_row) +
                  " but count " + str(plan.count) + " needs " + (need ? str(*need) : std::string("more than 2^64")) +
                  " words (" + rule + ", word_bits = " + std::to_string(plan.word_bits) + ")");
  }

  plan.output_shape = x.shape();
  plan.output_shape[plan.axis] = static_cast<std::int64_t>(plan.count);
  if (shape_element_count(plan.output_shape) != 0) {
    const AxisSplit split = split_at_axis(plan.output_shape, plan.axis);
    plan.outer = split.outer;
    plan.inner = split.inner;
  }
  return plan;
}

}  // namespace onnxq::ops_detail

namespace onnxq {

std::int64_t unpack_largest_count(const Tensor& x, const UnpackAttributes& attrs) {
  // Plan with count 0 for the checks of dtype, rank, axis and attributes; the length rule comes after.
  ops_detail::UnpackPlan plan;
  if (x.dtype() != DType::UInt8 && x.dtype() != DType::UInt32)
    invalid_input("Unpack: X must be UINT8 or UINT32 storage words, got " +
                  std::string(dtype_info(x.dtype()).onnx_name));
  if (x.rank() < 1) invalid_input("Unpack: X must have rank at least 1, got a scalar");
  plan.word_bits = x.dtype() == DType::UInt8 ? 8 : 32;
  ops_detail::plan_mode(plan, attrs);
  plan.axis = ops_detail::normalize_axis(attrs.axis, x.rank(), "Unpack");
  const auto words = static_cast<std::uint64_t>(x.shape()[plan.axis]);
  const auto total_bits = checked_mul(words, plan.word_bits);
  if (!total_bits) invalid_input("Unpack: axis length " + std::to_string(words) + " is too long");
  const unsigned unit = plan.grouped ? plan.index_bits : plan.bits;
  const std::uint64_t units = *total_bits / unit;
  const auto count = plan.grouped ? checked_mul(units, plan.group_size) : std::optional<std::uint64_t>(units);
  if (!count || *count > static_cast<std::uint64_t>(INT64_MAX))
    invalid_input("Unpack: the largest count for axis length " + std::to_string(words) + " exceeds 2^63-1");
  plan.count = *count;
  const auto need = ops_detail::required_words(plan);
  if (!need || *need != words)
    invalid_input("Unpack: no count fits axis length " + std::to_string(words) + ": " + std::to_string(units) +
                  " whole groups of W = " + std::to_string(unit) + " bits pack into fewer words");
  return static_cast<std::int64_t>(*count);
}

}  // namespace onnxq

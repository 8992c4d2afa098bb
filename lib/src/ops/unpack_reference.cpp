// The scalar oracle for Unpack-29: bit p of a row is bit p % word_bits of word floor(p / word_bits),
// with every row starting at bit 0 of its first word.
#include <algorithm>
#include <string>

#include "onnxq/core/error.hpp"
#include "ops/unpack_plan.hpp"

namespace onnxq::ops_detail {
namespace {

// One row of X: words at a stride of `inner` elements starting at element `first`.
class RowBits {
 public:
  RowBits(const Tensor& x, unsigned word_bits, std::uint64_t first, std::uint64_t stride)
      : x_(x), word_bits_(word_bits), first_(first), stride_(stride) {}

  // n <= 63 bits starting at bit `pos`, the first one as the least significant.
  std::uint64_t read(std::uint64_t pos, unsigned n) const {
    std::uint64_t value = 0;
    unsigned got = 0;
    while (got < n) {
      const std::uint64_t word = word_at(pos / word_bits_);
      const unsigned offset = static_cast<unsigned>(pos % word_bits_);
      const unsigned take = std::min(word_bits_ - offset, n - got);
      value |= ((word >> offset) & ((std::uint64_t{1} << take) - 1)) << got;
      got += take;
      pos += take;
    }
    return value;
  }

 private:
  std::uint64_t word_at(std::uint64_t b) const {
    const std::size_t i = static_cast<std::size_t>(first_ + b * stride_);
    return word_bits_ == 8 ? x_.at<std::uint8_t>(i) : x_.at<std::uint32_t>(i);
  }

  const Tensor& x_;
  unsigned word_bits_;
  std::uint64_t first_;
  std::uint64_t stride_;
};

}  // namespace

void unpack_reference_kernel(const UnpackPlan& plan, const Tensor& x, std::uint8_t* out) {
  const std::uint64_t B = plan.words_per_row, inner = plan.inner, count = plan.count;
  for (std::uint64_t o = 0; o < plan.outer; ++o) {
    for (std::uint64_t j = 0; j < inner; ++j) {
      const RowBits row(x, plan.word_bits, o * B * inner + j, inner);
      std::uint8_t* dst = out + o * count * inner + j;  // code i goes to dst[i * inner]
      if (!plan.grouped) {
        for (std::uint64_t i = 0; i < count; ++i)
          dst[i * inner] = static_cast<std::uint8_t>(row.read(i * plan.bits, plan.bits));
        continue;
      }
      const std::uint64_t groups = count / plan.group_size + (count % plan.group_size != 0);
      for (std::uint64_t g = 0; g < groups; ++g) {
        std::uint64_t index = row.read(g * plan.index_bits, plan.index_bits);
        if (index >= plan.group_limit)
          invalid_input("Unpack: group " + std::to_string(g) + " of row " + std::to_string(o * inner + j) +
                        " has index " + std::to_string(index) +
                        ", not below radix^group_size = " + std::to_string(plan.group_limit));
        // Digits least significant first; the last group's unused digits are dropped.
        for (std::uint64_t d = 0; d < plan.group_size && g * plan.group_size + d < count; ++d) {
          dst[(g * plan.group_size + d) * inner] = static_cast<std::uint8_t>(index % plan.radix);
          index /= plan.radix;
        }
      }
    }
  }
}

}  // namespace onnxq::ops_detail

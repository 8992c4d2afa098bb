// Unpack along the last axis through a row-kernel set (lib/src/simd/: the portable kernels or an
// ISA's), one row at a time; the dispatch point (lib/src/decode/dispatch.cpp) picks the set.
#include <bit>

#include "decode/dispatch.hpp"
#include "onnxq/decode/isa.hpp"  // streaming_store_threshold
#include "ops/unpack_plan.hpp"
#include "simd/unpack_kernels.hpp"

namespace onnxq::ops_detail {

bool unpack_fast_kernel(const UnpackPlan& plan, const Tensor& x, std::uint8_t* out) {
  return unpack_fast_kernel(plan, x, out, decode::unpack_kernels());
}

bool unpack_fast_kernel(const UnpackPlan& plan, const Tensor& x, std::uint8_t* out,
                        const simd::UnpackKernels& kernels) {
  if constexpr (std::endian::native != std::endian::little) return false;
  if (plan.inner != 1) return false;
  const bool radix3 = plan.grouped && plan.radix == 3 && plan.group_size == 5;
  if (plan.grouped && !radix3) return false;
  const std::uint64_t row_bytes = plan.words_per_row * (plan.word_bits / 8);
  const auto* in = reinterpret_cast<const std::uint8_t*>(x.bytes().data());
  const std::uint64_t count = plan.count;
  // Outputs far larger than the caches, not read back right away: non-temporal stores where offered.
  const bool stream = plan.outer * count >= streaming_store_threshold();
  if (!radix3) {
    simd::BitsRowFn row = stream ? kernels.bits_stream[plan.bits] : nullptr;
    if (!row)
      row = kernels.bits[plan.bits] ? kernels.bits[plan.bits] : simd::portable::unpack_kernels().bits[plan.bits];
    for (std::uint64_t r = 0; r < plan.outer; ++r) row(in + r * row_bytes, out + r * count, count, row_bytes);
    return true;
  }
  simd::Radix3RowFn row = stream ? kernels.radix3_stream : nullptr;
  if (!row) row = kernels.radix3 ? kernels.radix3 : simd::portable::unpack_kernels().radix3;
  for (std::uint64_t r = 0; r < plan.outer; ++r)
    if (!row(in + r * row_bytes, out + r * count, count)) return false;
  return true;
}

}  // namespace onnxq::ops_detail

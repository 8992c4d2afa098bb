// Unpack-29 after validation: everything a kernel needs, with every rule of the doc already checked.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "onnxq/ops/unpack.hpp"
#include "simd/unpack_kernels.hpp"

namespace onnxq::ops_detail {

struct UnpackPlan {
  unsigned word_bits = 8;   // 8 for UINT8 storage, 32 for UINT32
  bool grouped = false;     // radix/group_size spelling
  unsigned bits = 0;        // bits mode: bits per code
  std::uint64_t radix = 0;  // grouped mode
  std::uint64_t group_size = 0;
  std::uint64_t group_limit = 0;  // radix^group_size: every group index must be below it
  unsigned index_bits = 0;        // W: smallest integer with 2^W >= radix^group_size
  std::uint64_t count = 0;        // output codes per row
  std::size_t axis = 0;
  std::uint64_t words_per_row = 0;  // B, the input axis length
  std::uint64_t outer = 0;          // rows = outer * inner; zero when the output is empty
  std::uint64_t inner = 0;
  Shape output_shape;
};

// Sets the mode fields of `plan` from attrs (bits, or radix/group_size with R^G and W); throws on bad values.
void plan_mode(UnpackPlan& plan, const UnpackAttributes& attrs);
// The axis length the doc requires for plan.count, or nullopt past 64 bits.
std::optional<std::uint64_t> required_words(const UnpackPlan& plan);

// Checks x, count and attrs against Unpack-29; throws Error naming the rule broken.
UnpackPlan plan_unpack(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs);

// The scalar oracle: reads bits exactly as the doc numbers them. Writes outer*count*inner codes.
void unpack_reference_kernel(const UnpackPlan& plan, const Tensor& x, std::uint8_t* out);

// Fast paths for rows contiguous in memory (last axis); false when the plan is not one they cover.
// Uses the kernel set of the active SIMD path (ONNXQ_ISA / select_isa).
bool unpack_fast_kernel(const UnpackPlan& plan, const Tensor& x, std::uint8_t* out);

// The same through one kernel set (its missing entries fall back to the portable kernels).
bool unpack_fast_kernel(const UnpackPlan& plan, const Tensor& x, std::uint8_t* out, const simd::UnpackKernels& kernels);

}  // namespace onnxq::ops_detail

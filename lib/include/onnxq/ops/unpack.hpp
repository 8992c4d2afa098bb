// Unpack-29: LSB-first bit codes or radix/group codes from UINT8/UINT32 words to UINT8.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

struct UnpackAttributes {
  std::int64_t axis = -1;
  std::optional<std::int64_t> bits;  // exclusive with radix/group_size
  std::optional<std::int64_t> radix;
  std::optional<std::int64_t> group_size;
};

// x: UINT8 or UINT32, rank >= 1; count: scalar INT64. Throws Error naming the rule broken.
Tensor unpack(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs);

// As unpack(), into `y`: an owned UINT8 tensor of the output shape (reused buffers, benchmarks).
void unpack_into(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs, Tensor& y);

// The largest count whose packed length equals x's axis length (a default when no count is given).
// Throws Error when no count fits (a grouped W wider than the leftover bits) or the attributes are invalid.
std::int64_t unpack_largest_count(const Tensor& x, const UnpackAttributes& attrs);

// The Unpack kernel sets this CPU and build run, portable first: "portable", then any of "avx2",
// "avx512", "avx512vbmi", "neon". unpack() and unpack_into() use the one the active SIMD path picks.
std::vector<std::string> unpack_kernel_paths();
// unpack_into() through the named kernel set (tests and benchmarks compare them). Throws
// Error(Unsupported) for a name that is not in unpack_kernel_paths().
void unpack_into_path(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs, Tensor& y,
                      std::string_view path);

// The same result from the scalar reference kernel only: the oracle the fast paths are tested against.
Tensor unpack_reference(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs);

}  // namespace onnxq

// ggml's data layout: the data section starts at the end of the tensor infos padded to the
// alignment, and each tensor's data starts where the previous one's ends, padded the same way.
// ggml's reader demands exactly this chain, so a writer produces it and `onnxq check` compares with it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace onnxq {

// `offset` rounded up to a multiple of `alignment` (a power of two); nullopt on overflow.
std::optional<std::uint64_t> gguf_padded(std::uint64_t offset, std::uint64_t alignment);

// The data offsets ggml expects for tensors of `byte_sizes`, in tensor-info order, followed by the
// padded size of the whole data section: byte_sizes.size() + 1 values. Where the running sum
// overflows 64 bits the chain stops: the last value given is the offset of the tensor whose end
// cannot be reached.
std::vector<std::uint64_t> gguf_tensor_offsets(std::span<const std::uint64_t> byte_sizes, std::uint64_t alignment);

}  // namespace onnxq

// Decoding the data of a GGUF tensor, whatever the file's byte order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/file.hpp"

namespace onnxq {

// True when the tensor's elements are stored big-endian: plain multi-byte types (F16, F32,
// I32 ...) in a big-endian file. Blocks of the quantized formats keep their little-endian
// fields in such files (writers byte-swap only multi-byte numeric arrays), so they never are.
bool tensor_data_is_big_endian(const GgufFile& model, const TensorInfo& tensor);

// The tensor's bytes with plain elements in little-endian order: a view of the mapping, or a
// copy kept in `storage` (byte-swapped big-endian plain data; all of a remote tensor, read whole).
std::span<const std::byte> little_endian_tensor_bytes(const GgufFile& model, const TensorInfo& tensor,
                                                      std::vector<std::byte>& storage);

// decode_blocks() on a GGUF tensor's bytes, byte-swapping big-endian plain elements first.
// Of a remote tensor only these blocks are read.
void decode_tensor_blocks(const GgufFile& model, const TensorInfo& tensor, std::uint64_t first_block,
                          std::uint64_t block_count, DType out_dtype, void* dst, int threads = 0);

}  // namespace onnxq

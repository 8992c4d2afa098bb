// Decoding the data of a GGUF tensor, whatever the file's byte order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/byte_order.hpp"
#include "onnxq/gguf/file.hpp"

namespace onnxq {

// True when the tensor's stored numbers are big-endian: a big-endian file, and a type with
// multi-byte numbers (plain F16, F32, I32 ..., or block fields such as the binary16 scales;
// see onnxq/formats/byte_order.hpp for the rule). mxfp4 and nvfp4 blocks never are.
bool tensor_data_is_big_endian(const GgufFile& model, const TensorInfo& tensor);

// Blocks [first_block, first_block + block_count) of the tensor in little-endian order: a view
// of the mapping, or a copy kept in `scratch` (big-endian data byte-swapped; a remote tensor's
// blocks, read).
std::span<const std::byte> little_endian_tensor_blocks(const GgufFile& model, const TensorInfo& tensor,
                                                       std::uint64_t first_block, std::uint64_t block_count,
                                                       std::vector<std::byte>& scratch);

// decode_blocks() on a GGUF tensor's bytes. Big-endian data is byte-swapped a few hundred
// KiB at a time into a scratch buffer per thread, so memory stays bounded. Of a remote tensor
// only these blocks are read.
void decode_tensor_blocks(const GgufFile& model, const TensorInfo& tensor, std::uint64_t first_block,
                          std::uint64_t block_count, DType out_dtype, void* dst, int threads = 0);

}  // namespace onnxq

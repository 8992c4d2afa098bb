// Decoding the data of a GGUF tensor, whatever the file's byte order or place.
#pragma once

#include <cstdint>

#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_reader.hpp"

namespace onnxq {

// decode_blocks() on a GGUF tensor's blocks, read through its TensorReader a chunk at a time
// (one scratch buffer per thread), so memory stays bounded: big-endian data is swapped chunk by
// chunk, and of a remote tensor only these blocks are read.
void decode_tensor_blocks(const GgufModel& model, const TensorInfo& tensor, std::uint64_t first_block,
                          std::uint64_t block_count, DType out_dtype, void* dst, int threads = 0);

}  // namespace onnxq

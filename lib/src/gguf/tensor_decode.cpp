#include "onnxq/gguf/tensor_decode.hpp"

namespace onnxq {

void decode_tensor_blocks(const GgufModel& model, const TensorInfo& tensor, std::uint64_t first_block,
                          std::uint64_t block_count, DType out_dtype, void* dst, int threads) {
  decode_blocks(TensorReader(model, tensor), first_block, block_count, out_dtype, dst, threads);
}

}  // namespace onnxq

// The one export dtype rule, shared by the safetensors and the ONNX export: block formats become the
// float type asked for (FLOAT by default), plain floats keep theirs unless asked, integers always
// keep theirs.
#include <gtest/gtest.h>

#include "onnxq/decode/decode_blocks.hpp"

namespace onnxq {
namespace {

TEST(ExportDtype, BlockFormatsPlainFloatsAndIntegers) {
  const BlockFormat& q4_k = *find_format("q4_k");
  const BlockFormat& f16 = *find_format("f16");
  const BlockFormat& i32 = *find_format("i32");
  EXPECT_EQ(export_decode_dtype(q4_k, std::nullopt), DType::Float);
  EXPECT_EQ(export_decode_dtype(q4_k, DType::BFloat16), DType::BFloat16);
  EXPECT_EQ(export_decode_dtype(f16, std::nullopt), DType::Float16);
  EXPECT_EQ(export_decode_dtype(f16, DType::Float), DType::Float);
  EXPECT_EQ(export_decode_dtype(i32, std::nullopt), DType::Int32);
  EXPECT_EQ(export_decode_dtype(i32, DType::Float16), DType::Int32);
}

}  // namespace
}  // namespace onnxq

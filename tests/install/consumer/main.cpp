// Decodes one q4_0 block through the installed headers and library.
#include <onnxq/decode/decode_blocks.hpp>
#include <onnxq/formats/format.hpp>
#include <onnxq/ops/dequantize_packed.hpp>

#include <cstdio>

int main() {
  const onnxq::BlockFormat* q4_0 = onnxq::find_format("gguf:q4_0");
  if (!q4_0 || q4_0->block_bytes != 18 || q4_0->block_elements != 32) return 1;
  // d = 1.0 (half 0x3C00); codes 0..15 in the low nibbles, 15 in the high ones: y = code - 8.
  onnxq::Tensor x = onnxq::Tensor::zeros(onnxq::DType::UInt8, {18});
  auto* b = x.mutable_data<unsigned char>();
  b[0] = 0x00;
  b[1] = 0x3C;
  for (int i = 0; i < 16; ++i) b[2 + i] = static_cast<unsigned char>(i | 0xF0);
  onnxq::DequantizePackedAttributes attrs;
  attrs.format = "gguf:q4_0";
  attrs.shape = {32};
  const onnxq::Tensor y = onnxq::dequantize_packed(x, attrs);
  for (int i = 0; i < 32; ++i) {
    const float want = i < 16 ? static_cast<float>(i - 8) : 7.0f;
    if (y.at<float>(i) != want) {
      std::printf("element %d: %g, expected %g\n", i, y.at<float>(i), want);
      return 1;
    }
  }
  std::printf("ok: %s decoded through the installed onnxq\n", q4_0->ggml_name.data());
  return 0;
}

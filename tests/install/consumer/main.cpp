// Decodes one q4_0 block through the installed headers and library, and hashes an empty model
// (the hashes link libxxhash and libcrypto, private dependencies the package files must name).
#include <onnxq/decode/decode_blocks.hpp>
#include <onnxq/formats/format.hpp>
#include <onnxq/gguf/model.hpp>
#include <onnxq/hash/model_hash.hpp>
#include <onnxq/ops/dequantize_packed.hpp>

#include <cstddef>
#include <cstdio>
#include <vector>

// A GGUF v3 header with no tensors and no metadata: its model hashes are those of no bytes.
bool empty_model_hashes_are_known() {
  std::vector<std::byte> file(24, std::byte{0});
  const char magic[] = "GGUF";
  for (int i = 0; i < 4; ++i) file[i] = static_cast<std::byte>(magic[i]);
  file[4] = std::byte{3};
  const onnxq::GgufModel model = onnxq::GgufModel::parse(file, "empty.gguf");
  onnxq::HashSelection types;
  types[onnxq::HashType::Xxh64] = types[onnxq::HashType::Sha256] = true;
  const std::vector<onnxq::HashRow> rows = onnxq::hash_model(model, types, false);
  return rows.size() == 2 && rows[0].hex == "ef46db3751d8e999" &&
         rows[1].hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
}

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
  if (!empty_model_hashes_are_known()) {
    std::printf("the hashes of an empty model are wrong\n");
    return 1;
  }
  std::printf("ok: %s decoded through the installed onnxq\n", q4_0->ggml_name.data());
  return 0;
}

// What a tensor-info record keeps: the stored type id beside the format it names.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "onnxq/gguf/model.hpp"

namespace onnxq {
namespace {

TEST(TensorInfo, KeepsTheStoredTypeIdBesideItsFormat) {
  const GgufModel model = GgufModel::open(std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf");
  ASSERT_FALSE(model.tensors().empty());
  for (const TensorInfo& t : model.tensors()) {
    ASSERT_NE(t.format, nullptr) << t.name;
    EXPECT_EQ(t.ggml_type, t.format->ggml_type) << t.name;
  }
  // ggml's numbers, read from the file rather than from the format table.
  EXPECT_EQ(model.find_tensor("q4_k.weight")->ggml_type, 12u);
  EXPECT_EQ(model.find_tensor("iq2_xxs.weight")->ggml_type, 16u);
  EXPECT_EQ(model.find_tensor("mxfp4.weight")->ggml_type, 39u);
}

}  // namespace
}  // namespace onnxq

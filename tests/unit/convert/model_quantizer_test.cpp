// The model quantizer on small models made here: every quantized tensor's bytes equal quantize_rows
// on the same float data, and for a few types ggml's own bytes (testdata/quantize/); metadata,
// names and order kept; importance weights per expert; refusals before anything is written; a
// failure mid-write leaves no output and an existing one intact. Plans are made by hand (plain
// data), so these tests do not depend on the preset rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>

#include "expected_npy.hpp"
#include "gguf_builder.hpp"
#include "onnxq/convert/model_quantizer.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/npy/safetensors_writer.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;
using testing::read_file_bytes;
using testing::testdata_path;

constexpr std::uint32_t kF32 = 0, kF16 = 1, kQ8_0 = 8, kBF16 = 30;

std::vector<float> floats_of(const std::string& relative) {
  const std::vector<std::byte> bytes = read_file_bytes(testdata_path(relative));
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<std::uint16_t> to_f16(const std::vector<float>& x) {
  std::vector<std::uint16_t> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = float_to_half(x[i]);
  return h;
}
std::vector<std::uint16_t> to_bf16(const std::vector<float>& x) {
  std::vector<std::uint16_t> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = float_to_bf16(x[i]);
  return h;
}

std::vector<std::byte> quantize(const BlockFormat& f, DType dtype, const void* src, std::uint64_t rows,
                                std::uint64_t n_per_row, std::span<const float> importance = {}) {
  std::vector<std::byte> out(rows * quantized_row_bytes(f, n_per_row));
  quantize_rows({&f, dtype, src, rows, n_per_row, importance, out.data()}, 1);
  return out;
}

std::vector<std::byte> tensor_bytes(const GgufModel& model, std::string_view name) {
  const TensorInfo* t = model.find_tensor(name);
  if (t == nullptr) return {};
  std::vector<std::byte> storage;
  const auto bytes = model.tensor_bytes(*t, 0, t->byte_size, storage);
  return {bytes.begin(), bytes.end()};
}

class ModelQuantizer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("onnxq_mq_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    x_ = floats_of("quantize/common.input.f32");  // 32 rows of 256
    w_ = floats_of("quantize/common.importance.f32");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static void write(const std::string& file, std::span<const std::uint8_t> bytes) {
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

  // A llama-like model: F32, F16 and BF16 matrices of the common rows, a 1-D norm, a 3-D expert
  // tensor of two experts of 16 rows.
  std::string write_model(const std::string& name) {
    GgufBuilder b;
    b.kv_str("general.architecture", "llama").kv_str("general.name", "tiny").kv_u32("llama.block_count", 2);
    auto add = [&](std::string tensor, std::vector<std::uint64_t> ne, std::uint32_t type, std::vector<std::uint8_t> d) {
      BuilderTensor t;
      t.name = std::move(tensor);
      t.ne = std::move(ne);
      t.type = type;
      t.data = std::move(d);
      b.tensor(std::move(t));
    };
    add("blk.0.attn_q.weight", {256, 32}, kF32, bytes_of(x_));
    add("blk.0.attn_norm.weight", {256}, kF32, bytes_of(std::vector<float>(x_.begin(), x_.begin() + 256)));
    add("blk.0.ffn_down.weight", {256, 32}, kF16, bytes_of(to_f16(x_)));
    add("blk.0.ffn_up.weight", {256, 32}, kBF16, bytes_of(to_bf16(x_)));
    add("blk.1.ffn_gate_exps.weight", {256, 16, 2}, kF32, bytes_of(x_));
    const std::string file = path(name);
    write(file, b.build());
    return file;
  }

  // Every tensor but the 1-D one to `type`.
  static QuantizePlan plan_for(const BlockFormat& type, std::uint32_t file_type = 15) {
    QuantizePlan plan;
    plan.file_type = file_type;
    const std::uint32_t from[] = {kF32, kF32, kF16, kBF16, kF32};
    const std::uint64_t elements[] = {8192, 256, 8192, 8192, 8192};
    for (int i = 0; i < 5; ++i) {
      PlannedTensor t;
      t.from_type = from[i];
      t.copy = i == 1;
      t.to_type = t.copy ? from[i] : type.ggml_type;
      t.bytes_before = elements[i] * (from[i] == kF32 ? 4 : 2);
      t.bytes_after = t.copy ? t.bytes_before : elements[i] / type.block_elements * type.block_bytes;
      t.reason = "test";
      plan.tensors.push_back(t);
    }
    return plan;
  }

  std::filesystem::path dir_;
  std::vector<float> x_, w_;
};

TEST_F(ModelQuantizer, BytesEqualQuantizeRowsAndGgml) {
  const std::string in = write_model("in.gguf");
  for (const char* type : {"q4_k", "q8_0", "q6_k", "iq4_xs", "q5_0", "q3_k"}) {
    SCOPED_TRACE(type);
    const BlockFormat& f = *find_format(type);
    const QuantizePlan plan = plan_for(f);
    const std::string out = path(std::string(type) + ".gguf");
    const ModelQuantizeReport report = quantize_model_with_plan(in, out, &plan, {});
    const GgufModel model = GgufModel::open(out);
    // Names, order, types, metadata.
    ASSERT_EQ(model.tensors().size(), 5u);
    const char* names[] = {"blk.0.attn_q.weight", "blk.0.attn_norm.weight", "blk.0.ffn_down.weight",
                           "blk.0.ffn_up.weight", "blk.1.ffn_gate_exps.weight"};
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(model.tensors()[i].name, names[i]);
      EXPECT_EQ(model.tensors()[i].ggml_type, plan.tensors[i].to_type);
    }
    EXPECT_EQ(model.tensors()[4].ne, (std::vector<std::uint64_t>{256, 16, 2}));
    ASSERT_NE(model.find_metadata("general.name"), nullptr);
    EXPECT_EQ(model.find_metadata("general.name")->as_string(), "tiny");
    for (const char* key : {"llama.block_count", "general.file_type", "general.quantization_version"})
      ASSERT_NE(model.find_metadata(key), nullptr) << key;
    EXPECT_EQ(model.find_metadata("llama.block_count")->as_u64(), 2u);
    EXPECT_EQ(model.find_metadata("general.file_type")->type(), GgufType::UInt32);
    EXPECT_EQ(model.find_metadata("general.file_type")->as_u64(), 15u);
    EXPECT_EQ(model.find_metadata("general.quantization_version")->type(), GgufType::UInt32);
    EXPECT_EQ(model.find_metadata("general.quantization_version")->as_u64(), 2u);
    EXPECT_EQ(report.file_size, std::filesystem::file_size(out));

    // ggml's bytes: the first half of the expectation file is without importance weights.
    const std::vector<std::byte> ggml = read_file_bytes(testdata_path("quantize/common." + std::string(type) + ".bin"));
    const std::vector<std::byte> q = tensor_bytes(model, "blk.0.attn_q.weight");
    ASSERT_EQ(q.size() * 2, ggml.size());
    EXPECT_TRUE(std::equal(q.begin(), q.end(), ggml.begin()));
    EXPECT_EQ(tensor_bytes(model, "blk.1.ffn_gate_exps.weight"), q);  // two experts of the same rows
    // F16 and BF16 sources are widened exactly: quantize_rows on the stored halves.
    const auto h = to_f16(x_), bf = to_bf16(x_);
    EXPECT_EQ(tensor_bytes(model, "blk.0.ffn_down.weight"), quantize(f, DType::Float16, h.data(), 32, 256));
    EXPECT_EQ(tensor_bytes(model, "blk.0.ffn_up.weight"), quantize(f, DType::BFloat16, bf.data(), 32, 256));
    // The copied tensor is the input's bytes.
    const GgufModel input = GgufModel::open(in);
    EXPECT_EQ(tensor_bytes(model, "blk.0.attn_norm.weight"), tensor_bytes(input, "blk.0.attn_norm.weight"));
  }
}

// A .dat importance matrix: entry weights divided by ncall (1 here, so exact); the expert tensor
// takes one row of weights per expert.
TEST_F(ModelQuantizer, ImportanceWeightsPerTensorAndExpert) {
  const std::string in = write_model("in.gguf");
  std::vector<std::uint8_t> dat;
  auto i32 = [&](std::int32_t v) {
    for (int i = 0; i < 4; ++i) dat.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  auto entry = [&](const std::string& name, const std::vector<float>& values) {
    i32(static_cast<std::int32_t>(name.size()));
    dat.insert(dat.end(), name.begin(), name.end());
    i32(1);
    i32(static_cast<std::int32_t>(values.size()));
    const auto b = bytes_of(values);
    dat.insert(dat.end(), b.begin(), b.end());
  };
  std::vector<float> experts(w_);
  for (float v : w_) experts.push_back(v * 0.25f + 1.0f);  // expert 1's weights differ
  i32(2);
  entry("blk.0.attn_q.weight", w_);
  entry("blk.1.ffn_gate_exps.weight", experts);
  const std::string imatrix = path("w.dat");
  write(imatrix, dat);

  const BlockFormat& f = *find_format("q4_k");
  const QuantizePlan plan = plan_for(f);
  ModelQuantizeOptions options;
  options.imatrix = imatrix;
  const std::string out = path("w.gguf");
  const ModelQuantizeReport report = quantize_model_with_plan(in, out, &plan, options);
  EXPECT_TRUE(report.tensors[0].importance);
  EXPECT_FALSE(report.tensors[2].importance);
  EXPECT_TRUE(report.tensors[4].importance);
  const GgufModel model = GgufModel::open(out);
  const std::vector<std::byte> ggml = read_file_bytes(testdata_path("quantize/common.q4_k.bin"));
  const std::vector<std::byte> q = tensor_bytes(model, "blk.0.attn_q.weight");
  EXPECT_TRUE(std::equal(q.begin(), q.end(), ggml.begin() + ggml.size() / 2));  // the weighted half
  std::vector<std::byte> want = quantize(f, DType::Float, x_.data(), 16, 256, std::span(experts).first(256));
  const std::vector<std::byte> second =
      quantize(f, DType::Float, x_.data() + 16 * 256, 16, 256, std::span(experts).subspan(256));
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(tensor_bytes(model, "blk.1.ffn_gate_exps.weight"), want);
  // Without the matrix the tensor without an entry is unchanged, the others differ.
  EXPECT_EQ(tensor_bytes(model, "blk.0.ffn_down.weight"), quantize(f, DType::Float16, to_f16(x_).data(), 32, 256));
}

// Already-quantized data is decoded exactly, then quantized.
TEST_F(ModelQuantizer, RequantizesFromDecodedValues) {
  const BlockFormat& q8 = *find_format("q8_0");
  const std::vector<std::byte> packed = quantize(q8, DType::Float, x_.data(), 32, 256);
  GgufBuilder b;
  b.kv_str("general.architecture", "llama");
  BuilderTensor t;
  t.name = "w";
  t.ne = {256, 32};
  t.type = kQ8_0;
  t.data.resize(packed.size());
  std::memcpy(t.data.data(), packed.data(), packed.size());
  b.tensor(t);
  const std::string in = path("q8.gguf");
  write(in, b.build());
  const BlockFormat& f = *find_format("q4_k");
  QuantizePlan plan;
  plan.file_type = 15;
  plan.tensors.push_back({kQ8_0, f.ggml_type, false, packed.size(), 32u * 144u, "test"});
  quantize_model_with_plan(in, path("re.gguf"), &plan, {});
  std::vector<float> decoded(8192);
  decode_blocks(q8, packed, 0, 256, DType::Float, decoded.data(), 1);
  EXPECT_EQ(tensor_bytes(GgufModel::open(path("re.gguf")), "w"), quantize(f, DType::Float, decoded.data(), 32, 256));
}

void expect_intact(const std::string& file, const std::string& text) {
  std::ifstream in(file, std::ios::binary);
  const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(got == text) << file << " holds " << got.size() << " bytes, not the " << text.size() << " it held";
}

TEST_F(ModelQuantizer, RefusesAMissingImportanceEntryBeforeWriting) {
  const std::string in = write_model("in.gguf");
  const std::string out = path("old.gguf");
  write(out, std::vector<std::uint8_t>{'o', 'l', 'd'});
  const QuantizePlan plan = plan_for(*find_format("iq2_xxs"));
  try {
    quantize_model_with_plan(in, out, &plan, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("tensor 'blk.0.attn_q.weight': IQ2_XXS needs an importance matrix"),
              std::string::npos)
        << e.what();
  }
  expect_intact(out, "old");
  // An imatrix entry of the wrong length is refused too, naming the file and the entry.
  std::vector<std::uint8_t> dat = {1, 0, 0, 0, 19, 0, 0, 0};
  const std::string name = "blk.0.attn_q.weight";
  dat.insert(dat.end(), name.begin(), name.end());
  for (std::uint8_t v : {1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 128, 63, 0, 0, 128, 63}) dat.push_back(v);
  write(path("short.dat"), dat);
  ModelQuantizeOptions options;
  options.imatrix = path("short.dat");
  const QuantizePlan q4 = plan_for(*find_format("q4_k"));
  try {
    quantize_model_with_plan(in, out, &q4, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("entry 'blk.0.attn_q.weight' has 2 weights; the tensor needs 256"),
              std::string::npos)
        << e.what();
  }
  expect_intact(out, "old");
}

TEST_F(ModelQuantizer, ANonFiniteValueLeavesNoOutput) {
  x_[5 * 256 + 7] = std::nanf("");
  const std::string in = write_model("nan.gguf");
  const std::string out = path("old.gguf");
  write(out, std::vector<std::uint8_t>{'o', 'l', 'd'});
  const QuantizePlan plan = plan_for(*find_format("q4_k"));
  try {
    quantize_model_with_plan(in, out, &plan, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("tensor 'blk.0.attn_q.weight': row 5"), std::string::npos) << e.what();
  }
  expect_intact(out, "old");
  const std::string fresh = path("fresh.gguf");
  EXPECT_THROW(quantize_model_with_plan(in, fresh, &plan, {}), Error);
  EXPECT_FALSE(std::filesystem::exists(fresh));
  // No temporary left beside it either.
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".onnxq-"), std::string::npos) << entry.path();
}

TEST_F(ModelQuantizer, ACutInputIsRefusedAndLeavesNoOutput) {
  const std::string in = write_model("whole.gguf");
  std::filesystem::resize_file(in, std::filesystem::file_size(in) - 1000);
  const std::string out = path("old.gguf");
  write(out, std::vector<std::uint8_t>{'o', 'l', 'd'});
  const QuantizePlan plan = plan_for(*find_format("q4_k"));
  EXPECT_THROW(quantize_model_with_plan(in, out, &plan, {}), Error);
  expect_intact(out, "old");
}

TEST_F(ModelQuantizer, SafetensorsInput) {
  // Header order is not name order: the output keeps it. Safetensors shapes are row-major.
  const auto h = to_f16(x_);
  std::vector<std::uint8_t> data = bytes_of(h);
  const std::vector<std::uint8_t> f32 = bytes_of(x_);
  data.insert(data.end(), f32.begin(), f32.end());
  const std::string header = safetensors_header({{"z.weight", DType::Float16, {32, 256}, 0, 16384},
                                                 {"a.weight", DType::Float, {2, 16, 256}, 16384, 16384 + 32768}},
                                                {{"format", "pt"}});
  std::vector<std::uint8_t> file(header.begin(), header.end());
  file.insert(file.end(), data.begin(), data.end());
  const std::string in = path("m.safetensors");
  write(in, file);
  const BlockFormat& f = *find_format("q8_0");
  QuantizePlan plan;
  plan.file_type = 7;
  plan.tensors.push_back({kF16, f.ggml_type, false, 16384, 32u * 272u, "test"});
  plan.tensors.push_back({kF32, f.ggml_type, false, 32768, 32u * 272u, "test"});
  ModelQuantizeOptions options;
  options.architecture = "flux";
  const ModelQuantizeReport report = quantize_model_with_plan(in, path("st.gguf"), &plan, options);
  EXPECT_EQ(report.input_kind, "safetensors");
  const GgufModel model = GgufModel::open(path("st.gguf"));
  ASSERT_EQ(model.tensors().size(), 2u);
  EXPECT_EQ(model.tensors()[0].name, "z.weight");
  EXPECT_EQ(model.tensors()[1].ne, (std::vector<std::uint64_t>{256, 16, 2}));
  ASSERT_NE(model.find_metadata("general.architecture"), nullptr);
  ASSERT_NE(model.find_metadata("safetensors.format"), nullptr);
  EXPECT_EQ(model.find_metadata("general.architecture")->as_string(), "flux");
  EXPECT_EQ(model.find_metadata("safetensors.format")->as_string(), "pt");
  const std::vector<std::byte> ggml = read_file_bytes(testdata_path("quantize/common.q8_0.bin"));
  const std::vector<std::byte> a = tensor_bytes(model, "a.weight");
  EXPECT_TRUE(std::equal(a.begin(), a.end(), ggml.begin()));
  EXPECT_EQ(tensor_bytes(model, "z.weight"), quantize(f, DType::Float16, h.data(), 32, 256));
}

TEST_F(ModelQuantizer, SafetensorsIntegerTensorsAreCopied) {
  // Checkpoints carry integer buffers (position ids, step counters): GGUF has their types, so they
  // are copied as they are, and the float weights beside them are quantized.
  const std::vector<std::uint8_t> f32 = bytes_of(x_);
  const std::int64_t ids[3] = {0, 1, -7};
  std::vector<std::uint8_t> data(f32);
  const auto* id_bytes = reinterpret_cast<const std::uint8_t*>(ids);
  data.insert(data.end(), id_bytes, id_bytes + sizeof ids);
  const std::string header = safetensors_header(
      {{"w.weight", DType::Float, {32, 256}, 0, 32768}, {"position_ids", DType::Int64, {3}, 32768, 32768 + 24}}, {});
  std::vector<std::uint8_t> file(header.begin(), header.end());
  file.insert(file.end(), data.begin(), data.end());
  const std::string in = path("ids.safetensors");
  write(in, file);
  ModelQuantizeOptions options;
  options.plan.type = "q8_0";
  quantize_model(in, path("ids.gguf"), options);
  const GgufModel model = GgufModel::open(path("ids.gguf"));
  ASSERT_EQ(model.tensors().size(), 2u);
  EXPECT_EQ(model.tensors()[0].type_name(), "Q8_0");
  EXPECT_EQ(model.tensors()[1].type_name(), "I64");
  const std::vector<std::byte> copied = tensor_bytes(model, "position_ids");
  ASSERT_EQ(copied.size(), sizeof ids);
  EXPECT_EQ(std::memcmp(copied.data(), ids, sizeof ids), 0);
  const std::vector<std::byte> ggml = read_file_bytes(testdata_path("quantize/common.q8_0.bin"));
  const std::vector<std::byte> w = tensor_bytes(model, "w.weight");
  EXPECT_TRUE(std::equal(w.begin(), w.end(), ggml.begin()));
}

}  // namespace
}  // namespace onnxq

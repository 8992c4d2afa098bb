// The two kinds of quantizer input: a GGUF model and a safetensors checkpoint.
#include "quantize_input.hpp"

#include <algorithm>

#include "onnxq/convert/model_quantizer.hpp"
#include "onnxq/core/dtype.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/split.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/npy/safetensors_reader.hpp"

namespace onnxq {
namespace {

class GgufQuantizeInput final : public QuantizeInput {
 public:
  GgufQuantizeInput(const std::string& path, const IoOptions& io)
      : model_(GgufModel::open(path, ShardPolicy::All, io)) {
    metadata_ = GgufMetadata::from_records(model_.metadata());
    // One output file: the shard keys of a split input do not carry over (as llama-quantize drops them).
    for (std::string_view key : {kGgufSplitNoKey, kGgufSplitCountKey, kGgufSplitTensorsCountKey}) metadata_.remove(key);
    metadata_.remove(kGgufPaddingKey);
    for (const TensorInfo& t : model_.tensors()) {
      tensors_.push_back({std::string(t.name), t.ne, t.ggml_type});
      byte_sizes_.push_back(t.byte_size);
    }
  }
  std::string kind() const override { return "gguf"; }
  std::unique_ptr<BlockSource> blocks(std::size_t i) const override {
    return std::make_unique<TensorReader>(model_, model_.tensors().at(i));
  }
  GgufWriterTensor copied(std::size_t i) const override { return gguf_writer_tensor(model_, model_.tensors().at(i)); }

 private:
  GgufModel model_;
};

// A safetensors tensor as blocks of its plain type (one element per block).
class SafetensorsBlocks final : public BlockSource {
 public:
  SafetensorsBlocks(const SafetensorsModel& model, const SafetensorsTensorInfo& tensor, const BlockFormat& format)
      : model_(&model), tensor_(&tensor), format_(&format) {}
  const BlockFormat& format() const override { return *format_; }
  std::uint64_t block_count() const override { return tensor_->element_count; }
  std::span<const std::byte> blocks(std::uint64_t first, std::uint64_t count,
                                    std::vector<std::byte>& scratch) const override {
    if (first > block_count() || count > block_count() - first)
      invalid_argument("blocks outside safetensors tensor '" + tensor_->name + "'");
    scratch.resize(count * format_->block_bytes);
    model_->read(*tensor_, first * format_->block_bytes, scratch);
    return scratch;
  }

 private:
  const SafetensorsModel* model_;
  const SafetensorsTensorInfo* tensor_;
  const BlockFormat* format_;
};

// The GGUF plain type of a safetensors dtype (the reader accepts only those that have one).
const BlockFormat& plain_format_of(DType dtype) {
  for (const BlockFormat& f : all_formats())
    if (!f.is_block_format() && f.plain_dtype == dtype) return f;
  invalid_argument("no GGUF type holds " + std::string(dtype_info(dtype).short_name));
}

class SafetensorsQuantizeInput final : public QuantizeInput {
 public:
  SafetensorsQuantizeInput(const std::string& path, const std::string& architecture, const IoOptions& io)
      : model_(SafetensorsModel::open(path, io)) {
    metadata_.set(
        "general.architecture",
        GgufOwnedValue::string(architecture.empty() ? std::string(kSafetensorsDefaultArchitecture) : architecture));
    // The checkpoint's own strings, under a prefix of their own.
    for (const auto& [key, value] : model_.metadata())
      metadata_.set("safetensors." + key, GgufOwnedValue::string(value));
    for (const SafetensorsTensorInfo& t : model_.tensors()) {
      tensors_.push_back({t.name, t.gguf_ne(), plain_format_of(t.dtype).ggml_type});
      byte_sizes_.push_back(t.byte_size);
    }
  }
  std::string kind() const override { return "safetensors"; }
  std::unique_ptr<BlockSource> blocks(std::size_t i) const override {
    return std::make_unique<SafetensorsBlocks>(model_, model_.tensors().at(i), format(i));
  }
  GgufWriterTensor copied(std::size_t i) const override {
    const SafetensorsTensorInfo& t = model_.tensors().at(i);
    const SafetensorsModel* model = &model_;
    return gguf_produced_tensor(t.name, t.gguf_ne(), format(i), [model, &t](GgufTensorSink& sink) {
      std::vector<std::byte> buffer(std::min<std::uint64_t>(t.byte_size, std::uint64_t{4} << 20));
      for (std::uint64_t done = 0; done < t.byte_size;) {
        const std::uint64_t n = std::min<std::uint64_t>(buffer.size(), t.byte_size - done);
        model->read(t, done, std::span(buffer).first(n));
        sink.write(std::span(buffer).first(n));
        done += n;
      }
    });
  }

 private:
  const BlockFormat& format(std::size_t i) const { return plain_format_of(model_.tensors().at(i).dtype); }
  SafetensorsModel model_;
};

}  // namespace

bool is_safetensors_input(const std::string& path) { return path.ends_with(".safetensors") || path.ends_with(".json"); }

std::unique_ptr<QuantizeInput> QuantizeInput::open(const std::string& path, const std::string& architecture,
                                                   const IoOptions& io) {
  if (is_safetensors_input(path)) return std::make_unique<SafetensorsQuantizeInput>(path, architecture, io);
  return std::make_unique<GgufQuantizeInput>(path, io);
}

}  // namespace onnxq

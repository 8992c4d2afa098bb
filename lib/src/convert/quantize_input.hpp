// What the model quantizer reads, whatever the input: the output's starting metadata, the tensors
// as the plan sees them, each tensor's blocks (little-endian, in its stored type) and each
// tensor as the writer copies it. A GGUF model and a safetensors checkpoint are the two kinds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "onnxq/convert/quantize_plan.hpp"
#include "onnxq/formats/block_source.hpp"
#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/writer.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

class QuantizeInput {
 public:
  virtual ~QuantizeInput() = default;
  // A GGUF model (any shard names the whole split model) or safetensors (`architecture` becomes
  // general.architecture; empty: kSafetensorsDefaultArchitecture).
  static std::unique_ptr<QuantizeInput> open(const std::string& path, const std::string& architecture,
                                             const IoOptions& io);

  virtual std::string kind() const = 0;  // "gguf", "safetensors"
  // The input's metadata as the output starts from (a GGUF's keys, split.* dropped).
  const GgufMetadata& metadata() const { return metadata_; }
  const std::vector<PlanInputTensor>& tensors() const { return tensors_; }
  std::uint64_t byte_size(std::size_t i) const { return byte_sizes_.at(i); }
  // Tensor i's blocks in its stored type (must outlive nothing but this input).
  virtual std::unique_ptr<BlockSource> blocks(std::size_t i) const = 0;
  // Tensor i for the writer, bytes unchanged.
  virtual GgufWriterTensor copied(std::size_t i) const = 0;

 protected:
  GgufMetadata metadata_;
  std::vector<PlanInputTensor> tensors_;
  std::vector<std::uint64_t> byte_sizes_;
};

}  // namespace onnxq

// Bytes the caller keeps alive, as a ByteSource (GgufModel::parse, tests, fuzzing).
#pragma once

#include <cstring>
#include <span>
#include <string>

#include "onnxq/io/byte_source.hpp"

namespace onnxq {

class MemorySource final : public ByteSource {
 public:
  // `bytes` must outlive the source; `name` is used in messages.
  MemorySource(std::span<const std::byte> bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

  const std::string& name() const override { return name_; }
  std::uint64_t size() const override { return bytes_.size(); }
  void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t) const override {
    const auto bytes = *ByteSource::view(offset, dst.size());
    if (!dst.empty()) std::memcpy(dst.data(), bytes.data(), dst.size());
  }
  std::optional<std::span<const std::byte>> view() const override { return bytes_; }
  using ByteSource::view;

 private:
  std::span<const std::byte> bytes_;
  std::string name_;
};

}  // namespace onnxq

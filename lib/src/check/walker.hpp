// Internal: what the walker learns about one file, for the content rules and the cross-shard
// checks that run after it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "onnxq/formats/format.hpp"
#include "report.hpp"

namespace onnxq::check_detail {

struct KeyValue {
  std::string_view key;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;        // of the record
  std::uint64_t value_offset = 0;  // of the value
  std::uint64_t bits = 0;          // a scalar's bits
  std::string_view text;           // a string's bytes
  std::uint32_t elem_type = 0;     // an array's element type and length
  std::uint64_t count = 0;
};

struct TensorRecord {
  std::string_view name;
  std::uint64_t offset = 0;  // of the tensor-info record
  std::vector<std::uint64_t> ne;
  std::uint32_t type = 0;
  const BlockFormat* format = nullptr;
  std::uint64_t offset_in_data = 0;
  std::uint64_t byte_size = 0;
  bool size_known = false;
  std::uint64_t file_offset = 0;
  bool placed = false;  // lies inside the file
};

struct FileFacts {
  std::uint32_t version = 0;
  bool big_endian = false;
  std::uint64_t alignment = 32;
  std::uint64_t data_offset = 0;
  std::vector<KeyValue> metadata;     // the records walked completely
  std::vector<TensorRecord> tensors;  // the records walked completely

  const KeyValue* find(std::string_view key) const {
    for (const auto& kv : metadata)
      if (kv.key == key) return &kv;
    return nullptr;
  }
};

void walk_file(std::span<const std::byte> bytes, Report& report, FileFacts& facts);
// Tokenizer consistency and chat templates (after a walk that reached the data section).
void content_rules(const FileFacts& facts, Report& report);

}  // namespace onnxq::check_detail

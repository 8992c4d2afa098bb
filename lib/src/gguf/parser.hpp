// Internal: the GGUF parser (one file's bytes → GgufShard).
#pragma once

#include <span>
#include <string>

#include "byte_reader.hpp"
#include "onnxq/gguf/file.hpp"

namespace onnxq {

class GgufParser {
 public:
  // Parses and validates one file. Throws Error(InvalidInput) on the first problem.
  // `bytes` may be the first part of a file of `file_size` bytes: when the header goes on past
  // it, throws gguf_detail::NeedMoreBytes (never for a whole file).
  static GgufShard parse(std::span<const std::byte> bytes, const std::string& name, std::uint64_t file_size);

  // Reads one value of `type` at the reader's position (depth counts array nesting).
  static GgufValue read_value(gguf_detail::ByteReader& reader, GgufType type, int depth);
};

// Bytes of one scalar of `type`; 0 for strings and arrays.
std::uint64_t gguf_scalar_size(GgufType type);

}  // namespace onnxq

// Byte layouts of the 27 block formats (spec §5-§10), expanded from formats/format_rows.def.
// Every field is a byte array, so the structs have alignment 1 and no padding; decoders use
// them only for sizeof and offsetof and read the fields byte by byte (blocks are generally
// unaligned).
#pragma once

#include <cstdint>

namespace onnxq::formats {

#define ONNXQ_FIELD(member, bytes, kind) std::uint8_t member[bytes];
#define ONNXQ_BLOCK_FORMAT(id, ggml_type, ggml_name, gguf_name, qk, block_bytes, family, Layout, fields) \
  struct Layout {                                                                                        \
    fields                                                                                               \
  };                                                                                                     \
  static_assert(sizeof(Layout) == (block_bytes), "the fields of " #id " must add up to its block size");
#include "formats/format_rows.def"

}  // namespace onnxq::formats

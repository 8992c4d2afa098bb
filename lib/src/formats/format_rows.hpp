// The format table as compile-time data, expanded from formats/format_rows.def: FormatId, the
// rows, each block format's field list and layout struct. The SIMD and reference decoders take
// their constants from here (never restating a format's id, element count or byte count), stats
// derives its scale fields from the field lists, and format_table.cpp serves the same rows at
// run time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "formats/block_layouts.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq::formats {

// One enumerator per row, in row order: static_cast<std::size_t>(id) is the row's index.
enum class FormatId : std::uint16_t {
#define ONNXQ_BLOCK_FORMAT(id, ...) id,
#define ONNXQ_PLAIN_TYPE(id, ...) id,
#include "formats/format_rows.def"
};

namespace rows_detail {
// Field lists: offsets follow from the widths, since every field is a byte array.
template <std::size_t N>
constexpr std::array<BlockField, N> laid_out(std::array<BlockField, N> fields) {
  std::uint16_t offset = 0;
  for (BlockField& f : fields) {
    f.offset = offset;
    offset = static_cast<std::uint16_t>(offset + f.width);
  }
  return fields;
}
#define ONNXQ_FIELD(member, bytes, kind) BlockField{#member, 0, bytes, FieldKind::kind},
#define ONNXQ_BLOCK_FORMAT(id, ggml_type, ggml_name, gguf_name, qk, block_bytes, family, Layout, fields) \
  inline constexpr auto k_##id##_fields = laid_out(std::array{fields});
#include "formats/format_rows.def"

constexpr std::uint16_t index_of(FormatId id) { return static_cast<std::uint16_t>(id); }
}  // namespace rows_detail

inline constexpr std::array kFormatRows = {
#define ONNXQ_BLOCK_FORMAT(id, ggml_type, ggml_name, gguf_name, qk, block_bytes, family, Layout, fields) \
  BlockFormat{rows_detail::index_of(FormatId::id),                                                       \
              ggml_type,                                                                                 \
              ggml_name,                                                                                 \
              gguf_name,                                                                                 \
              "gguf:" #id,                                                                               \
              qk,                                                                                        \
              block_bytes,                                                                               \
              DType::Undefined,                                                                          \
              FormatFamily::family,                                                                      \
              rows_detail::k_##id##_fields},
#define ONNXQ_PLAIN_TYPE(id, ggml_type, gguf_name, element_bytes, dtype) \
  BlockFormat{rows_detail::index_of(FormatId::id),                       \
              ggml_type,                                                 \
              #id,                                                       \
              gguf_name,                                                 \
              "",                                                        \
              1,                                                         \
              element_bytes,                                             \
              DType::dtype,                                              \
              FormatFamily::Plain,                                       \
              {}},
#include "formats/format_rows.def"
};

inline constexpr std::size_t kBlockFormatCount = [] {
  std::size_t n = 0;
#define ONNXQ_BLOCK_FORMAT(...) ++n;
#include "formats/format_rows.def"
  return n;
}();
static_assert(kBlockFormatCount == 27, "DequantizePacked-29 defines 27 block formats");

constexpr const BlockFormat& row(FormatId id) { return kFormatRows[rows_detail::index_of(id)]; }

// The layout struct of a block format: LayoutOf<FormatId::q4_k> is BlockQ4_K.
template <FormatId Id>
struct LayoutOf;
#define ONNXQ_BLOCK_FORMAT(id, ggml_type, ggml_name, gguf_name, qk, block_bytes, family, Layout, fields) \
  template <>                                                                                            \
  struct LayoutOf<FormatId::id> {                                                                        \
    using type = Layout;                                                                                 \
  };
#include "formats/format_rows.def"

}  // namespace onnxq::formats

// The scalar decoder table, expanded from formats/format_rows.def: one row per block format,
// at the format's own index (BlockFormat::index), with the ggml type and sizes of its row.
#include <array>

#include "formats/format_rows.hpp"
#include "onnxq/reference/scalar_decoders.hpp"
#include "reference/decoders.hpp"

namespace onnxq {
namespace {

using formats::FormatId;

constexpr BlockDecoder row(FormatId id, BlockDecodeFn decode) {
  const BlockFormat& f = formats::row(id);
  return BlockDecoder{f.ggml_type, f.block_elements, f.block_bytes, decode};
}

constexpr std::array kScalarDecoders = {
#define ONNXQ_BLOCK_FORMAT(id, ...) row(FormatId::id, reference::decode_##id),
#include "formats/format_rows.def"
};
static_assert(kScalarDecoders.size() == formats::kBlockFormatCount);

}  // namespace

const BlockDecoder* scalar_block_decoder(const BlockFormat& format) {
  if (format.index >= kScalarDecoders.size() || kScalarDecoders[format.index].ggml_type != format.ggml_type)
    return nullptr;
  return &kScalarDecoders[format.index];
}

const BlockDecoder* scalar_block_decoder(std::uint32_t ggml_type) {
  const BlockFormat* format = find_format_by_ggml_type(ggml_type);
  return format ? scalar_block_decoder(*format) : nullptr;
}

}  // namespace onnxq

// The scalar decoder table: one row per block format, keyed by ggml type, parallel to the
// format table (formats/format_table.cpp). Sizes come from the block layout structs, and a
// unit test checks them against the format table row by row.
#include <array>

#include "formats/block_layouts.hpp"
#include "reference/decoders.hpp"
#include "onnxq/decode/decode_blocks.hpp"

namespace onnxq {
namespace {

using namespace dequant;

template <class Layout>
constexpr BlockDecoder row(std::uint32_t type, std::uint32_t qk, BlockDecodeFn fn) {
  return BlockDecoder{type, qk, static_cast<std::uint32_t>(sizeof(Layout)), fn};
}

constexpr std::array kScalarDecoders = {
    row<BlockQ4_0>(2, 32, decode_q4_0),        row<BlockQ4_1>(3, 32, decode_q4_1),
    row<BlockQ5_0>(6, 32, decode_q5_0),        row<BlockQ5_1>(7, 32, decode_q5_1),
    row<BlockQ8_0>(8, 32, decode_q8_0),        row<BlockQ8_1>(9, 32, decode_q8_1),
    row<BlockQ2_K>(10, 256, decode_q2_k),      row<BlockQ3_K>(11, 256, decode_q3_k),
    row<BlockQ4_K>(12, 256, decode_q4_k),      row<BlockQ5_K>(13, 256, decode_q5_k),
    row<BlockQ6_K>(14, 256, decode_q6_k),      row<BlockQ8_K>(15, 256, decode_q8_k),
    row<BlockIq2_XXS>(16, 256, decode_iq2_xxs), row<BlockIq2_XS>(17, 256, decode_iq2_xs),
    row<BlockIq3_XXS>(18, 256, decode_iq3_xxs), row<BlockIq1_S>(19, 256, decode_iq1_s),
    row<BlockIq4_NL>(20, 32, decode_iq4_nl),   row<BlockIq3_S>(21, 256, decode_iq3_s),
    row<BlockIq2_S>(22, 256, decode_iq2_s),    row<BlockIq4_XS>(23, 256, decode_iq4_xs),
    row<BlockIq1_M>(29, 256, decode_iq1_m),    row<BlockTq1_0>(34, 256, decode_tq1_0),
    row<BlockTq2_0>(35, 256, decode_tq2_0),    row<BlockMxfp4>(39, 32, decode_mxfp4),
    row<BlockNvfp4>(40, 64, decode_nvfp4),     row<BlockQ1_0>(41, 128, decode_q1_0),
    row<BlockQ2_0>(42, 64, decode_q2_0),
};
static_assert(kScalarDecoders.size() == 27);

}  // namespace

const BlockDecoder* scalar_block_decoder(std::uint32_t ggml_type) {
  for (const BlockDecoder& d : kScalarDecoders)
    if (d.ggml_type == ggml_type) return &d;
  return nullptr;
}

}  // namespace onnxq

// The scalar reference decoders, one per block format (spec §5-§10). Each decodes
// whole blocks to float32 in the specification's exact operation order; they are the
// oracle that any faster implementation must match bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnxq::reference {

// decode_<id> for each block format row of formats/format_rows.def: `block_count` blocks at `src` (unaligned) to
// float32 at `y`.
#define ONNXQ_BLOCK_FORMAT(id, ...) void decode_##id(const std::uint8_t* src, std::size_t block_count, float* y);
#include "formats/format_rows.def"

}  // namespace onnxq::reference

// The scalar reference decoders, one per block format (spec §5-§10). Each decodes
// whole blocks to float32 in the specification's exact operation order; they are the
// oracle that any faster implementation must match bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnxq::dequant {

#define ONNXQ_DECLARE_DECODER(name) void decode_##name(const std::uint8_t* src, std::size_t block_count, float* y)
ONNXQ_DECLARE_DECODER(q4_0);
ONNXQ_DECLARE_DECODER(q4_1);
ONNXQ_DECLARE_DECODER(q5_0);
ONNXQ_DECLARE_DECODER(q5_1);
ONNXQ_DECLARE_DECODER(q8_0);
ONNXQ_DECLARE_DECODER(q8_1);
ONNXQ_DECLARE_DECODER(q2_k);
ONNXQ_DECLARE_DECODER(q3_k);
ONNXQ_DECLARE_DECODER(q4_k);
ONNXQ_DECLARE_DECODER(q5_k);
ONNXQ_DECLARE_DECODER(q6_k);
ONNXQ_DECLARE_DECODER(q8_k);
ONNXQ_DECLARE_DECODER(iq2_xxs);
ONNXQ_DECLARE_DECODER(iq2_xs);
ONNXQ_DECLARE_DECODER(iq2_s);
ONNXQ_DECLARE_DECODER(iq3_xxs);
ONNXQ_DECLARE_DECODER(iq3_s);
ONNXQ_DECLARE_DECODER(iq1_s);
ONNXQ_DECLARE_DECODER(iq1_m);
ONNXQ_DECLARE_DECODER(iq4_nl);
ONNXQ_DECLARE_DECODER(iq4_xs);
ONNXQ_DECLARE_DECODER(tq1_0);
ONNXQ_DECLARE_DECODER(tq2_0);
ONNXQ_DECLARE_DECODER(mxfp4);
ONNXQ_DECLARE_DECODER(nvfp4);
ONNXQ_DECLARE_DECODER(q1_0);
ONNXQ_DECLARE_DECODER(q2_0);
#undef ONNXQ_DECLARE_DECODER

}  // namespace onnxq::dequant

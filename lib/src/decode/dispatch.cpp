// Per-ISA decoder rows, built once from the scalar table (sizes) and the kernels the ISA
// translation units export. Compiled without ISA flags.
#include "decode/dispatch.hpp"

#include <array>
#include <atomic>
#include <vector>

#include "onnxq/decode/isa.hpp"
#include "decode/cpu_features.hpp"

namespace onnxq::simd {
namespace {

struct IsaRows {
  std::vector<BlockDecoder> rows;         // float32 decoders, as the decoder table sees them
  std::vector<const FusedDecoders*> fused;  // parallel to rows
  const PlainConverters* plain = nullptr;
};

void add_list(IsaRows& r, const FusedDecoders* list) {
  for (; list && list->ggml_type != 0; ++list) {
    const BlockDecoder* scalar = scalar_block_decoder(list->ggml_type);
    if (!scalar || !list->f32) continue;
    r.rows.push_back({scalar->ggml_type, scalar->block_elements, scalar->block_bytes, list->f32});
    r.fused.push_back(list);
  }
}

IsaRows build(Isa isa) {
  IsaRows r;
#if ONNXQ_HAVE_X86_SIMD
  // Not even the table getters of an ISA the CPU lacks are called: they are compiled with its flags.
  if (isa == Isa::Avx2 && cpu_features().avx2) {
    for (auto* l : {avx2::legacy_decoders(), avx2::kquant_decoders(), avx2::iq_decoders(), avx2::ternary_decoders(),
                    avx2::fp4_decoders(), avx2::lowbit_decoders()})
      add_list(r, l);
    r.plain = &avx2::plain_converters();
  } else if (isa == Isa::Avx512 && cpu_features().avx512) {
    for (auto* l : {avx512::legacy_decoders(), avx512::kquant_decoders(), avx512::iq_decoders(),
                    avx512::ternary_decoders(), avx512::fp4_decoders(), avx512::lowbit_decoders()})
      add_list(r, l);
    r.plain = &avx512::plain_converters();
  }
#else
  (void)isa;
#endif
  r.rows.shrink_to_fit();
  return r;
}

const IsaRows& rows_for(Isa isa) {
  static const std::array<IsaRows, 3> all = {build(Isa::Scalar), build(Isa::Avx2), build(Isa::Avx512)};
  return all[static_cast<int>(isa)];
}

int slot_of(DType out) {
  switch (out) {
    case DType::Float: return kOutF32;
    case DType::Float16: return kOutF16;
    case DType::BFloat16: return kOutBF16;
    case DType::Double: return kOutF64;
    default: return -1;
  }
}

}  // namespace

const BlockDecoder* simd_block_decoder(std::uint32_t ggml_type) {
  const IsaRows& r = rows_for(active_isa());
  for (const BlockDecoder& row : r.rows)
    if (row.ggml_type == ggml_type) return &row;
  return nullptr;
}

FusedDecodeFn fused_decoder(const BlockFormat& format, const BlockDecoder* dec, DType out, bool streaming) {
  const int slot = slot_of(out);
  if (slot < 0) return nullptr;
  if (!format.is_block_format()) {
    const PlainConverters* p = rows_for(active_isa()).plain;
    const int source = format.plain_dtype == DType::Float     ? kFromF32
                       : format.plain_dtype == DType::Float16  ? kFromF16
                       : format.plain_dtype == DType::BFloat16 ? kFromBF16
                                                               : -1;
    if (!p || source < 0 || format.plain_dtype == out) return nullptr;  // same type: the caller copies bits
    return streaming ? p->streaming[source][slot] : p->regular[source][slot];
  }
  if (!dec) return nullptr;
  for (int isa = 1; isa <= 2; ++isa) {  // find the row by address: scalar rows have none
    const IsaRows& r = rows_for(static_cast<Isa>(isa));
    if (r.rows.empty() || dec < r.rows.data() || dec >= r.rows.data() + r.rows.size()) continue;
    const FusedDecoders* f = r.fused[static_cast<std::size_t>(dec - r.rows.data())];
    return streaming ? f->streaming[slot] : f->regular[slot];
  }
  return nullptr;
}

namespace {
// Non-temporal stores pay off once the output is far larger than the caches it would
// evict and is not read back right away (measured: tests/bench/simd_bench.cpp).
std::atomic<std::size_t> g_streaming_threshold{std::size_t{32} << 20};
}  // namespace

bool want_streaming_stores(std::size_t out_bytes) {
  return out_bytes >= g_streaming_threshold.load(std::memory_order_relaxed);
}

}  // namespace onnxq::simd

namespace onnxq {

// The one dispatch point: the active path's SIMD decoder, else the scalar reference.
const BlockDecoder* block_decoder(const BlockFormat& format) {
  if (!format.is_block_format()) return nullptr;
  if (const BlockDecoder* fast = simd::simd_block_decoder(format.ggml_type)) return fast;
  return scalar_block_decoder(format.ggml_type);
}

std::size_t streaming_store_threshold() { return simd::g_streaming_threshold.load(std::memory_order_relaxed); }
void set_streaming_store_threshold(std::size_t bytes) { simd::g_streaming_threshold.store(bytes, std::memory_order_relaxed); }
}  // namespace onnxq

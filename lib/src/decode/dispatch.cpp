// Per-path kernel tables, built once from what each ISA's translation units export, and indexed
// by BlockFormat::index. Compiled without ISA flags: an ISA's getters are called only when the
// CPU has that ISA.
#include "decode/dispatch.hpp"

#include <array>
#include <atomic>

#include "decode/cpu_features.hpp"
#include "formats/format_rows.hpp"

namespace onnxq::decode {
namespace {

using simd::FusedDecoders;

struct PathKernels {
  std::array<const FusedDecoders*, formats::kFormatRows.size()> blocks{};  // null: the scalar reference
  const simd::PlainConverters* plain = nullptr;                            // null: scalar conversion
  const simd::UnpackKernels* unpack = &simd::portable::unpack_kernels();
};

void add(PathKernels& k, std::span<const FusedDecoders> family) {
  for (const FusedDecoders& d : family) k.blocks[d.format_index] = &d;
}

// Adds every family table of the ISA namespace `ns` in scope.
#define ONNXQ_ADD_FAMILY(family) add(k, ns::family##_decoders());

PathKernels build(Isa isa) {
  PathKernels k;
#if ONNXQ_HAVE_X86_SIMD
  const CpuFeatures& cpu = cpu_features();
  if (isa == Isa::Avx2 && cpu.avx2) {
    namespace ns = simd::avx2;
    ONNXQ_SIMD_FAMILIES(ONNXQ_ADD_FAMILY)
    k.plain = &ns::plain_converters();
    k.unpack = &simd::avx2::unpack_kernels();
  } else if ((isa == Isa::Avx512 && cpu.avx512) || (isa == Isa::Avx512Vbmi && cpu.avx512 && cpu.avx512_vbmi)) {
    namespace ns = simd::avx512;
    ONNXQ_SIMD_FAMILIES(ONNXQ_ADD_FAMILY)
    k.plain = &ns::plain_converters();
    k.unpack = &simd::avx512::unpack_kernels();
    if (isa == Isa::Avx512Vbmi) {
      add(k, simd::avx512vbmi::iq_decoders());
      k.unpack = &simd::avx512vbmi::unpack_kernels();
    }
  }
#else
  (void)isa;
#endif
  return k;
}
#undef ONNXQ_ADD_FAMILY

const PathKernels& active_kernels() {
  static const std::array<PathKernels, 4> all = {build(Isa::Scalar), build(Isa::Avx2), build(Isa::Avx512),
                                                 build(Isa::Avx512Vbmi)};
  return all[static_cast<int>(active_isa())];
}

int slot_of(DType out) {
  switch (out) {
    case DType::Float: return simd::kOutF32;
    case DType::Float16: return simd::kOutF16;
    case DType::BFloat16: return simd::kOutBF16;
    case DType::Double: return simd::kOutF64;
    default: return -1;
  }
}

int plain_source_of(DType plain) {
  switch (plain) {
    case DType::Float: return simd::kFromF32;
    case DType::Float16: return simd::kFromF16;
    case DType::BFloat16: return simd::kFromBF16;
    default: return -1;
  }
}

// Non-temporal stores pay off once the output is far larger than the caches it would
// evict and is not read back right away (tests/bench/simd_bench.cpp shows it).
std::atomic<std::size_t> g_streaming_threshold{std::size_t{32} << 20};

}  // namespace

DecodeKernel decode_kernel(const BlockFormat& format, DType out, bool streaming) {
  DecodeKernel k;
  const PathKernels& path = active_kernels();
  const int slot = slot_of(out);
  if (format.is_block_format()) {
    k.scalar = scalar_block_decoder(format);
    if (const FusedDecoders* f = path.blocks[format.index]; f && slot >= 0)
      k.fused = streaming ? f->streaming[slot] : f->regular[slot];
    return k;
  }
  const int source = plain_source_of(format.plain_dtype);
  // The same type in and out is a copy of bits, which the scalar conversion does.
  if (path.plain && source >= 0 && slot >= 0 && format.plain_dtype != out)
    k.fused = streaming ? path.plain->streaming[source][slot] : path.plain->regular[source][slot];
  return k;
}

bool want_streaming_stores(std::size_t out_bytes) {
  return out_bytes >= g_streaming_threshold.load(std::memory_order_relaxed);
}

const simd::UnpackKernels& unpack_kernels() { return *active_kernels().unpack; }

std::vector<const simd::UnpackKernels*> all_unpack_kernels() {
  std::vector<const simd::UnpackKernels*> sets{&simd::portable::unpack_kernels()};
#if ONNXQ_HAVE_X86_SIMD
  const CpuFeatures& cpu = cpu_features();
  if (cpu.avx2) sets.push_back(&simd::avx2::unpack_kernels());
  if (cpu.avx512) sets.push_back(&simd::avx512::unpack_kernels());
  if (cpu.avx512 && cpu.avx512_vbmi) sets.push_back(&simd::avx512vbmi::unpack_kernels());
#endif
  return sets;
}

}  // namespace onnxq::decode

namespace onnxq {
std::size_t streaming_store_threshold() { return decode::g_streaming_threshold.load(std::memory_order_relaxed); }
void set_streaming_store_threshold(std::size_t bytes) {
  decode::g_streaming_threshold.store(bytes, std::memory_order_relaxed);
}
}  // namespace onnxq

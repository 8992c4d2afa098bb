// Per-path kernel tables, built once from the rows of isa_registry.cpp, and indexed by
// BlockFormat::index. Compiled without ISA flags: an ISA's getters are called only when the CPU
// has that ISA.
#include "decode/dispatch.hpp"

#include <array>
#include <atomic>

#include "decode/cpu_features.hpp"
#include "decode/isa_registry.hpp"

namespace onnxq::decode {
namespace {

using simd::FusedDecoders;

PathKernels build(const IsaRow& row) {
  PathKernels k;
  if (row.add_kernels && row.runs(cpu_features())) row.add_kernels(k);
  return k;
}

// Every path's kernels, in the order of isa_rows(); paths this CPU lacks stay all-scalar.
const std::vector<PathKernels>& all_paths() {
  static const std::vector<PathKernels> all = [] {
    std::vector<PathKernels> paths;
    for (const IsaRow& row : isa_rows()) paths.push_back(build(row));
    return paths;
  }();
  return all;
}

const PathKernels& active_kernels() { return all_paths()[static_cast<std::size_t>(active_isa())]; }

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

const simd::QuantizeKernel* quantize_kernel(const BlockFormat& format) {
  return format.is_block_format() ? active_kernels().quantize[format.index] : nullptr;
}

simd::FiniteCheckFn finite_check() { return active_kernels().all_finite; }

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
  for (const IsaRow& row : isa_rows())
    if (row.add_kernels && row.runs(cpu_features()))
      sets.push_back(all_paths()[static_cast<std::size_t>(row.isa)].unpack);
  return sets;
}

}  // namespace onnxq::decode

namespace onnxq {
std::size_t streaming_store_threshold() { return decode::g_streaming_threshold.load(std::memory_order_relaxed); }
void set_streaming_store_threshold(std::size_t bytes) {
  decode::g_streaming_threshold.store(bytes, std::memory_order_relaxed);
}
}  // namespace onnxq

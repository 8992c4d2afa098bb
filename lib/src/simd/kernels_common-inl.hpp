// Shared pieces of the SIMD kernels, compiled once per ISA: include a vec_<isa>.hpp first.
// A kernel is a struct K deriving from KernelFor<its FormatId> (the format's constants, all taken
// from the format rows) with
//   template <class Out> static void block(const std::uint8_t* b, const Out& out, std::size_t i)
// that decodes one block (no alignment) to elements i.. of `out`, 16 at a time, in the
// specification's float32 operation order (see each kernel). A kernel may instead split the
// work in two, a Prep type with kBatch, prepare(blocks, prep) for kBatch blocks and emit(prep,
// out, i) for one: run_blocks then prepares each batch while the one before it is emitted.
#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "formats/format_rows.hpp"
#include "simd/kernel_table.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

using formats::FormatId;

// A kernel's format constants, from the format rows: never restated as numbers in a kernel.
template <FormatId Id>
struct KernelFor {
  static constexpr FormatId kId = Id;
  using Layout = typename formats::LayoutOf<Id>::type;
  static constexpr std::uint32_t kType = formats::row(Id).ggml_type;
  static constexpr std::uint32_t kElements = formats::row(Id).block_elements;
  static constexpr std::uint32_t kBytes = sizeof(Layout);
  static_assert(kBytes == formats::row(Id).block_bytes);
};

inline std::uint32_t rd16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);  // little-endian hosts only (x86-64, AArch64 Linux)
  return v;
}
inline std::uint32_t rd32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t rd64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline float h2f(const std::uint8_t* p) { return half_bits_to_f32(rd16(p)); }
inline float f32_of_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Lane k = k + base, for variable shifts.
inline VI vi_iota(int base) {
  alignas(64) static const std::int32_t kIota[48] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                                     16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                                     32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47};
  return vi_load(kIota + base);
}

// Prepares blocks first.. of n for a kernel with a Prep step; a short last batch repeats its
// last block (prepared, never emitted).
template <class K>
[[gnu::always_inline]] inline void prepare_batch(const std::uint8_t* src, std::size_t n, std::size_t first,
                                                 typename K::Prep* p) {
  const std::uint8_t* blocks[K::kBatch];
  for (std::size_t k = 0; k < K::kBatch; ++k) blocks[k] = src + std::min(first + k, n - 1) * K::kBytes;
  K::prepare(blocks, p);
}

template <class K, class Out>
void run_blocks(const std::uint8_t* src, std::size_t n, void* dst) {
  if constexpr (Out::kStreaming) {  // non-temporal stores need aligned vectors
    if (reinterpret_cast<std::uintptr_t>(dst) % 64 != 0) return run_blocks<K, typename Out::Regular>(src, n, dst);
  }
  const Out out(dst);
  if constexpr (requires { typename K::Prep; }) {
    // Kernels that prepare blocks ahead: batch t + 1 is prepared before batch t is emitted.
    constexpr std::size_t B = K::kBatch;
    typename K::Prep prep[2][B];
    if (n > 0) prepare_batch<K>(src, n, 0, prep[0]);
    for (std::size_t first = 0, t = 0; first < n; first += B, ++t) {
      if (first + B < n) prepare_batch<K>(src, n, first + B, prep[(t + 1) % 2]);
      for (std::size_t k = 0; k < B && first + k < n; ++k) K::emit(prep[t % 2][k], out, (first + k) * K::kElements);
    }
  } else {
    for (std::size_t b = 0; b < n; ++b) K::block(src + b * K::kBytes, out, b * K::kElements);
  }
  out.finish();
}
template <class K>
constexpr FusedDecoders row() {
  return FusedDecoders{formats::row(K::kId).index,
                       {&run_blocks<K, OutF32<false>>, &run_blocks<K, OutF16<false>>, &run_blocks<K, OutBF16<false>>,
                        &run_blocks<K, OutF64<false>>},
                       {&run_blocks<K, OutF32<true>>, &run_blocks<K, OutF16<true>>, &run_blocks<K, OutBF16<true>>,
                        &run_blocks<K, OutF64<true>>}};
}

}  // namespace
}  // namespace onnxq::simd::ONNXQ_SIMD_NS

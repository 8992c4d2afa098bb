// The rows of the SIMD paths (isa_registry.hpp). Compiled without ISA flags: a path's kernel
// getters are called only when its runs() is true.
#include "decode/isa_registry.hpp"

namespace onnxq::decode {
namespace {

void add_family(PathKernels& k, std::span<const simd::FusedDecoders> family) {
  for (const simd::FusedDecoders& d : family) k.blocks[d.format_index] = &d;
}

void add_quantizers(PathKernels& k, std::span<const simd::QuantizeKernel> kernels) {
  for (const simd::QuantizeKernel& q : kernels) k.quantize[q.format_index] = &q;
}

// Adds every family table, the plain conversions, the Unpack set and the finiteness check of the ISA
// namespace `isa`.
#define ONNXQ_ADD_FAMILY(family) add_family(k, ns::family##_decoders());
#define ONNXQ_ADD_QUANTIZERS(family) add_quantizers(k, ns::family##_quantizers());
#define ONNXQ_ADD_ISA_KERNELS(isa)                \
  [](PathKernels& k) {                            \
    namespace ns = simd::isa;                     \
    ONNXQ_SIMD_FAMILIES(ONNXQ_ADD_FAMILY)         \
    k.plain = &ns::plain_converters();            \
    k.unpack = &ns::unpack_kernels();             \
    ONNXQ_QUANTIZE_FAMILIES(ONNXQ_ADD_QUANTIZERS) \
    k.all_finite = &ns::all_finite;               \
  }

bool never(const CpuFeatures&) { return false; }

#if ONNXQ_HAVE_X86_SIMD
bool has_avx2(const CpuFeatures& f) { return f.avx2; }
bool has_avx512(const CpuFeatures& f) { return f.avx512; }
bool has_avx512_vbmi(const CpuFeatures& f) { return f.avx512 && f.avx512_vbmi; }
void add_avx512vbmi(PathKernels& k) {
  (ONNXQ_ADD_ISA_KERNELS(avx512))(k);
  add_family(k, simd::avx512vbmi::iq_decoders());  // its IQ rows replace avx512's
  k.unpack = &simd::avx512vbmi::unpack_kernels();
}
#define ONNXQ_X86_ROW(runs, add) runs, add
#else
#define ONNXQ_X86_ROW(runs, add) never, nullptr
#endif

#if ONNXQ_HAVE_NEON
bool has_neon(const CpuFeatures& f) { return f.neon; }
#define ONNXQ_NEON_ROW(runs, add) runs, add
#else
#define ONNXQ_NEON_ROW(runs, add) never, nullptr
#endif

bool always(const CpuFeatures&) { return true; }

constexpr IsaRow kRows[] = {
    {Isa::Scalar, "scalar", always, nullptr},
    {Isa::Avx2, "avx2", ONNXQ_X86_ROW(has_avx2, ONNXQ_ADD_ISA_KERNELS(avx2))},
    {Isa::Avx512, "avx512", ONNXQ_X86_ROW(has_avx512, ONNXQ_ADD_ISA_KERNELS(avx512))},
    {Isa::Avx512Vbmi, "avx512vbmi", ONNXQ_X86_ROW(has_avx512_vbmi, add_avx512vbmi)},
    {Isa::Neon, "neon", ONNXQ_NEON_ROW(has_neon, ONNXQ_ADD_ISA_KERNELS(neon))},
};
#undef ONNXQ_X86_ROW
#undef ONNXQ_NEON_ROW
#undef ONNXQ_ADD_ISA_KERNELS
#undef ONNXQ_ADD_FAMILY
#undef ONNXQ_ADD_QUANTIZERS

constexpr bool rows_in_isa_order() {
  for (std::size_t k = 0; k < std::size(kRows); ++k)
    if (static_cast<std::size_t>(kRows[k].isa) != k) return false;
  return true;
}
static_assert(rows_in_isa_order(), "row k must describe Isa(k)");

}  // namespace

std::span<const IsaRow> isa_rows() { return kRows; }

const IsaRow& isa_row(Isa isa) { return kRows[static_cast<std::size_t>(isa)]; }

const IsaRow* find_isa_row(std::string_view name) {
  for (const IsaRow& row : kRows)
    if (name == row.name) return &row;
  return nullptr;
}

}  // namespace onnxq::decode

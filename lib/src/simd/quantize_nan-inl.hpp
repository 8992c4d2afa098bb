// quantize/rounding.hpp's x86_nan lane by lane, for the quantizer families that work on VF (legacy,
// iq4; kquant has its own, over Two<VF> too): a lane of r that is 0x7FC00000 (the NaN AArch64 makes)
// where no operand's lane is becomes x86's 0xFFC00000. Bits are compared as the float of their
// difference (0 only when equal). Nothing on x86, where the CPU makes x86's NaN itself.
// Include after the ISA's lane operations (to_f, as_i, vf_set1, sel, ne), as the families are.
#pragma once

#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#include <bit>

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

template <class... T>
inline VF x86_nan(VF r, [[maybe_unused]] T... operands) {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
  return r;
#else
  const auto made = [](auto v) { return to_f(as_i(v) - as_i(vf_set1(std::bit_cast<float>(0x7FC00000u)))); };
  const VF zero = vf_set1(0.0f);
  VF out = sel(ne(made(r), zero), r, vf_set1(std::bit_cast<float>(0xFFC00000u)));
  ((out = sel(ne(made(operands), zero), out, r)), ...);
  return out;
#endif
}

}  // namespace
}  // namespace onnxq::simd::ONNXQ_SIMD_NS

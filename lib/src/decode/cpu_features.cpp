// CPUID/XGETBV probing on x86. This file is compiled without ISA flags: it must run on any x86-64
// (and build on any CPU).
#include "decode/cpu_features.hpp"

#include <cstdint>

// Only a build that compiled the x86 SIMD translation units may report their paths.
#if (defined(__x86_64__) || defined(_M_X64)) && ONNXQ_HAVE_X86_SIMD
#include <cpuid.h>
#define ONNXQ_X86 1
#else
#define ONNXQ_X86 0
#endif

namespace onnxq::decode {
namespace {

#if ONNXQ_X86
struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};
Regs cpuid(unsigned leaf, unsigned sub) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}
std::uint64_t xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
bool bit(unsigned v, int n) { return (v >> n) & 1u; }

CpuFeatures detect() {
  CpuFeatures f;
  const unsigned max_leaf = cpuid(0, 0).a;
  if (max_leaf < 7) return f;
  const Regs l1 = cpuid(1, 0);
  // The OS must save the wide registers (OSXSAVE + XCR0), or using them faults.
  if (!bit(l1.c, 27) || !bit(l1.c, 28)) return f;
  const std::uint64_t xcr0 = xgetbv0();
  const bool ymm_os = (xcr0 & 0x6) == 0x6;
  const bool zmm_os = (xcr0 & 0xE6) == 0xE6;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
  const Regs l7 = cpuid(7, 0);
  const bool fma = bit(l1.c, 12), f16c = bit(l1.c, 29), avx2 = bit(l7.b, 5);
  f.avx2 = ymm_os && fma && f16c && avx2;
  const bool avx512f = bit(l7.b, 16), avx512bw = bit(l7.b, 30), avx512vl = bit(l7.b, 31);
  f.avx512 = f.avx2 && zmm_os && avx512f && avx512bw && avx512vl;
  f.avx512_vbmi = f.avx512 && bit(l7.c, 1);
  f.avx512_dq = f.avx512 && bit(l7.b, 17);
  if (f.avx512 && l7.a >= 1) f.avx512_bf16 = bit(cpuid(7, 1).a, 5);
  return f;
}
#elif defined(__aarch64__) && ONNXQ_HAVE_NEON
CpuFeatures detect() {
  CpuFeatures f;
  f.neon = true;  // Advanced SIMD is part of the AArch64 base architecture
  return f;
}
#else
CpuFeatures detect() { return {}; }
#endif

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace onnxq::decode

// CPUID/XGETBV probing and the cached path choice. This file is compiled without ISA
// flags: it must run on any x86-64 (and build on any CPU).
#include "decode/cpu_features.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/isa.hpp"

// Only a build that compiled the x86 SIMD translation units may report their paths.
#if (defined(__x86_64__) || defined(_M_X64)) && ONNXQ_HAVE_X86_SIMD
#include <cpuid.h>
#define ONNXQ_X86 1
#else
#define ONNXQ_X86 0
#endif

namespace onnxq::simd {
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
  if (f.avx512 && l7.a >= 1) f.avx512_bf16 = bit(cpuid(7, 1).a, 5);
  return f;
}
#else
CpuFeatures detect() { return {}; }
#endif

std::vector<std::string> available_names() {
  std::vector<std::string> names{"scalar"};
#if ONNXQ_X86
  const CpuFeatures& f = cpu_features();
  if (f.avx2) names.emplace_back("avx2");
  if (f.avx512) names.emplace_back("avx512");
#endif
  return names;
}

Isa isa_from_name(const std::string& name) {
  if (name == "avx512") return Isa::Avx512;
  if (name == "avx2") return Isa::Avx2;
  return Isa::Scalar;
}

// The choice, made once; a bad ONNXQ_ISA is remembered and rethrown on every use so the
// error reaches whichever caller decodes first, as an onnxq::Error.
struct Choice {
  Isa isa = Isa::Scalar;
  bool failed = false;
  ErrorKind kind = ErrorKind::InvalidArgument;
  std::string message;
};

Choice make_choice(std::string_view forced) {
  Choice c;
  try {
    c.isa = isa_from_name(resolve_isa(forced, available_names()));
  } catch (const Error& e) {
    c.failed = true;
    c.kind = e.kind();
    c.message = e.what();
  }
  return c;
}

std::mutex g_mutex;
Choice g_choice;
std::atomic<bool> g_ready{false};

const Choice& choice() {
  if (!g_ready.load(std::memory_order_acquire)) {
    std::lock_guard lock(g_mutex);
    if (!g_ready.load(std::memory_order_relaxed)) {
      const char* env = std::getenv("ONNXQ_ISA");
      g_choice = make_choice(env ? env : "");
      g_ready.store(true, std::memory_order_release);
    }
  }
  return g_choice;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
    default: return "scalar";
  }
}

Isa active_isa() {
  const Choice& c = choice();
  if (c.failed) fail(c.kind, c.message);
  return c.isa;
}

}  // namespace onnxq::simd

namespace onnxq {

std::string resolve_isa(std::string_view forced, std::span<const std::string> available) {
  if (available.empty()) return "scalar";
  if (forced.empty()) return available.back();
  if (forced != "scalar" && forced != "avx2" && forced != "avx512")
    invalid_argument("ONNXQ_ISA is '" + std::string(forced) + "'; expected scalar, avx2 or avx512");
  for (const std::string& name : available)
    if (name == forced) return name;
  std::string have;
  for (const std::string& name : available) have += (have.empty() ? "" : ", ") + name;
  fail(ErrorKind::Unsupported, "ONNXQ_ISA is '" + std::string(forced) + "' but this CPU only runs " + have);
}

const char* active_isa() { return simd::isa_name(simd::active_isa()); }

std::vector<std::string> supported_isas() { return simd::available_names(); }

void select_isa(std::string_view name) {
  using namespace simd;
  Choice c;
  if (name.empty()) {
    const char* env = std::getenv("ONNXQ_ISA");
    c = make_choice(env ? env : "");
  } else {
    c = make_choice(name);
    if (c.failed) fail(c.kind, c.message);  // an explicit request fails loudly, state unchanged
  }
  std::lock_guard lock(g_mutex);
  g_choice = c;
  g_ready.store(true, std::memory_order_release);
}

}  // namespace onnxq

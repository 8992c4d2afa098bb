// What the SIMD tests cover, checked against the machine rather than against the library's own
// CPU detection: the cross-path and Unpack tests run every path in supported_isas() /
// unpack_kernel_paths(), so a path the CPU has but the library does not list would be skipped
// silently. /proc/cpuinfo (the kernel's view, independent of lib/src/decode/cpu_features.cpp)
// says which paths this machine has; every one must be listed, and every listed path must have
// a SIMD kernel for every format and output dtype (a missing one would quietly fall back to scalar).
// On AArch64 the kernel's view is getauxval(AT_HWCAP) (qemu-aarch64 answers it for the emulated
// CPU; /proc/cpuinfo would be the host's): a build with NEON kernels must list and test them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "decode/dispatch.hpp"
#include "isa_paths.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/ops/unpack.hpp"

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace onnxq {
namespace {

using testing::IsaGuard;

#if ONNXQ_TEST_HAVE_X86_SIMD
std::set<std::string> cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      std::set<std::string> flags;
      for (std::string w; words >> w;) flags.insert(w);
      return flags;
    }
  return {};
}

// The decoder paths this machine can run, from the flags the kernel reports (it hides AVX flags
// when the OS does not save the registers), with the requirements lib/CMakeLists.txt compiles for.
std::vector<std::string> machine_paths(const std::set<std::string>& f) {
  std::vector<std::string> paths{"scalar"};
  const bool avx2 = f.count("avx2") && f.count("fma") && f.count("f16c");
  if (avx2) paths.push_back("avx2");
  if (avx2 && f.count("avx512f") && f.count("avx512bw") && f.count("avx512vl")) {
    paths.push_back("avx512");
    if (f.count("avx512vbmi")) paths.push_back("avx512vbmi");
  }
  return paths;
}
#endif

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

TEST(SimdCoverage, EveryPathTheMachineHasIsTested) {
#if defined(__aarch64__)
  // NEON (ASIMD) is part of every AArch64 CPU Linux runs on; the kernels exist once lib/src/simd/neon/ does.
  const bool asimd = (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
  std::vector<std::string> want{"scalar"}, unpack_want{"portable"};
  if (ONNXQ_TEST_HAVE_NEON && asimd) want.push_back("neon"), unpack_want.push_back("neon");
  const std::vector<std::string> got = supported_isas(), unpack_got = unpack_kernel_paths();
  std::printf("decoder paths tested: %s (machine: %s)\n", joined(got).c_str(), joined(want).c_str());
  std::printf("unpack paths tested: %s (machine: %s)\n", joined(unpack_got).c_str(), joined(unpack_want).c_str());
  RecordProperty("decoder_paths", joined(got));
  RecordProperty("unpack_paths", joined(unpack_got));
  EXPECT_EQ(got, want) << "the SIMD tests would skip a path this machine has (or run one it lacks)";
  EXPECT_EQ(unpack_got, unpack_want);
#elif !ONNXQ_TEST_HAVE_X86_SIMD
  GTEST_SKIP() << "built with -DONNXQ_X86_SIMD=OFF or not for x86-64 or AArch64: only the scalar path exists";
#else
  const std::set<std::string> flags = cpuinfo_flags();
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  const std::vector<std::string> want = machine_paths(flags), got = supported_isas();
  // Recorded in the test log: the paths the cross-path tests ran on this machine.
  std::printf("decoder paths tested: %s (machine: %s)\n", joined(got).c_str(), joined(want).c_str());
  RecordProperty("decoder_paths", joined(got));
  EXPECT_EQ(got, want) << "the SIMD tests would skip a path this machine has (or run one it lacks)";

  // Unpack's sets follow the same CPU requirements (its AVX-512 set is named after its BW use).
  const auto has = [&](const char* p) { return std::find(want.begin(), want.end(), p) != want.end(); };
  std::vector<std::string> unpack_want{"portable"};
  if (has("avx2")) unpack_want.push_back("avx2");
  if (has("avx512")) {
    unpack_want.push_back("avx512");
    if (flags.count("avx512vbmi")) unpack_want.push_back("avx512vbmi");
  }
  const std::vector<std::string> unpack_got = unpack_kernel_paths();
  std::printf("unpack paths tested: %s (machine: %s)\n", joined(unpack_got).c_str(), joined(unpack_want).c_str());
  RecordProperty("unpack_paths", joined(unpack_got));
  EXPECT_EQ(unpack_got, unpack_want);
#endif
}

// Every block format, and F32/F16/BF16 to another float dtype, has a fused kernel with ordinary
// and with non-temporal stores on every SIMD path (README: "Every block format and the F16/BF16
// plain types have AVX2 and AVX-512 decoders").
TEST(SimdCoverage, EverySimdPathHasAKernelForEveryFormatAndDtype) {
  IsaGuard guard;
  constexpr DType kOut[] = {DType::Float, DType::Float16, DType::BFloat16, DType::Double};
  std::size_t checked = 0;
  for (const std::string& path : supported_isas()) {
    if (path == "scalar") continue;
    select_isa(path);
    for (const BlockFormat& f : all_formats()) {
      const bool plain_float =
          f.plain_dtype == DType::Float || f.plain_dtype == DType::Float16 || f.plain_dtype == DType::BFloat16;
      if (!f.is_block_format() && !plain_float) continue;
      for (DType out : kOut) {
        if (!f.is_block_format() && out == f.plain_dtype) continue;  // a copy of bits, no kernel needed
        for (bool streaming : {false, true}) {
          ++checked;
          EXPECT_NE(decode::decode_kernel(f, out, streaming).fused, nullptr)
              << path << ": no " << (streaming ? "non-temporal " : "") << "kernel for " << f.gguf_name << " -> "
              << dtype_info(out).onnx_name << " (it would fall back to the scalar reference)";
        }
      }
    }
  }
  std::printf("%zu (path, format, dtype, store) kernels present\n", checked);
}

}  // namespace
}  // namespace onnxq

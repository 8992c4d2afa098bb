// CPU feature detection (CPUID + XGETBV on x86, cpu_features.cpp) and the process-wide choice of
// SIMD path (isa.cpp, over the rows of isa_registry.cpp). Only lib/src/decode/ asks them: it is the
// one place that knows which path runs.
#pragma once

#include <cstdint>

namespace onnxq::decode {

// Avx512Vbmi: the Avx512 kernels, with the IQ grid decoders and Unpack using VBMI byte permutes.
// The values index the rows of isa_registry.cpp.
enum class Isa : int { Scalar = 0, Avx2 = 1, Avx512 = 2, Avx512Vbmi = 3, Neon = 4 };

struct CpuFeatures {
  bool avx2 = false;         // AVX2 + FMA + F16C, with YMM state enabled by the OS
  bool avx512 = false;       // AVX-512 F/BW/VL, with ZMM and opmask state enabled by the OS
  bool avx512_vbmi = false;  // AVX-512 VBMI, on top of avx512
  bool avx512_dq = false;    // AVX-512 DQ (64-bit lane multiplies), on top of avx512
  bool avx512_bf16 = false;  // never used for output rounding: vcvtneps2bf16 flushes subnormals
  bool neon = false;         // AArch64 Advanced SIMD (every AArch64 CPU has it), in a build with the NEON kernels
};

// Detected once; all false on builds without SIMD kernels.
const CpuFeatures& cpu_features();
const char* isa_name(Isa isa);
// The cached active path (see onnxq/decode/isa.hpp); throws onnxq::Error for a bad ONNXQ_ISA.
Isa active_isa();

}  // namespace onnxq::decode

// The Unpack row kernels one code path offers, for rows contiguous in memory (the last axis):
// the portable C++ ones (unpack_fast.cpp) and the x86 SIMD ones (lib/src/simd/unpack_*.cpp),
// chosen at run time. A null entry means "use the portable kernel".
#pragma once

#include <cstdint>

namespace onnxq::ops_detail {

// Writes `count` codes of `bits` bits from a row of `in_bytes` bytes (the exact packed length,
// or more for UINT32 words). Never reads past in + in_bytes nor writes past out + count.
using BitsRowFn = void (*)(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes);
// (R, G) = (3, 5): one byte per group. False (output unspecified) when a group index is >= 243.
using TernaryRowFn = bool (*)(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count);

struct UnpackKernels {
  const char* name;
  BitsRowFn bits[9];         // [1..8]; [0] unused
  BitsRowFn bits_stream[9];  // the same with non-temporal stores (large outputs); null = use bits[]
  TernaryRowFn ternary;
  TernaryRowFn ternary_stream;  // non-temporal stores; null = use ternary
};

// The portable kernels (always complete), for fallbacks and the tails of SIMD rows.
const UnpackKernels& portable_unpack_kernels();
void unpack_bits_row_portable(unsigned bits, const std::uint8_t* in, std::uint8_t* out, std::uint64_t count,
                              std::uint64_t in_bytes);
bool unpack_ternary_row_portable(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count);

// The x86 sets, defined in translation units compiled with their ISA's flags; call only when
// the CPU has the ISA (simd::cpu_features()).
const UnpackKernels& avx2_unpack_kernels();        // AVX2
const UnpackKernels& avx512bw_unpack_kernels();    // AVX-512 F/BW/VL
const UnpackKernels& avx512vbmi_unpack_kernels();  // AVX-512 F/BW/VL + VBMI

}  // namespace onnxq::ops_detail

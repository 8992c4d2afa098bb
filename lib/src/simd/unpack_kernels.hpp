// The Unpack row kernels one code path offers, for rows contiguous in memory (the last axis): the
// portable C++ set (simd/portable/unpack.cpp) and the SIMD sets (simd/<isa>/unpack.cpp). The
// dispatch point (decode/dispatch.cpp) picks one at run time. A null entry means "use the portable
// kernel".
#pragma once

#include <cstdint>

namespace onnxq::simd {

// Writes `count` codes of `bits` bits from a row of `in_bytes` bytes (the exact packed length,
// or more for UINT32 words). Never reads past in + in_bytes nor writes past out + count.
using BitsRowFn = void (*)(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes);
// Radix 3, group size 5 ((R, G) = (3, 5)): one byte per group of five trits. False (output
// unspecified) when a group index is >= 243.
using Radix3RowFn = bool (*)(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count);

struct UnpackKernels {
  const char* name;
  BitsRowFn bits[9];         // [1..8]; [0] unused
  BitsRowFn bits_stream[9];  // the same with non-temporal stores (large outputs); null = use bits[]
  Radix3RowFn radix3;
  Radix3RowFn radix3_stream;  // non-temporal stores; null = use radix3
};

// The bits[] or bits_stream[] entries of a set whose kernels are ROW<BITS, STREAM>.
#define ONNXQ_UNPACK_BITS_ROWS(ROW, STREAM)                                                                        \
  {                                                                                                                \
    nullptr, &ROW<1, STREAM>, &ROW<2, STREAM>, &ROW<3, STREAM>, &ROW<4, STREAM>, &ROW<5, STREAM>, &ROW<6, STREAM>, \
        &ROW<7, STREAM>, &ROW<8, STREAM>                                                                           \
  }

// The portable kernels for the tails of SIMD rows.
void unpack_bits_row_portable(unsigned bits, const std::uint8_t* in, std::uint8_t* out, std::uint64_t count,
                              std::uint64_t in_bytes);
bool unpack_radix3_row_portable(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count);

// Each set, defined in translation units compiled with its ISA's flags: call one only when the CPU
// has the ISA (decode/isa_registry.cpp). avx512 needs AVX-512 F/BW/VL, avx512vbmi also VBMI; neon is
// every AArch64 CPU.
namespace portable {
const UnpackKernels& unpack_kernels();
}
namespace avx2 {
const UnpackKernels& unpack_kernels();
}
namespace avx512 {
const UnpackKernels& unpack_kernels();
}
namespace avx512vbmi {
const UnpackKernels& unpack_kernels();
}
namespace neon {
const UnpackKernels& unpack_kernels();
}

}  // namespace onnxq::simd

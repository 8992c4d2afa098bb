// The portable Unpack row kernels for rows contiguous in memory (the last axis), written so the
// compiler can unroll and vectorize them: the kernel set of the scalar path, the fallback for
// entries a SIMD set lacks, and the tails of SIMD rows. On a little-endian host a row of UINT32
// words is the same LSB-first bit stream as its bytes, so both storage types take the byte path.
// Tested against the operator's reference (ops/unpack_reference.cpp) on every path.
#include <algorithm>
#include <array>
#include <cstring>

#include "simd/unpack_kernels.hpp"

namespace onnxq::simd {
namespace {

// Up to 8 bytes as a little-endian integer, independent of host order.
inline std::uint64_t load_le(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned k = 0; k < n; ++k) v |= std::uint64_t{p[k]} << (8 * k);
  return v;
}

// BITS dividing 8: each byte expands to 8/BITS codes, looked up whole.
template <unsigned BITS>
struct ByteExpansion {
  static constexpr unsigned per_byte = 8 / BITS;
  std::array<std::array<std::uint8_t, per_byte>, 256> codes{};
  ByteExpansion() {
    for (unsigned v = 0; v < 256; ++v)
      for (unsigned j = 0; j < per_byte; ++j)
        codes[v][j] = static_cast<std::uint8_t>((v >> (j * BITS)) & ((1u << BITS) - 1));
  }
};

// Eight codes of BITS bits occupy exactly BITS bytes: whole chunks need no bit-level carry.
// `in_bytes` is the row's length: wide reads are used only where they stay inside the row.
template <unsigned BITS>
void unpack_bits_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count,
                     [[maybe_unused]] std::uint64_t in_bytes) {
  constexpr std::uint64_t mask = (std::uint64_t{1} << BITS) - 1;
  if constexpr (BITS == 8) {
    std::memcpy(out, in, count);
    return;
  } else if constexpr (8 % BITS == 0) {
    static const ByteExpansion<BITS> table;
    constexpr unsigned per = ByteExpansion<BITS>::per_byte;
    const std::uint64_t whole = count / per;
    if constexpr (BITS == 4) {
      // Two nibbles per byte: GCC vectorizes this form; for 1 and 2 bits the table is faster.
      for (std::uint64_t b = 0; b < whole; ++b)
        for (unsigned j = 0; j < per; ++j) out[b * per + j] = static_cast<std::uint8_t>((in[b] >> (j * BITS)) & mask);
    } else {
      for (std::uint64_t b = 0; b < whole; ++b) std::memcpy(out + b * per, table.codes[in[b]].data(), per);
    }
    if (count % per) std::memcpy(out + whole * per, table.codes[in[whole]].data(), count % per);
    return;
  } else {
    const std::uint64_t chunks = count / 8;
    // Whole chunks whose 16-bit windows stay inside the row; each code is then two byte loads,
    // a constant shift and a mask once the compiler unrolls j.
    const std::uint64_t safe = in_bytes >= 1 ? std::min(chunks, (in_bytes - 1) / BITS) : 0;
    for (std::uint64_t c = 0; c < safe; ++c) {
      const std::uint8_t* p = in + c * BITS;
      for (unsigned j = 0; j < 8; ++j) {
        const unsigned byte = j * BITS / 8, shift = j * BITS % 8;
        const unsigned window = p[byte] | (unsigned{p[byte + 1]} << 8);
        out[c * 8 + j] = static_cast<std::uint8_t>((window >> shift) & mask);
      }
    }
    for (std::uint64_t c = safe; c < chunks; ++c) {
      const std::uint64_t v = load_le(in + c * BITS, BITS);
      for (unsigned j = 0; j < 8; ++j) out[c * 8 + j] = static_cast<std::uint8_t>((v >> (j * BITS)) & mask);
    }
    const unsigned rest = static_cast<unsigned>(count % 8);
    if (rest) {
      const std::uint64_t v = load_le(in + chunks * BITS, (rest * BITS + 7) / 8);
      for (unsigned j = 0; j < rest; ++j) out[chunks * 8 + j] = static_cast<std::uint8_t>((v >> (j * BITS)) & mask);
    }
  }
}

// (R, G) = (3, 5): 3^5 = 243 <= 256, so W = 8 and each byte is one group of five base-3 digits.
// Entries are 8 bytes so a whole group is one store; the three extra bytes are overwritten by the next.
struct Radix3Digits {
  std::array<std::array<std::uint8_t, 8>, 243> digits{};
  Radix3Digits() {
    for (unsigned v = 0; v < 243; ++v)
      for (unsigned d = 0, x = v; d < 5; ++d, x /= 3) digits[v][d] = static_cast<std::uint8_t>(x % 3);
  }
};

// False when the row holds an index >= 243; the caller then lets the reference name it.
bool unpack_radix3_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count) {
  static const Radix3Digits table;
  const std::uint64_t groups = (count + 4) / 5;
  std::uint8_t max = 0;
  for (std::uint64_t g = 0; g < groups; ++g) max = in[g] > max ? in[g] : max;
  if (max >= 243) return false;
  const std::uint64_t full = count / 5;
  // 8-byte stores while they end inside the row; the last full group and the tail are exact.
  const std::uint64_t wide = full >= 1 ? full - 1 : 0;
  for (std::uint64_t g = 0; g < wide; ++g) std::memcpy(out + g * 5, table.digits[in[g]].data(), 8);
  for (std::uint64_t g = wide; g < full; ++g) std::memcpy(out + g * 5, table.digits[in[g]].data(), 5);
  if (count % 5) std::memcpy(out + full * 5, table.digits[in[full]].data(), count % 5);
  return true;
}

constexpr UnpackKernels kPortable{
    "portable",
    {nullptr, &unpack_bits_row<1>, &unpack_bits_row<2>, &unpack_bits_row<3>, &unpack_bits_row<4>, &unpack_bits_row<5>,
     &unpack_bits_row<6>, &unpack_bits_row<7>, &unpack_bits_row<8>},
    {},
    &unpack_radix3_row,
    nullptr};

}  // namespace

namespace portable {
const UnpackKernels& unpack_kernels() { return kPortable; }
}  // namespace portable

void unpack_bits_row_portable(unsigned bits, const std::uint8_t* in, std::uint8_t* out, std::uint64_t count,
                              std::uint64_t in_bytes) {
  kPortable.bits[bits](in, out, count, in_bytes);
}

bool unpack_radix3_row_portable(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count) {
  return unpack_radix3_row(in, out, count);
}

}  // namespace onnxq::simd

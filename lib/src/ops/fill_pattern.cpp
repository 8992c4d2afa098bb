// Repeated-element fills. The streaming form uses SSE2 non-temporal stores, part of every x86-64,
// so this file needs no ISA flags: four 16-byte stores fill a whole line in the write-combining
// buffer, which is then written to memory without reading it first.
#include "ops/fill_pattern.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define ONNXQ_STREAM_FILL 1
#else
#define ONNXQ_STREAM_FILL 0
#endif

namespace onnxq::ops_detail {
namespace {

template <class Word>
void fill_words(std::byte* out, std::uint64_t n, const std::byte* value) {
  Word w;
  std::memcpy(&w, value, sizeof w);
  std::fill_n(reinterpret_cast<Word*>(out), n, w);
}

void fill_plain(std::byte* out, std::uint64_t n, const std::byte* value, std::size_t size) {
  switch (size) {
    case 1: std::memset(out, std::to_integer<int>(value[0]), n); return;
    case 2: fill_words<std::uint16_t>(out, n, value); return;
    case 4: fill_words<std::uint32_t>(out, n, value); return;
    case 8: fill_words<std::uint64_t>(out, n, value); return;
    default:
      for (std::uint64_t i = 0; i < n; ++i) std::memcpy(out + i * size, value, size);
  }
}

}  // namespace

void fill_pattern(std::byte* out, std::uint64_t n, const std::byte* value, std::size_t size, bool streaming) {
#if ONNXQ_STREAM_FILL
  const std::uint64_t bytes = n * size;
  // Owned tensor storage is 64-byte aligned; anything else takes the plain fill.
  if (streaming && size != 0 && 64 % size == 0 && bytes >= 64 && reinterpret_cast<std::uintptr_t>(out) % 64 == 0) {
    alignas(64) std::byte line[64];
    for (std::size_t i = 0; i < 64; ++i) line[i] = value[i % size];
    const __m128i* src = reinterpret_cast<const __m128i*>(line);
    const __m128i a = _mm_load_si128(src), b = _mm_load_si128(src + 1), c = _mm_load_si128(src + 2),
                  d = _mm_load_si128(src + 3);
    const std::uint64_t lines = bytes / 64;
    auto* dst = reinterpret_cast<__m128i*>(out);
    for (std::uint64_t l = 0; l < lines; ++l, dst += 4) {
      _mm_stream_si128(dst, a);
      _mm_stream_si128(dst + 1, b);
      _mm_stream_si128(dst + 2, c);
      _mm_stream_si128(dst + 3, d);
    }
    _mm_sfence();  // later ordinary stores (the scatter) must land after these
    std::memcpy(out + lines * 64, line, bytes - lines * 64);
    return;
  }
#endif
  (void)streaming;
  fill_plain(out, n, value, size);
}

}  // namespace onnxq::ops_detail

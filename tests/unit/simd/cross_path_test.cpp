// Cross-path bit-exactness: every SIMD path this CPU runs must give the scalar reference's
// bits (NaN compared as NaN) for every block format, plain float type and output dtype, on
// random bytes, blocks with special scales (zeros, subnormals, infinities, NaNs) and the ggml
// blocks, for every block count 0..17, odd tails, misaligned destinations, 1/2/3 threads and
// outputs large enough for non-temporal stores.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "isa_paths.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

using testing::IsaGuard;
using testing::read_file_bytes;
using testing::simd_paths;
using testing::testdata_path;

constexpr DType kOutDtypes[] = {DType::Float, DType::Float16, DType::BFloat16, DType::Double};

std::size_t out_bytes(DType t) { return dtype_info(t).bits / 8; }

bool same_value(const std::byte* a, const std::byte* b, DType t) {
  switch (t) {
    case DType::Float: {
      std::uint32_t x, y;
      std::memcpy(&x, a, 4), std::memcpy(&y, b, 4);
      return x == y || ((x & 0x7FFFFFFFu) > 0x7F800000u && (y & 0x7FFFFFFFu) > 0x7F800000u);
    }
    case DType::Double: {
      std::uint64_t x, y;
      std::memcpy(&x, a, 8), std::memcpy(&y, b, 8);
      const std::uint64_t inf = 0x7FF0000000000000ull, mag = ~(1ull << 63);
      return x == y || ((x & mag) > inf && (y & mag) > inf);
    }
    default: {  // FLOAT16 (NaN above 0x7C00) and BFLOAT16 (above 0x7F80)
      std::uint16_t x, y;
      std::memcpy(&x, a, 2), std::memcpy(&y, b, 2);
      const std::uint16_t inf = t == DType::Float16 ? 0x7C00 : 0x7F80;
      return x == y || ((x & 0x7FFF) > inf && (y & 0x7FFF) > inf);
    }
  }
}

// Decodes on `path` into a destination `shift` bytes past a 64-byte boundary.
std::vector<std::byte> decode_on(const std::string& path, const BlockFormat& f, const std::vector<std::byte>& src,
                                 std::uint64_t first, std::uint64_t count, DType out, int threads,
                                 std::size_t shift = 0) {
  select_isa(path);
  const std::size_t bytes = count * f.block_elements * out_bytes(out);
  std::vector<std::byte> buf(bytes + shift + 128, std::byte{0x5A});
  const std::size_t start = (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 + shift;
  decode_blocks(f, src, first, count, out, buf.data() + start, threads);
  EXPECT_TRUE(std::all_of(buf.begin() + start + bytes, buf.end(), [](std::byte b) { return b == std::byte{0x5A}; }))
      << f.gguf_name << " on " << path << " wrote past the end";
  EXPECT_TRUE(std::all_of(buf.begin(), buf.begin() + start, [](std::byte b) { return b == std::byte{0x5A}; }))
      << f.gguf_name << " on " << path << " wrote before the start";
  return {buf.begin() + start, buf.begin() + start + bytes};
}

// Makes every decode use the non-temporal-store variants while alive.
struct StreamEverything {
  std::size_t saved = streaming_store_threshold();
  StreamEverything() { set_streaming_store_threshold(0); }
  ~StreamEverything() { set_streaming_store_threshold(saved); }
};

std::size_t count_differences(const std::vector<std::byte>& got, const std::vector<std::byte>& want, DType t,
                              const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  const std::size_t size = out_bytes(t);
  std::size_t bad = 0;
  for (std::size_t i = 0; i + size <= std::min(got.size(), want.size()); i += size)
    if (!same_value(&got[i], &want[i], t) && ++bad <= 3)
      ADD_FAILURE() << what << ": element " << i / size << " differs from the scalar reference";
  return bad;
}

std::vector<std::byte> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng() & 0xFF);
  return v;
}

// The binary16 scales every kernel must treat as the reference does: signed zeros, the smallest and
// largest subnormals, the largest normal, one, infinities, quiet and signalling NaNs with payloads.
constexpr std::uint16_t kSpecialHalves[] = {0x0000, 0x8000, 0x0001, 0x03FF, 0x8001, 0x7BFF,
                                            0x3C00, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE5A};
constexpr std::uint32_t kSpecialFloats[] = {0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x7F7FFFFF, 0x3F800000,
                                            0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345, 0x80000001};
// E8M0 (0xFF is NaN) and UE4M3 (0x7F and 0xFF are NaN; 0x01 is a subnormal) scale bytes.
constexpr std::uint8_t kSpecialScaleBytes[] = {0x00, 0x01, 0x07, 0x7E, 0x7F, 0x80, 0xFE, 0xFF, 0x38, 0x08, 0x70, 0x81};
constexpr std::size_t kSpecials = std::size(kSpecialHalves);
static_assert(std::size(kSpecialFloats) == kSpecials && std::size(kSpecialScaleBytes) == kSpecials);

// Random blocks whose scale fields (the format row's kinds say which) hold special values: block k
// puts special k % 12 in its first scale field and special k / 12 in its second (d and dmin: inf
// against inf, NaN against a subnormal ...), so every pair occurs.
std::vector<std::byte> special_scale_blocks(const BlockFormat& f) {
  std::vector<std::byte> blocks = random_bytes(std::size_t{f.block_bytes} * kSpecials * kSpecials, f.ggml_type + 77u);
  for (std::size_t k = 0; k < kSpecials * kSpecials; ++k) {
    std::byte* block = blocks.data() + k * f.block_bytes;
    std::size_t scale_field = 0;
    for (const BlockField& field : f.fields) {
      const std::size_t which = scale_field == 0 ? k % kSpecials : k / kSpecials;
      std::byte* at = block + field.offset;
      switch (field.kind) {
        case FieldKind::Fp16Scale: std::memcpy(at, &kSpecialHalves[which], 2); break;
        case FieldKind::Fp32Scale: std::memcpy(at, &kSpecialFloats[which], 4); break;
        case FieldKind::E8M0Scale:
        case FieldKind::UE4M3Scales:
          for (std::size_t i = 0; i < field.width; ++i)  // the special in turn with the next ones
            at[i] = static_cast<std::byte>(kSpecialScaleBytes[(which + i) % kSpecials]);
          break;
        case FieldKind::Iq1mScales:  // the binary16 lives in the top nibbles of four uint16 words
          for (int w = 0; w < 4; ++w) {
            const auto nibble = static_cast<std::uint8_t>((kSpecialHalves[which] >> (4 * w)) & 0xF);
            at[2 * w + 1] =
                static_cast<std::byte>((std::to_integer<std::uint8_t>(at[2 * w + 1]) & 0x0F) | (nibble << 4));
          }
          break;
        default: continue;
      }
      ++scale_field;
    }
  }
  return blocks;
}

// Random blocks, blocks with special scales, the ggml quantizer blocks and the edge blocks, one
// after another.
std::vector<std::byte> test_blocks(const BlockFormat& f) {
  std::vector<std::byte> all = random_bytes(std::size_t{f.block_bytes} * 300, f.ggml_type * 7919u + 1);
  if (f.is_block_format()) {
    const std::vector<std::byte> special = special_scale_blocks(f);
    all.insert(all.end(), special.begin(), special.end());
  }
  if (f.is_block_format()) {
    const std::string stem = "gguf/blocks/" + std::string(f.format_id.substr(5));
    for (const char* suffix : {".bin", ".edge.bin"}) {
      const std::vector<std::byte> more = read_file_bytes(testdata_path(stem + suffix));
      EXPECT_EQ(more.size() % f.block_bytes, 0u);
      all.insert(all.end(), more.begin(), more.end());
    }
  }
  return all;
}

class CrossPath : public ::testing::TestWithParam<const BlockFormat*> {};

TEST_P(CrossPath, EverySimdPathMatchesScalarOnEveryLengthAndDtype) {
  const BlockFormat& f = *GetParam();
  const std::vector<std::string> paths = simd_paths();
  if (paths.empty()) GTEST_SKIP() << "this CPU/build has no SIMD path";
  IsaGuard guard;
  const std::vector<std::byte> src = test_blocks(f);
  const std::uint64_t total = src.size() / f.block_bytes;
  for (DType out : kOutDtypes) {
    const std::vector<std::byte> want_all = decode_on("scalar", f, src, 0, total, out, 1);
    const std::size_t per_block = f.block_elements * out_bytes(out);
    for (const std::string& path : paths) {
      for (const bool streaming : {false, true}) {
        std::optional<StreamEverything> stream;
        if (streaming) stream.emplace();
        const std::string what = std::string(f.gguf_name) + " -> " + std::string(dtype_info(out).onnx_name) + " on " +
                                 path + (streaming ? " (non-temporal stores)" : "");
        EXPECT_EQ(count_differences(decode_on(path, f, src, 0, total, out, 1), want_all, out, what), 0u);
        // Every short count and some odd ones, from odd starting blocks, into misaligned buffers.
        for (std::uint64_t count = 0; count <= 40; count = count < 17 ? count + 1 : count + 23) {
          for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{5}, total - count}) {
            const std::vector<std::byte> want(want_all.begin() + first * per_block,
                                              want_all.begin() + (first + count) * per_block);
            const std::size_t shift = (count % 3) * 2;
            EXPECT_EQ(
                count_differences(decode_on(path, f, src, first, count, out, 1, shift), want, out,
                                  what + " blocks [" + std::to_string(first) + ", +" + std::to_string(count) + ")"),
                0u);
          }
        }
      }
    }
  }
}

// `seed` repeated to `blocks` whole blocks.
std::vector<std::byte> tiled(const std::vector<std::byte>& seed, std::size_t bytes) {
  std::vector<std::byte> src;
  src.reserve(bytes);
  while (src.size() < bytes)
    src.insert(src.end(), seed.begin(), seed.begin() + std::min(seed.size(), bytes - src.size()));
  return src;
}

// Several 256 KiB thread runs (and a ragged last one) on 1, 2 and 3 threads; then one output
// above the non-temporal-store threshold (32 MiB).
TEST_P(CrossPath, ThreadsAndLargeOutputsMatchScalar) {
  const BlockFormat& f = *GetParam();
  const std::vector<std::string> paths = simd_paths();
  if (paths.empty()) GTEST_SKIP() << "this CPU/build has no SIMD path";
  IsaGuard guard;
  const std::vector<std::byte> seed = test_blocks(f);
  struct Case {
    DType out;
    std::size_t out_bytes;
    std::vector<int> threads;
  };
  const Case cases[] = {{DType::Float, (std::size_t{5} << 18) + 4096, {1, 2, 3}},
                        {DType::BFloat16, (std::size_t{5} << 18) + 4096, {1, 2, 3}},
                        {DType::Float, std::size_t{33} << 20, {2}}};
  for (const Case& c : cases) {
    const std::size_t blocks = c.out_bytes / (f.block_elements * out_bytes(c.out)) + 3;
    const std::vector<std::byte> src = tiled(seed, blocks * f.block_bytes);
    const std::vector<std::byte> want = decode_on("scalar", f, src, 0, blocks, c.out, 1);
    for (const std::string& path : paths)
      for (int threads : c.threads) {
        const std::string what = std::string(f.gguf_name) + " -> " + std::string(dtype_info(c.out).onnx_name) + " x" +
                                 std::to_string(blocks) + " on " + path + " threads=" + std::to_string(threads);
        EXPECT_EQ(count_differences(decode_on(path, f, src, 0, blocks, c.out, threads), want, c.out, what), 0u);
      }
  }
}

// Non-temporal stores on several threads for every output dtype (the threshold forced to 0, so
// a few MiB suffice), into an aligned destination (every thread streams) and into destinations
// 2 and 8 bytes past a 64-byte boundary (the kernels must then fall back to ordinary stores,
// or stream only the aligned part, and still write exactly the right bytes and nothing else).
TEST_P(CrossPath, NonTemporalStoresOnThreadsAndMisalignedDestinations) {
  const BlockFormat& f = *GetParam();
  const std::vector<std::string> paths = simd_paths();
  if (paths.empty()) GTEST_SKIP() << "this CPU/build has no SIMD path (SimdCoverage checks that it truly has none)";
  IsaGuard guard;
  const std::vector<std::byte> seed = test_blocks(f);
  for (DType out : kOutDtypes) {
    const std::size_t blocks = ((std::size_t{5} << 18) + 4096) / (f.block_elements * out_bytes(out)) + 3;
    const std::vector<std::byte> src = tiled(seed, blocks * f.block_bytes);
    const std::vector<std::byte> want = decode_on("scalar", f, src, 0, blocks, out, 1);
    StreamEverything stream;
    for (const std::string& path : paths)
      for (int threads : {1, 2, 3})
        for (std::size_t shift : {std::size_t{0}, std::size_t{2}, std::size_t{8}}) {
          const std::string what = std::string(f.gguf_name) + " -> " + std::string(dtype_info(out).onnx_name) +
                                   " non-temporal on " + path + " threads=" + std::to_string(threads) +
                                   " shift=" + std::to_string(shift);
          EXPECT_EQ(count_differences(decode_on(path, f, src, 0, blocks, out, threads, shift), want, out, what), 0u);
        }
  }
}

std::vector<const BlockFormat*> rows() {
  std::vector<const BlockFormat*> r;
  for (const BlockFormat& f : all_formats())
    if (f.is_block_format() || f.plain_dtype == DType::Float16 || f.plain_dtype == DType::BFloat16 ||
        f.plain_dtype == DType::Float)
      r.push_back(&f);
  return r;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, CrossPath, ::testing::ValuesIn(rows()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

// float32 -> FLOAT16/BFLOAT16 through each SIMD path against the scalar formulas, on every
// float whose upper bits are anything and whose lower bits sit at or near a rounding tie.
void expect_conversion_matches(DType out, std::uint16_t (*reference)(float), int low_bits,
                               std::uint32_t lo_magnitude = 0, std::uint32_t hi_magnitude = 0xFFFFFFFFu) {
  const BlockFormat& f32 = *find_format("f32");
  std::vector<std::uint32_t> values;
  const std::uint32_t half = 1u << (low_bits - 1), all = (1u << low_bits) - 1;
  for (std::uint32_t hi = 0; hi < (1u << (32 - low_bits)); ++hi) {
    const std::uint32_t magnitude = (hi << low_bits) & 0x7FFFFFFFu;
    if (magnitude < lo_magnitude || magnitude > hi_magnitude) continue;
    for (std::uint32_t lo : {0u, 1u, half - 1, half, half + 1, all}) values.push_back((hi << low_bits) | lo);
  }
  std::mt19937 rng(12345);
  for (int i = 0; i < (1 << 16); ++i) values.push_back(rng());
  std::vector<std::byte> src(values.size() * 4);
  std::memcpy(src.data(), values.data(), src.size());
  for (const std::string& path : simd_paths()) {
    const std::vector<std::byte> got = decode_on(path, f32, src, 0, values.size(), out, 2);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint16_t want = reference(std::bit_cast<float>(values[i]));
      std::byte w[8] = {};
      std::memcpy(w, &want, 2);
      if (!same_value(&got[2 * i], w, out) && ++bad <= 3)
        ADD_FAILURE() << path << ": 0x" << std::hex << values[i] << " converts differently";
    }
    EXPECT_EQ(bad, 0u) << path;
  }
}

TEST(SimdConversion, Float16RoundingMatchesTheScalarFormula) {
  if (simd_paths().empty()) GTEST_SKIP();
  IsaGuard guard;
  expect_conversion_matches(DType::Float16, float_to_half, 13);  // a normal half keeps 10 of 23 bits
  // Subnormal halves round at bit 13..23 of the float32: |x| in [2^-26, 2^-14).
  for (int low_bits = 14; low_bits <= 24; ++low_bits)
    expect_conversion_matches(DType::Float16, float_to_half, low_bits, 0x32800000u, 0x38800000u);
}

TEST(SimdConversion, BFloat16RoundingMatchesTheScalarFormula) {
  if (simd_paths().empty()) GTEST_SKIP();
  IsaGuard guard;
  expect_conversion_matches(DType::BFloat16, float_to_bf16, 16);
}

// Every float32 bit pattern (about 90 s per path here); run with --gtest_also_run_disabled_tests.
TEST(SimdConversion, DISABLED_ExhaustiveFloat16AndBFloat16) {
  IsaGuard guard;
  const BlockFormat& f32 = *find_format("f32");
  constexpr std::size_t kChunk = 1u << 24;
  std::vector<std::uint32_t> values(kChunk);
  std::vector<std::byte> src(kChunk * 4);
  for (const std::string& path : simd_paths())
    for (std::uint64_t base = 0; base < (1ull << 32); base += kChunk) {
      for (std::size_t i = 0; i < kChunk; ++i) values[i] = static_cast<std::uint32_t>(base + i);
      std::memcpy(src.data(), values.data(), src.size());
      const std::vector<std::byte> h = decode_on(path, f32, src, 0, kChunk, DType::Float16, 2);
      const std::vector<std::byte> b = decode_on(path, f32, src, 0, kChunk, DType::BFloat16, 2);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < kChunk; ++i) {
        const float x = std::bit_cast<float>(values[i]);
        const std::uint16_t wh = float_to_half(x), wb = float_to_bf16(x);
        std::byte a[8] = {}, c[8] = {};
        std::memcpy(a, &wh, 2), std::memcpy(c, &wb, 2);
        if (!same_value(&h[2 * i], a, DType::Float16) || !same_value(&b[2 * i], c, DType::BFloat16)) ++bad;
      }
      ASSERT_EQ(bad, 0u) << path << " chunk 0x" << std::hex << base;
    }
}

TEST(IsaChoice, ResolveRules) {
  const std::vector<std::string> x86{"scalar", "avx2", "avx512"}, old{"scalar", "avx2"}, none{"scalar"};
  EXPECT_EQ(resolve_isa("", x86), "avx512");
  EXPECT_EQ(resolve_isa("", old), "avx2");
  EXPECT_EQ(resolve_isa("", none), "scalar");
  EXPECT_EQ(resolve_isa("avx2", x86), "avx2");
  EXPECT_EQ(resolve_isa("scalar", x86), "scalar");
  try {
    resolve_isa("avx512", old);  // a CPU without AVX-512
    ADD_FAILURE() << "no error for an unavailable path";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("avx512"), std::string::npos);
  }
  try {
    resolve_isa("neon", x86);  // a known path, for another CPU family
    ADD_FAILURE() << "no error for an unavailable path";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  }
  const std::vector<std::string> arm{"scalar", "neon"};
  EXPECT_EQ(resolve_isa("", arm), "neon");
  EXPECT_EQ(resolve_isa("scalar", arm), "scalar");
  try {
    resolve_isa("sse9", x86);
    ADD_FAILURE() << "no error for an unknown path";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("neon"), std::string::npos) << "the message lists the known paths";
  }
}

TEST(IsaChoice, EnvironmentForcesAPathAndBadValuesSurfaceAsErrors) {
  IsaGuard guard;
  const char* old = std::getenv("ONNXQ_ISA");
  const std::string saved = old ? old : "";
  const BlockFormat& q4 = *find_format("gguf:q4_0");
  std::vector<std::byte> block(18);
  float y[32];

  for (const std::string& path : supported_isas()) {
    ::setenv("ONNXQ_ISA", path.c_str(), 1);
    select_isa("");
    EXPECT_EQ(std::string(active_isa()), path);
  }
  ::setenv("ONNXQ_ISA", "sse9", 1);
  select_isa("");
  EXPECT_THROW(active_isa(), Error);
  EXPECT_THROW(decode_blocks(q4, block, 0, 1, DType::Float, y, 1), Error);  // reaches the decoder's caller
  if (supported_isas().size() < 3) {                                        // a path this CPU lacks
    ::setenv("ONNXQ_ISA", "avx512", 1);
    select_isa("");
    EXPECT_THROW(active_isa(), Error);
    EXPECT_THROW(select_isa("avx512"), Error);
  }
  EXPECT_THROW(select_isa("sse9"), Error);

  if (old)
    ::setenv("ONNXQ_ISA", saved.c_str(), 1);
  else
    ::unsetenv("ONNXQ_ISA");
  select_isa("");
  const std::vector<std::string> paths = supported_isas();
  if (saved.empty())  // "" = the default
    EXPECT_EQ(std::string(active_isa()), paths.back());
  else if (std::find(paths.begin(), paths.end(), saved) != paths.end())
    EXPECT_EQ(std::string(active_isa()), saved);
  else
    EXPECT_THROW(active_isa(), Error);
}

}  // namespace
}  // namespace onnxq

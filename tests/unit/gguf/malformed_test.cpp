// The malformed-GGUF catalogue: each entry builds a file and states whether the
// reader must accept it or reject it with an InvalidInput error (never a crash).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "gguf_builder.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;
using testing::GgufBytes;
using testing::parse_gguf;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kU64Max = UINT64_MAX;

GgufBuilder base_builder() {
  GgufBuilder b;
  b.kv_str("general.architecture", "test");
  b.kv_u32("test.answer", 42);
  b.tensor("a", {64, 2}, 2);  // q4_0: 2 rows of 2 blocks
  b.tensor("b", {8}, 0);      // f32
  return b;
}

void patch_u64(Bytes& bytes, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Byte offset of tensor info field for the single tensor named `name` in a builder's output.
std::size_t find(const Bytes& bytes, const std::string& needle) {
  auto it = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
  if (it == bytes.end()) throw std::runtime_error("needle not found");
  return static_cast<std::size_t>(it - bytes.begin());
}

// Nested array payload `depth` levels deep around one u8.
void nested_array(GgufBytes& b, int depth) {
  if (depth == 0) {
    b.u8(7);
    return;
  }
  b.u32(depth == 1 ? 0 : 9);  // innermost array holds u8, the others hold arrays
  b.u64(1);
  nested_array(b, depth - 1);
}

struct Case {
  std::string name;
  std::function<Bytes()> make;
  bool accept;
  std::string message;  // a fragment the error must contain (rejects only)
};

GgufBuilder one_tensor(std::vector<std::uint64_t> ne, std::uint32_t type, std::optional<std::uint64_t> offset = {}) {
  GgufBuilder b;
  BuilderTensor t;
  t.name = "t";
  t.ne = std::move(ne);
  t.type = type;
  t.offset = offset;
  t.auto_data = !offset.has_value();  // explicit offsets are for broken files: write no data there
  b.tensor(std::move(t));
  return b;
}

// One tensor with `n` bytes of data (0x5A), whatever its type's size.
GgufBuilder with_data(std::vector<std::uint64_t> ne, std::uint32_t type, std::size_t n) {
  GgufBuilder b;
  BuilderTensor t;
  t.name = "t";
  t.ne = std::move(ne);
  t.type = type;
  t.data.assign(n, 0x5A);
  b.tensor(std::move(t));
  return b;
}

// clang-format off: one case a line, as a table.
std::vector<Case> catalogue() {
  std::vector<Case> c;
  c.push_back({"valid base file", [] { return base_builder().build(); }, true, ""});
  c.push_back({"no tensors, no metadata", [] { return GgufBuilder().build(); }, true, ""});
  // gguf-py's writer leaves a vocab-only file unpadded: with no tensors the data section is empty.
  c.push_back({"no tensors, the file ends right after the metadata",
               [] {
                 GgufBuilder b;
                 b.kv_str("general.architecture", "llama");
                 auto bytes = b.build();
                 bytes.resize(24 + (8 + 20) + 4 + (8 + 5));
                 return bytes;
               },
               true, ""});
  c.push_back({"version 2",
               [] {
                 auto b = base_builder();
                 b.version = 2;
                 return b.build();
               },
               true, ""});
  c.push_back({"bad magic",
               [] {
                 auto b = base_builder();
                 b.magic = "GGML";
                 return b.build();
               },
               false, "bad magic"});
  c.push_back({"empty file", [] { return Bytes{}; }, false, "truncated magic"});
  for (std::uint32_t v : {0u, 1u, 4u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
    c.push_back({"version " + std::to_string(v),
                 [v] {
                   auto b = base_builder();
                   b.version = v;
                   return b.build();
                 },
                 false, v == 1 ? "version 1 is not supported" : "unsupported GGUF version"});
  }
  for (std::uint64_t n : std::vector<std::uint64_t>{1ull << 62, (1ull << 63) + 5, kU64Max - 1, kU64Max}) {
    c.push_back({"tensor count " + std::to_string(n),
                 [n] {
                   auto b = base_builder();
                   b.n_tensors_override = n;
                   return b.build();
                 },
                 false, "tensor count"});
    c.push_back({"kv count " + std::to_string(n),
                 [n] {
                   auto b = base_builder();
                   b.n_kv_override = n;
                   return b.build();
                 },
                 false, "metadata count"});
  }
  c.push_back({"kv count one too many",
               [] {
                 auto b = base_builder();
                 b.n_kv_override = 3;
                 return b.build();
               },
               false, ""});
  c.push_back({"key length past EOF",
               [] {
                 auto bytes = base_builder().build();
                 patch_u64(bytes, 24, 1ull << 40);
                 return bytes;
               },
               false, "metadata key length"});
  c.push_back({"key length 2^64-1",
               [] {
                 auto bytes = base_builder().build();
                 patch_u64(bytes, 24, kU64Max);
                 return bytes;
               },
               false, "exceeds"});
  c.push_back({"string value length past EOF",
               [] {
                 auto bytes = base_builder().build();
                 patch_u64(bytes, find(bytes, "general.architecture") + 20 + 4, 1ull << 50);
                 return bytes;
               },
               false, "string value length"});
  c.push_back({"unknown value type 13",
               [] {
                 GgufBuilder b;
                 b.kv("k", 13, [](GgufBytes& w) { w.u32(0); });
                 return b.build();
               },
               false, "unknown value type 13"});
  c.push_back({"unknown value type 2^32-1",
               [] {
                 GgufBuilder b;
                 b.kv("k", 0xFFFFFFFF, [](GgufBytes& w) { w.u32(0); });
                 return b.build();
               },
               false, "unknown value type"});
  c.push_back({"unknown array element type",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) {
                   w.u32(77);
                   w.u64(1);
                   w.u8(0);
                 });
                 return b.build();
               },
               false, "unknown array element type 77"});
  c.push_back({"array count past EOF",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) {
                   w.u32(4);
                   w.u64(1ull << 61);
                   w.u32(0);
                 });
                 return b.build();
               },
               false, "array of"});
  c.push_back({"array byte size wraps to 0 (2^62 u32)",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) {
                   w.u32(4);
                   w.u64(1ull << 62);
                 });
                 return b.build();
               },
               false, "array of"});
  c.push_back({"string array count past EOF",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) {
                   w.u32(8);
                   w.u64(1ull << 40);
                   w.str("x");
                 });
                 return b.build();
               },
               false, "array of"});
  c.push_back({"empty arrays",
               [] {
                 GgufBuilder b;
                 b.kv("a", 9, [](GgufBytes& w) {
                   w.u32(5);
                   w.u64(0);
                 });
                 b.kv("s", 9, [](GgufBytes& w) {
                   w.u32(8);
                   w.u64(0);
                 });
                 return b.build();
               },
               true, ""});
  c.push_back({"arrays nested 8 deep",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) { nested_array(w, 8); });
                 return b.build();
               },
               true, ""});
  c.push_back({"arrays nested 9 deep",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) { nested_array(w, 9); });
                 return b.build();
               },
               false, "nested deeper than 8"});
  c.push_back({"arrays nested 4096 deep",
               [] {
                 GgufBuilder b;
                 b.kv("k", 9, [](GgufBytes& w) { nested_array(w, 4096); });
                 return b.build();
               },
               false, "nested deeper than 8"});
  c.push_back({"duplicate key",
               [] {
                 GgufBuilder b;
                 b.kv_u32("x", 1).kv_u32("x", 2);
                 return b.build();
               },
               false, "duplicate metadata key 'x'"});
  c.push_back({"duplicate tensor name",
               [] {
                 GgufBuilder b;
                 b.tensor("t", {4}, 0).tensor("t", {4}, 0);
                 return b.build();
               },
               false, "duplicate tensor name 't'"});
  c.push_back({"n_dims 0", [] { return one_tensor({}, 0).build(); }, false, "n_dims 0"});
  c.push_back({"n_dims 5", [] { return one_tensor({1, 1, 1, 1, 1}, 0).build(); }, false, "n_dims 5"});
  c.push_back({"n_dims 4", [] { return one_tensor({2, 1, 3, 1}, 0).build(); }, true, ""});
  c.push_back({"negative dim",
               [] {
                 return one_tensor({4, static_cast<std::uint64_t>(-3)}, 0).build();
               },
               false, "negative dimension -3"});
  c.push_back({"zero-element tensor", [] { return one_tensor({32, 0}, 2).build(); }, true, ""});
  c.push_back({"element count wraps to exactly 2^64",
               [] {
                 return one_tensor({1ull << 32, 1ull << 32}, 0).build();
               },
               false, "element count overflows"});
  c.push_back({"element count above 2^63",
               [] {
                 return one_tensor({1ull << 40, 1ull << 24}, 0).build();
               },
               false, "element count overflows"});
  c.push_back({"byte size overflow (q8_0 2^63-32 elements)", [] { return one_tensor({(1ull << 63) - 32}, 8).build(); },
               false, "byte size overflows"});
  c.push_back({"element count overflow (q4_0 2^62 x 4)",
               [] {
                 return one_tensor({1ull << 62, 4}, 2).build();
               },
               false, "element count overflows"});
  c.push_back({"byte size overflow (f64 2^61 elements)", [] { return one_tensor({1ull << 61}, 28).build(); }, false,
               "byte size overflows"});
  c.push_back(
      {"huge but representable size past EOF", [] { return one_tensor({1ull << 40}, 0).build(); }, false, "outside"});
  c.push_back({"ne0 not a block multiple", [] { return one_tensor({48, 2}, 12).build(); }, false, "multiple of 256"});
  c.push_back({"removed type 4", [] { return one_tensor({32}, 4).build(); }, false, "removed ggml type 4"});
  c.push_back({"removed type 37", [] { return one_tensor({32}, 37).build(); }, false, "removed ggml type 37"});
  c.push_back({"unknown type 43", [] { return one_tensor({32}, 43).build(); }, false, "unknown ggml type 43"});
  c.push_back({"unknown type 2^32-1", [] { return one_tensor({32}, 0xFFFFFFFF).build(); }, false, "unknown ggml type"});
  c.push_back({"unknown type 142 with its data", [] { return with_data({128}, 142, 40).build(); }, true, ""});
  c.push_back({"unknown type past EOF", [] { return one_tensor({32}, 142, 1ull << 20).build(); }, false,
               "lies past the end of the 0-byte data section, so its size cannot be inferred"});
  c.push_back({"unknown type inside another tensor's data",
               [] {
                 GgufBuilder b = one_tensor({16}, 0);
                 b.tensor("u", {32}, 142, 32);
                 return b.build();
               },
               false, "tensor 'u' of unknown ggml type 142: its data offset 32 lies inside the data of tensor 't'"});
  c.push_back({"Q2_0 in PrismML's 34-byte blocks", [] { return with_data({4096}, 42, 1088).build(); }, false,
               "tensor 't' of type Q2_0 (42) fits the layout of PrismML's Q2_0 (128 values in 34-byte blocks), not "
               "ggml's Q2_0 (64 values in 18 bytes)"});
  c.push_back({"Q2_0 that fits no layout", [] { return with_data({256}, 42, 40).build(); }, false,
               "data [0, +72) relative to the data section at 64 lies outside the 128-byte file"});
  c.push_back(
      {"unaligned offset", [] { return one_tensor({4}, 0, 8).build(); }, false, "not a multiple of the alignment"});
  c.push_back({"offset past EOF", [] { return one_tensor({4}, 0, 1ull << 20).build(); }, false, "outside"});
  c.push_back({"offset near 2^64 wraps", [] { return one_tensor({4}, 0, kU64Max - 31).build(); }, false, "outside"});
  c.push_back({"alignment 64",
               [] {
                 auto b = base_builder();
                 b.alignment = 64;
                 b.kv_u32("general.alignment", 64);
                 return b.build();
               },
               true, ""});
  for (std::uint32_t a : {0u, 3u, 48u, 0x80000001u}) {
    c.push_back({"alignment " + std::to_string(a),
                 [a] {
                   auto b = base_builder();
                   b.kv_u32("general.alignment", a);
                   return b.build();
                 },
                 false, "general.alignment is"});
  }
  c.push_back({"alignment as u64",
               [] {
                 auto b = base_builder();
                 b.kv_u64("general.alignment", 32);
                 return b.build();
               },
               false, "general.alignment has type u64"});
  c.push_back({"alignment as string",
               [] {
                 auto b = base_builder();
                 b.kv_str("general.alignment", "32");
                 return b.build();
               },
               false, "general.alignment has type str"});
  c.push_back({"tensor data truncated by one byte",
               [] {
                 auto bytes = one_tensor({8}, 0).build();
                 bytes.resize(bytes.size() - 1);
                 return bytes;
               },
               false, "outside"});

  // ggml's limits (src/gguf.cpp): an empty key, a tensor name of GGML_MAX_NAME (64) bytes or more,
  // an alignment above 1 MiB, and a header whose padding to the data section is cut off.
  c.push_back({"empty key",
               [] {
                 auto b = base_builder();
                 b.kv_u32("", 1);
                 return b.build();
               },
               false, "metadata key 2 is empty"});
  for (std::size_t n : {63u, 64u, 200u}) {
    c.push_back({"tensor name of " + std::to_string(n) + " bytes",
                 [n] {
                   auto b = base_builder();
                   b.tensor(std::string(n, 'x'), {4}, 0);
                   return b.build();
                 },
                 n <= 63, "tensor 2 name is " + std::to_string(n) + " bytes long, more than ggml's limit of 63"});
  }
  c.push_back({"alignment 2^20",
               [] {
                 auto b = base_builder();
                 b.alignment = 1u << 20;
                 b.kv_u32("general.alignment", 1u << 20);
                 return b.build();
               },
               true, ""});
  c.push_back({"alignment 2^21",
               [] {
                 auto b = base_builder();
                 b.kv_u32("general.alignment", 1u << 21);
                 return b.build();
               },
               false, "general.alignment is 2097152, more than ggml's limit of 1048576"});
  c.push_back({"header padding cut off, all tensors empty",
               [] {
                 auto bytes = one_tensor({32, 0}, 2).build();
                 bytes.resize(parse_gguf(bytes).primary().data_offset - 1);  // the last padding byte is missing
                 return bytes;
               },
               false, "past the end"});
  return c;
}
// clang-format on

TEST(GgufMalformed, Catalogue) {
  for (const Case& c : catalogue()) {
    SCOPED_TRACE(c.name);
    const Bytes bytes = c.make();
    if (c.accept) {
      EXPECT_NO_THROW(parse_gguf(bytes));
      continue;
    }
    try {
      parse_gguf(bytes);
      ADD_FAILURE() << "accepted a malformed file: " << c.name;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
      const std::string what = e.what();
      EXPECT_TRUE(what.starts_with("test.gguf: ")) << what;
      EXPECT_NE(what.find(c.message), std::string::npos) << "message: " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << "multi-line message: " << what;
    }
  }
}

// `onnxq check` reports every file the reader rejects as an error (and never crashes); files the
// reader accepts give no error except what only ggml's reader refuses (here: arrays of arrays).
TEST(GgufMalformed, CheckReportsEveryRejectAsAnError) {
  for (const Case& c : catalogue()) {
    SCOPED_TRACE(c.name);
    const Bytes bytes = c.make();
    const auto findings = check_gguf_bytes({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, "t.gguf");
    std::vector<std::string> errors;
    for (const Finding& f : findings)
      if (f.severity == Severity::Error) errors.push_back(f.code);
    if (c.accept) {
      for (const std::string& code : errors) EXPECT_EQ(code, "nested-array");
    } else {
      EXPECT_FALSE(errors.empty()) << "check found no error in a file the reader rejects";
    }
  }
}

// Every proper prefix of a valid file is rejected cleanly.
TEST(GgufMalformed, EveryTruncationIsRejected) {
  std::ifstream in(std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf", std::ios::binary);
  const Bytes zoo((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(zoo.size(), 1000u);
  const std::uint64_t data_end = [&] {
    const GgufModel model = parse_gguf(zoo);
    std::uint64_t end = 0;
    for (const auto& t : model.tensors()) end = std::max(end, t.file_offset + t.byte_size);
    return end;
  }();
  for (std::size_t n = 0; n < data_end; ++n) {
    const Bytes prefix(zoo.begin(), zoo.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(parse_gguf(prefix), Error) << "prefix of " << n << " bytes";
    const auto findings = check_gguf_bytes({reinterpret_cast<const std::byte*>(prefix.data()), prefix.size()}, "p");
    EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [](auto& f) { return f.severity == Severity::Error; }))
        << "check accepts the prefix of " << n << " bytes";
  }
  const Bytes whole(zoo.begin(), zoo.begin() + static_cast<std::ptrdiff_t>(data_end));
  EXPECT_NO_THROW(parse_gguf(whole));
}

// Single-bit flips anywhere in the header never crash the reader; errors are typed.
TEST(GgufMalformed, BitFlipsInTheHeaderNeverCrash) {
  std::ifstream in(std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf", std::ios::binary);
  const Bytes zoo((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t header = parse_gguf(zoo).primary().data_offset;
  std::size_t rejected = 0;
  for (std::size_t i = 0; i < header; ++i) {
    for (int bit : {0, 3, 7}) {
      Bytes mutated = zoo;
      mutated[i] ^= static_cast<std::uint8_t>(1u << bit);
      try {
        const GgufModel model = parse_gguf(mutated);
        for (const auto& t : model.tensors()) ASSERT_LE(t.file_offset + t.byte_size, mutated.size());
      } catch (const Error& e) {
        ++rejected;
        const auto findings =
            check_gguf_bytes({reinterpret_cast<const std::byte*>(mutated.data()), mutated.size()}, "m");
        EXPECT_TRUE(
            std::any_of(findings.begin(), findings.end(), [](auto& f) { return f.severity == Severity::Error; }))
            << "check finds no error where the reader says: " << e.what();
      }
    }
  }
  EXPECT_GT(rejected, 0u);
}

}  // namespace
}  // namespace onnxq

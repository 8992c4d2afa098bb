// Fuzz target: GGUF header, metadata and tensor infos, then every metadata value is
// walked and the first blocks of every tensor are decoded into a small buffer. The same bytes
// go through `onnxq check`'s walker, which must report an error whenever the reader rejects them.
#include <algorithm>
#include <vector>

#include "fuzz_check.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/file.hpp"

namespace {

constexpr std::uint64_t kMaxBlocks = 4;  // per tensor: enough to reach every decoder
constexpr std::uint64_t kMaxPlainElements = 64;
constexpr std::uint64_t kMaxArrayVisits = 256;  // per array, so a big array stays cheap

void walk(const onnxq::GgufValue& v, int depth) {
  FUZZ_CHECK(depth <= onnxq::kGgufMaxArrayDepth);
  switch (v.type()) {
    case onnxq::GgufType::String: (void)v.as_string().size(); break;
    case onnxq::GgufType::Array: {
      const onnxq::GgufArray a = v.as_array();
      std::uint64_t seen = 0;
      a.for_each([&](const onnxq::GgufValue& e) {
        FUZZ_CHECK(e.type() == a.element_type());
        walk(e, depth + 1);
        return ++seen < kMaxArrayVisits;
      });
      FUZZ_CHECK(seen == std::min(a.size(), kMaxArrayVisits));
      // Random access must agree with the walk for the ends.
      if (!a.empty()) {
        (void)a.at(0);
        (void)a.at(a.size() - 1);
      }
      break;
    }
    case onnxq::GgufType::Float32:
    case onnxq::GgufType::Float64: (void)v.as_f64(); break;
    case onnxq::GgufType::Bool: (void)v.as_bool(); break;
    default:
      FUZZ_CHECK(v.is_integer());
      try {
        (void)v.as_i64();
      } catch (const onnxq::Error&) {
      }  // u64 above INT64_MAX
      break;
  }
}

void decode_head(const onnxq::GgufFile& file, const onnxq::TensorInfo& t) {
  const std::span<const std::byte> bytes = file.tensor_bytes(t);
  FUZZ_CHECK(bytes.size() == t.byte_size);
  const onnxq::BlockFormat& f = *t.format;
  FUZZ_CHECK(t.byte_size % f.block_bytes == 0);
  const std::uint64_t blocks = t.byte_size / f.block_bytes;
  FUZZ_CHECK(blocks * f.block_elements == t.element_count);
  const std::uint64_t limit = f.is_block_format() ? kMaxBlocks : kMaxPlainElements;
  const std::uint64_t n = std::min(blocks, limit);
  const onnxq::DType out = onnxq::default_decode_dtype(f);
  std::vector<double> buffer(n * f.block_elements + 1);  // doubles: room for any output dtype
  onnxq::decode_blocks(f, bytes, blocks - n, n, out, buffer.data(), 1);
  if (out != onnxq::DType::Float) onnxq::decode_blocks(f, bytes, 0, n, onnxq::DType::Float, buffer.data(), 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto findings = onnxq::check_gguf_bytes(fuzz_bytes(data, size), "fuzz.gguf");
  const bool check_errors = std::any_of(findings.begin(), findings.end(),
                                        [](const onnxq::Finding& f) { return f.severity == onnxq::Severity::Error; });
  for (const onnxq::Finding& f : findings) FUZZ_CHECK(!f.offset || *f.offset <= size);
  try {
    const onnxq::GgufFile file = onnxq::GgufFile::parse(fuzz_bytes(data, size), "fuzz.gguf");
    for (const onnxq::GgufKeyValue& kv : file.metadata()) {
      FUZZ_CHECK(kv.offset < size);
      FUZZ_CHECK(file.find_metadata(kv.key) != nullptr);
      walk(kv.value, 0);
    }
    for (const onnxq::TensorInfo& t : file.tensors()) {
      FUZZ_CHECK(t.format != nullptr);
      FUZZ_CHECK(t.byte_size == 0 || t.file_offset + t.byte_size <= size);
      FUZZ_CHECK(onnxq::shape_element_count(t.onnx_shape()) == t.element_count);
      FUZZ_CHECK(file.find_tensor(t.name) != nullptr);
      decode_head(file, t);
    }
  } catch (const onnxq::Error&) {
    FUZZ_CHECK(check_errors);  // check reports at least what the reader rejects
  }
  return 0;
}

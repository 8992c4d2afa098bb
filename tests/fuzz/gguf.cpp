// Fuzz target: GGUF header, metadata and tensor infos, then every metadata value is
// walked and the first blocks of every tensor are decoded into a small buffer. The same bytes
// go through `onnxq check`, which must report an error whenever the reader rejects them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_decode.hpp"

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

// Whether two decoded elements of `t` are the same value (any NaN equals any NaN).
bool same_value(const std::byte* a, const std::byte* b, onnxq::DType t) {
  const std::size_t size = onnxq::dtype_info(t).bits / 8;
  if (std::memcmp(a, b, size) == 0) return true;
  auto nan = [t](const std::byte* p) {
    if (t == onnxq::DType::Float) {
      float v;
      std::memcpy(&v, p, 4);
      return std::isnan(v);
    }
    if (t == onnxq::DType::Double) {
      double v;
      std::memcpy(&v, p, 8);
      return std::isnan(v);
    }
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return (h & 0x7FFF) > (t == onnxq::DType::Float16 ? 0x7C00 : 0x7F80);
  };
  return (t == onnxq::DType::Float || t == onnxq::DType::Double || t == onnxq::DType::Float16 ||
          t == onnxq::DType::BFloat16) &&
         nan(a) && nan(b);
}

// The last input byte picks an output dtype and a decoder path for decode_tensor_blocks (the
// big-endian aware entry point); the result must equal the scalar path's.
void decode_head_chosen(const onnxq::GgufModel& file, const onnxq::TensorInfo& t, std::uint8_t pick) {
  static constexpr onnxq::DType kOut[] = {onnxq::DType::Float, onnxq::DType::Float16, onnxq::DType::BFloat16,
                                          onnxq::DType::Double};
  const onnxq::BlockFormat& f = *t.format;
  const onnxq::DType out = kOut[pick & 3];
  if (!onnxq::can_decode_to(f, out)) return;
  const std::vector<std::string> isas = onnxq::supported_isas();
  const std::string isa = isas[std::min<std::size_t>((pick >> 2) % 3, isas.size() - 1)];
  const std::uint64_t blocks = t.byte_size / f.block_bytes;
  const std::uint64_t n = std::min(blocks, f.is_block_format() ? kMaxBlocks : kMaxPlainElements);
  const std::size_t bytes = n * f.block_elements * (onnxq::dtype_info(out).bits / 8);
  std::vector<std::byte> got(bytes), want(bytes);
  struct RestoreIsa {
    ~RestoreIsa() { onnxq::select_isa(""); }
  } restore;
  onnxq::select_isa(isa);
  onnxq::decode_tensor_blocks(file, t, blocks - n, n, out, got.data(), 1);
  onnxq::select_isa("scalar");
  onnxq::decode_tensor_blocks(file, t, blocks - n, n, out, want.data(), 1);
  const std::size_t size = onnxq::dtype_info(out).bits / 8;
  for (std::size_t i = 0; i < bytes; i += size) FUZZ_CHECK(same_value(&got[i], &want[i], out));
}

void decode_head(const onnxq::GgufModel& file, const onnxq::TensorInfo& t) {
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
    const onnxq::GgufModel file = onnxq::GgufModel::parse(fuzz_bytes(data, size), "fuzz.gguf");
    for (const onnxq::GgufKeyValue& kv : file.metadata()) {
      FUZZ_CHECK(kv.offset < size);
      FUZZ_CHECK(file.find_metadata(kv.key) != nullptr);
      walk(kv.value, 0);
    }
    for (const onnxq::TensorInfo& t : file.tensors()) {
      FUZZ_CHECK(t.byte_size == 0 || t.file_offset + t.byte_size <= size);
      FUZZ_CHECK(onnxq::shape_element_count(t.onnx_shape()) == t.element_count);
      FUZZ_CHECK(file.find_tensor(t.name) != nullptr);
      // A type onnxq does not know: its size inferred, its bytes readable, never decoded.
      FUZZ_CHECK((t.format == nullptr) == t.size_inferred);
      if (!t.format) {
        FUZZ_CHECK(file.tensor_bytes(t).size() == t.byte_size);
        continue;
      }
      decode_head(file, t);
      decode_head_chosen(file, t, size ? data[size - 1] : 0);
    }
  } catch (const onnxq::Error&) {
    FUZZ_CHECK(check_errors);  // check reports at least what the reader rejects
  }
  return 0;
}

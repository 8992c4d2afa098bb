// Fuzz target: the operators. The fuzz bytes choose an operator, its attributes, input
// dtypes and shapes (kept small) and the input contents; a result must have exactly the
// shape and size the attributes promise, and the fast paths must equal the references.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/ops/dequantize_packed.hpp"
#include "onnxq/ops/onehot.hpp"
#include "onnxq/ops/unpack.hpp"
#include "onnxq/ops/unsqueeze.hpp"

namespace {

using onnxq::DType;
using onnxq::Shape;
using onnxq::Tensor;

// Consumes the fuzz input front to back; past the end it yields zeros.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  std::uint8_t byte() { return n_ ? (--n_, *p_++) : 0; }
  // A value in [lo, hi].
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    std::uint64_t v = 0;
    for (std::uint64_t s = span; s > 1 && n_; s >>= 8) v = (v << 8) | byte();
    return lo + static_cast<std::int64_t>(v % span);
  }
  bool flag() { return byte() & 1; }
  // `count` bytes for tensor contents: the remaining input, repeated.
  std::vector<std::byte> fill(std::size_t count) {
    std::vector<std::byte> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = n_ ? std::byte{p_[i % n_]} : std::byte{0};
    return out;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

Shape small_shape(Input& in, int max_rank, std::int64_t max_dim) {
  Shape s(static_cast<std::size_t>(in.range(0, max_rank)));
  for (auto& d : s) d = in.range(0, max_dim);
  return s;
}

std::uint64_t count_of(const Shape& s) {
  std::uint64_t n = 1;
  for (auto d : s) n *= static_cast<std::uint64_t>(d);
  return n;
}

Tensor filled(Input& in, DType dtype, const Shape& shape) {
  const auto bytes = in.fill(onnxq::dtype_storage_bytes(dtype, count_of(shape)));
  return Tensor::from_bytes(dtype, shape, bytes);
}

Tensor scalar_i64(std::int64_t v, bool rank1 = false) {
  return Tensor::from_bytes(DType::Int64, rank1 ? Shape{1} : Shape{}, std::as_bytes(std::span(&v, 1)));
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.bytes().size() == b.bytes().size() && std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin());
}

void fuzz_unpack(Input& in) {
  const DType dtype = in.flag() ? DType::UInt32 : DType::UInt8;
  Shape shape = small_shape(in, 3, 12);
  if (shape.empty() && in.flag()) shape.push_back(in.range(0, 12));
  const std::int64_t rank = static_cast<std::int64_t>(shape.size());
  onnxq::UnpackAttributes attrs;
  attrs.axis = in.range(-rank - 1, rank);
  std::int64_t radix = 0;
  switch (in.range(0, 3)) {
    case 0: attrs.bits = in.range(-1, 9); break;
    case 1:
      attrs.radix = in.range(0, 258);
      attrs.group_size = in.range(-1, 70);
      break;
    case 2:
      attrs.bits = in.range(0, 9);
      attrs.radix = in.range(1, 300);
      break;                                         // exclusive: must fail
    default: attrs.radix = in.range(1, 300); break;  // radix alone: must fail
  }
  if (attrs.bits && !attrs.radix && *attrs.bits >= 1 && *attrs.bits <= 8) radix = std::int64_t{1} << *attrs.bits;
  if (attrs.radix && attrs.group_size && !attrs.bits) radix = *attrs.radix;
  const std::int64_t count = in.range(-2, 300);
  const Tensor x = filled(in, dtype, shape);
  const Tensor count_t = scalar_i64(count, in.range(0, 7) == 0);  // sometimes rank 1: must fail
  try {
    const Tensor y = onnxq::unpack(x, count_t, attrs);
    // Only valid attributes get here: check the promise.
    FUZZ_CHECK(radix >= 2 && radix <= 256);
    FUZZ_CHECK(!attrs.group_size || *attrs.group_size >= 1);
    FUZZ_CHECK(y.dtype() == DType::UInt8);
    Shape want = shape;
    const std::int64_t axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
    FUZZ_CHECK(axis >= 0 && axis < rank);
    want[static_cast<std::size_t>(axis)] = count;
    FUZZ_CHECK(y.shape() == want);
    FUZZ_CHECK(y.bytes().size() == count_of(want));
    for (std::byte b : y.bytes()) FUZZ_CHECK(std::to_integer<std::int64_t>(b) < radix);
    const Tensor ref = onnxq::unpack_reference(x, count_t, attrs);
    FUZZ_CHECK(ref.shape() == y.shape());
    FUZZ_CHECK(same_bytes(ref, y));
  } catch (const onnxq::Error&) {
  }
  try {
    const std::int64_t largest = onnxq::unpack_largest_count(x, attrs);
    FUZZ_CHECK(largest >= 0);
  } catch (const onnxq::Error&) {
  }
}

DType pick_dtype(Input& in) {
  static constexpr DType kTypes[] = {
      DType::Float,    DType::UInt8, DType::Int8,    DType::UInt16,       DType::Int16,     DType::Int32,
      DType::Int64,    DType::Bool,  DType::Float16, DType::Double,       DType::UInt32,    DType::UInt64,
      DType::BFloat16, DType::Int4,  DType::UInt4,   DType::Float8E4M3FN, DType::Complex64, DType::Float4E2M1};
  return kTypes[in.range(0, std::size(kTypes) - 1)];
}

void fuzz_onehot(Input& in) {
  const DType index_type = pick_dtype(in);
  const Shape shape = small_shape(in, 3, 6);
  const Tensor indices = filled(in, index_type, shape);
  const std::int64_t depth_value = in.range(-2, 40);
  Tensor depth;
  switch (in.range(0, 3)) {
    case 0: depth = scalar_i64(depth_value); break;
    case 1: depth = scalar_i64(depth_value, true); break;
    case 2: {
      const float f = static_cast<float>(depth_value) + static_cast<float>(in.range(0, 3)) * 0.25f;
      depth = Tensor::from_bytes(DType::Float, {}, std::as_bytes(std::span(&f, 1)));
      break;
    }
    default: {
      // Arbitrary bits in a narrow type: the output stays small even at the type's largest value.
      static constexpr DType kNarrow[] = {DType::Int8,  DType::UInt8,      DType::Bool,        DType::Int4,
                                          DType::UInt4, DType::Float4E2M1, DType::Float8E4M3FN};
      depth = filled(in, kNarrow[in.range(0, std::size(kNarrow) - 1)], small_shape(in, 1, 2));
      break;
    }
  }
  const DType value_type = pick_dtype(in);
  const Tensor values = filled(in, value_type, in.range(0, 5) == 0 ? Shape{3} : Shape{2});
  const std::int64_t rank = static_cast<std::int64_t>(shape.size());
  const std::int64_t axis = in.range(-rank - 2, rank + 1);
  const auto version = in.flag() ? onnxq::OneHotVersion::V11 : onnxq::OneHotVersion::V9;
  try {
    const Tensor y = onnxq::onehot(indices, depth, values, axis, version);
    FUZZ_CHECK(y.dtype() == value_type);
    FUZZ_CHECK(static_cast<std::int64_t>(y.rank()) == rank + 1);
    const std::int64_t a = axis < 0 ? axis + rank + 1 : axis;
    FUZZ_CHECK(a >= 0 && a <= rank);
    Shape rest = y.shape();
    const std::int64_t d = rest[static_cast<std::size_t>(a)];
    FUZZ_CHECK(d > 0);
    rest.erase(rest.begin() + a);
    FUZZ_CHECK(rest == shape);
    if (depth.dtype() == DType::Int64) FUZZ_CHECK(d == depth_value);
    FUZZ_CHECK(y.bytes().size() == onnxq::dtype_storage_bytes(value_type, count_of(y.shape())));
  } catch (const onnxq::Error&) {
  }
}

void fuzz_unsqueeze(Input& in) {
  const DType dtype = pick_dtype(in);
  const Shape shape = small_shape(in, 4, 5);
  const Tensor data = filled(in, dtype, shape);
  std::vector<std::int64_t> axes(static_cast<std::size_t>(in.range(0, 5)));
  for (auto& a : axes) a = in.range(-9, 9);
  const auto check = [&](const Tensor& y) {
    FUZZ_CHECK(y.rank() == shape.size() + axes.size());
    FUZZ_CHECK(y.element_count() == count_of(shape));
    FUZZ_CHECK(same_bytes(y, data));
  };
  try {
    check(onnxq::unsqueeze(data, axes, static_cast<onnxq::UnsqueezeVersion>(in.range(0, 2))));
  } catch (const onnxq::Error&) {
  }
  try {
    const Tensor axes_t =
        Tensor::from_bytes(DType::Int64, {static_cast<std::int64_t>(axes.size())}, std::as_bytes(std::span(axes)));
    check(onnxq::unsqueeze(data, axes_t));
  } catch (const onnxq::Error&) {
  }
}

// Both elements are NaN of `t` (NaN sign and payload are unspecified).
bool both_nan(const std::byte* a, const std::byte* b, DType t) {
  auto nan = [t](const std::byte* p) {
    if (t == DType::Float) {
      float v;
      std::memcpy(&v, p, 4);
      return std::isnan(v);
    }
    if (t == DType::Double) {
      double v;
      std::memcpy(&v, p, 8);
      return std::isnan(v);
    }
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return (h & 0x7FFF) > (t == DType::Float16 ? 0x7C00 : 0x7F80);
  };
  return nan(a) && nan(b);
}

void fuzz_dequantize(Input& in) {
  const auto formats = onnxq::block_formats();
  const onnxq::BlockFormat& f = formats[static_cast<std::size_t>(in.range(0, formats.size() - 1))];
  // The input picks the decoder path (a fixed range, so a seed means the same on every CPU; a
  // path this CPU lacks becomes its best one) and, below, the output dtype.
  const std::vector<std::string> isas = onnxq::supported_isas();
  const std::string isa = isas[std::min<std::size_t>(static_cast<std::size_t>(in.range(0, 2)), isas.size() - 1)];
  static constexpr DType kOut[] = {DType::Float, DType::Float16, DType::BFloat16, DType::Double, DType::Int32};
  onnxq::DequantizePackedAttributes attrs;
  attrs.format = in.range(0, 15) == 0 ? std::string_view("gguf:Q4_0") : f.format_id;
  attrs.output_dtype = kOut[in.range(0, 4)];
  attrs.shape = small_shape(in, 3, 3);
  if (!attrs.shape.empty()) attrs.shape.back() *= f.block_elements;
  std::uint64_t length = count_of(attrs.shape) / f.block_elements * f.block_bytes;
  if (in.range(0, 15) == 0 && !attrs.shape.empty()) attrs.shape.back() += in.range(-1, 1);
  if (in.range(0, 7) == 0) length += static_cast<std::uint64_t>(in.range(0, 2 * f.block_bytes));
  if (in.range(0, 31) == 0) {
    attrs.shape.insert(attrs.shape.begin(), std::int64_t{1} << in.range(20, 62));  // huge, overflow or empty
    if (in.flag()) attrs.shape.insert(attrs.shape.begin(), 0);
  }
  const Shape x_shape =
      in.range(0, 15) == 0 ? Shape{1, static_cast<std::int64_t>(length)} : Shape{static_cast<std::int64_t>(length)};
  const Tensor x = filled(in, in.range(0, 15) == 0 ? DType::Int8 : DType::UInt8, x_shape);
  struct RestoreIsa {
    ~RestoreIsa() { onnxq::select_isa(""); }
  } restore;
  try {
    onnxq::select_isa(isa);
    const Tensor y = onnxq::dequantize_packed(x, attrs);
    // The same decode on the scalar path gives the same values in every output dtype.
    onnxq::select_isa("scalar");
    const Tensor z = onnxq::dequantize_packed(x, attrs);
    FUZZ_CHECK(z.bytes().size() == y.bytes().size());
    const std::size_t size = onnxq::dtype_info(attrs.output_dtype).bits / 8;
    for (std::size_t i = 0; i + size <= y.bytes().size(); i += size)
      if (std::memcmp(&y.bytes()[i], &z.bytes()[i], size) != 0 &&
          !both_nan(&y.bytes()[i], &z.bytes()[i], attrs.output_dtype)) {
        std::fprintf(stderr, "%s to %s: element %zu differs between %s and scalar\n", std::string(f.format_id).c_str(),
                     std::string(onnxq::dtype_info(attrs.output_dtype).onnx_name).c_str(), i / size, isa.c_str());
        FUZZ_CHECK(!"a SIMD path differs from the scalar path");
      }
    FUZZ_CHECK(y.dtype() == attrs.output_dtype);
    FUZZ_CHECK(y.shape() == attrs.shape);
    FUZZ_CHECK(y.bytes().size() == onnxq::dtype_storage_bytes(attrs.output_dtype, count_of(attrs.shape)));
    // The dispatched decoder must equal the scalar reference bit for bit, except that any NaN
    // equals any NaN (spec 2.5: NaN sign and payload are not specified).
    if (attrs.output_dtype == DType::Float && length > 0) {
      const onnxq::BlockDecoder* ref = onnxq::scalar_block_decoder(f.ggml_type);
      FUZZ_CHECK(ref != nullptr);
      FUZZ_CHECK(ref->block_elements == f.block_elements && ref->block_bytes == f.block_bytes);
      std::vector<float> want(count_of(attrs.shape));
      ref->decode(reinterpret_cast<const std::uint8_t*>(x.bytes().data()), length / f.block_bytes, want.data());
      for (std::size_t i = 0; i < want.size(); ++i) {
        const float got = y.at<float>(i);
        if (std::isnan(got) && std::isnan(want[i])) continue;
        if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want[i])) {
          std::fprintf(stderr, "%s element %zu of %zu: dispatched %a (0x%08x), scalar reference %a (0x%08x)\n",
                       std::string(f.format_id).c_str(), i, want.size(), static_cast<double>(got),
                       std::bit_cast<std::uint32_t>(got), static_cast<double>(want[i]),
                       std::bit_cast<std::uint32_t>(want[i]));
          FUZZ_CHECK(!"the dispatched decoder differs from the scalar reference");
        }
      }
    }
  } catch (const onnxq::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  switch (in.byte() % 4) {
    case 0: fuzz_unpack(in); break;
    case 1: fuzz_onehot(in); break;
    case 2: fuzz_unsqueeze(in); break;
    default: fuzz_dequantize(in); break;
  }
  return 0;
}

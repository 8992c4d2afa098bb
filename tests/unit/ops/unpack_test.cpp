// Unpack-29: the doc's examples, a packer written here that round-trips random codes for every
// storage type, axis and (R, G) width, the fast paths against the reference, and each invalid input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>

#include "onnxq/ops/unpack.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

using testing::int64_scalar;
using testing::same_tensor;
using testing::throws_error;
using testing::uint8_tensor;
using testing::uint8_values;

UnpackAttributes bits_attrs(std::int64_t bits, std::int64_t axis = -1) {
  UnpackAttributes a;
  a.bits = bits;
  a.axis = axis;
  return a;
}

UnpackAttributes grouped_attrs(std::int64_t radix, std::int64_t group, std::int64_t axis = -1) {
  UnpackAttributes a;
  a.radix = radix;
  a.group_size = group;
  a.axis = axis;
  return a;
}

TEST(Unpack, ConformanceCases) {
  const auto cases = testing::case_names("test_unpack_");
  ASSERT_GE(cases.size(), 9u);
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    const auto json = nlohmann::json::parse(testing::case_json(name));
    ASSERT_EQ(json["op_type"], "Unpack");
    UnpackAttributes attrs;
    const auto& a = json["attributes"];
    if (a.contains("axis")) attrs.axis = a["axis"];
    if (a.contains("bits")) attrs.bits = a["bits"].get<std::int64_t>();
    if (a.contains("radix")) attrs.radix = a["radix"].get<std::int64_t>();
    if (a.contains("group_size")) attrs.group_size = a["group_size"].get<std::int64_t>();
    const Tensor x = testing::load_case_tensor(name, "input_0.npy");
    const Tensor count = testing::load_case_tensor(name, "input_1.npy");
    const Tensor y = testing::load_case_tensor(name, "output_0.npy");
    EXPECT_TRUE(same_tensor(y, unpack(x, count, attrs)));
    EXPECT_TRUE(same_tensor(y, unpack_reference(x, count, attrs)));
  }
}

// The examples in the doc's prose, transcribed.
TEST(Unpack, DocTextExamples) {
  EXPECT_EQ(uint8_values(unpack(uint8_tensor({3}, {136, 198, 250}), int64_scalar(8), bits_attrs(3))),
            (std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(uint8_values(unpack(uint8_tensor({1}, {255}), int64_scalar(2), bits_attrs(3))),
            (std::vector<std::uint8_t>{7, 7}));
  EXPECT_EQ(uint8_values(unpack(uint8_tensor({1}, {102}), int64_scalar(5), grouped_attrs(3, 5))),
            (std::vector<std::uint8_t>{0, 1, 2, 0, 1}));
  EXPECT_EQ(uint8_values(unpack(uint8_tensor({1}, {7}), int64_scalar(2), grouped_attrs(3, 5))),
            (std::vector<std::uint8_t>{1, 2}));
  // _unpack_rows_5bit, _unpack_ternary and _unpack_uint32_axis
  const Tensor rows = unpack(uint8_tensor({2, 2}, {0x41, 0x0C, 0x1F, 0x40}), int64_scalar(3), bits_attrs(5));
  EXPECT_EQ(rows.shape(), (Shape{2, 3}));
  EXPECT_EQ(uint8_values(rows), (std::vector<std::uint8_t>{1, 2, 3, 31, 0, 16}));
  const Tensor ternary = unpack(uint8_tensor({2, 1}, {102, 242}), int64_scalar(5), grouped_attrs(3, 5));
  EXPECT_EQ(uint8_values(ternary), (std::vector<std::uint8_t>{0, 1, 2, 0, 1, 2, 2, 2, 2, 2}));
  const Tensor x32 =
      testing::typed_tensor<std::uint32_t>(DType::UInt32, {2, 2}, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF});
  const Tensor y32 = unpack(x32, int64_scalar(7), bits_attrs(5, 0));
  EXPECT_EQ(y32.shape(), (Shape{7, 2}));
  EXPECT_EQ(uint8_values(y32), std::vector<std::uint8_t>(14, 31));
  // The original bits spelling is (R, G) = (2^bits, 1).
  EXPECT_EQ(uint8_values(unpack(uint8_tensor({3}, {136, 198, 250}), int64_scalar(8), grouped_attrs(8, 1))),
            (std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// ---- an independent packer: rows of codes -> storage words, LSB first, random padding ----

struct Packed {
  Tensor words;
  std::vector<std::uint8_t> codes;  // the expected output, laid out like the output tensor
  Shape code_shape;
};

struct Mode {
  bool grouped;
  unsigned bits;        // bits mode
  std::uint64_t radix;  // grouped mode
  std::uint64_t group;
  unsigned index_bits;  // W, worked out by hand in the test table
};

// Appends n bits of v to the stream, LSB first.
void push_bits(std::vector<bool>& stream, std::uint64_t v, unsigned n) {
  for (unsigned k = 0; k < n; ++k) stream.push_back((v >> k) & 1);
}

Packed pack_random(std::mt19937_64& rng, const Mode& mode, DType storage, Shape code_shape, std::size_t axis) {
  const unsigned word_bits = storage == DType::UInt8 ? 8 : 32;
  const std::uint64_t count = static_cast<std::uint64_t>(code_shape[axis]);
  std::uint64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= static_cast<std::uint64_t>(code_shape[i]);
  for (std::size_t i = axis + 1; i < code_shape.size(); ++i) inner *= static_cast<std::uint64_t>(code_shape[i]);
  const std::uint64_t code_radix = mode.grouped ? mode.radix : (std::uint64_t{1} << mode.bits);
  std::vector<std::uint8_t> codes(outer * count * inner);
  for (auto& c : codes) c = static_cast<std::uint8_t>(rng() % code_radix);

  std::vector<std::vector<bool>> streams;
  for (std::uint64_t o = 0; o < outer; ++o)
    for (std::uint64_t j = 0; j < inner; ++j) {
      std::vector<bool> stream;
      const auto code = [&](std::uint64_t i) { return codes[(o * count + i) * inner + j]; };
      if (!mode.grouped) {
        for (std::uint64_t i = 0; i < count; ++i) push_bits(stream, code(i), mode.bits);
      } else {
        for (std::uint64_t g = 0; g * mode.group < count; ++g) {
          // Digits past count in the last group are arbitrary: the unpacker must drop them.
          std::uint64_t index = 0, place = 1;
          for (std::uint64_t d = 0; d < mode.group; ++d) {
            const std::uint64_t i = g * mode.group + d;
            const std::uint64_t digit = i < count ? code(i) : rng() % mode.radix;
            index += digit * place;
            if (d + 1 < mode.group) place *= mode.radix;
          }
          push_bits(stream, index, mode.index_bits);
        }
      }
      while (stream.size() % word_bits) stream.push_back(rng() & 1);  // padding is ignored
      streams.push_back(stream);
    }
  const std::uint64_t words_per_row = streams.empty() ? 0 : streams[0].size() / word_bits;
  Shape word_shape = code_shape;
  word_shape[axis] = static_cast<std::int64_t>(words_per_row);
  Tensor words = Tensor::zeros(storage, word_shape);
  auto* out = words.mutable_bytes().data();
  for (std::uint64_t o = 0; o < outer; ++o)
    for (std::uint64_t j = 0; j < inner; ++j)
      for (std::uint64_t b = 0; b < words_per_row; ++b) {
        std::uint32_t w = 0;
        for (unsigned k = 0; k < word_bits; ++k) w |= std::uint32_t{streams[o * inner + j][b * word_bits + k]} << k;
        const std::uint64_t at = (o * words_per_row + b) * inner + j;
        if (storage == DType::UInt8)
          out[at] = static_cast<std::byte>(w);
        else
          std::memcpy(out + at * 4, &w, 4);
      }
  return {words, codes, code_shape};
}

std::vector<Mode> all_modes() {
  std::vector<Mode> modes;
  for (unsigned b = 1; b <= 8; ++b) modes.push_back({false, b, 0, 0, 0});
  // (R, G, W) with W = the smallest integer with 2^W >= R^G, worked out by hand.
  const Mode grouped[] = {
      {true, 0, 3, 5, 8},                                                                // 243
      {true, 0, 2, 1, 1}, {true, 0, 3, 1, 2}, {true, 0, 256, 1, 8}, {true, 0, 2, 8, 8},  // 256: exactly 2^8
      {true, 0, 7, 3, 9},                                                                // 343
  };
  for (const Mode& m : grouped) modes.push_back(m);
  const Mode wide[] = {
      {true, 0, 3, 39, 62},   // 3^39 = 4052555153018976267 in (2^61, 2^62]
      {true, 0, 256, 7, 56},  // 2^56
      {true, 0, 255, 7, 56},  // 255^7 = 70110209207109375 in (2^55, 2^56]
      {true, 0, 2, 62, 62},   // 2^62
      {true, 0, 5, 27, 63},   // 5^27 = 7450580596923828125 in (2^62, 2^63)
      {true, 0, 10, 18, 60},  // 10^18 in (2^59, 2^60]
      {true, 0, 3, 20, 32},   // 3^20 = 3486784401 in (2^31, 2^32]
      {true, 0, 3, 21, 34},   // 3^21 = 10460353203 in (2^33, 2^34]
  };
  for (const Mode& m : wide) modes.push_back(m);
  return modes;
}

UnpackAttributes attrs_for(const Mode& m, std::int64_t axis) {
  return m.grouped ? grouped_attrs(static_cast<std::int64_t>(m.radix), static_cast<std::int64_t>(m.group), axis)
                   : bits_attrs(m.bits, axis);
}

TEST(Unpack, PackerRoundTripsRandomShapesAxesAndStorage) {
  std::mt19937_64 rng(20260101);
  for (const Mode& mode : all_modes()) {
    for (DType storage : {DType::UInt8, DType::UInt32}) {
      for (int trial = 0; trial < 12; ++trial) {
        const std::size_t rank = 1 + rng() % 4;
        Shape shape(rank);
        for (auto& d : shape) d = static_cast<std::int64_t>(1 + rng() % 4);
        const std::size_t axis = rng() % rank;
        shape[axis] = static_cast<std::int64_t>(rng() % 70);
        const Packed p = pack_random(rng, mode, storage, shape, axis);
        // Both spellings of the axis.
        const auto axis_arg = static_cast<std::int64_t>(trial % 2 ? axis : axis - rank);
        SCOPED_TRACE(::testing::Message() << "bits=" << mode.bits << " R=" << mode.radix << " G=" << mode.group
                                          << " storage=" << dtype_info(storage).short_name
                                          << " shape=" << shape_to_string(shape) << " axis=" << axis_arg);
        const Tensor count = int64_scalar(shape[axis]);
        const Tensor fast = unpack(p.words, count, attrs_for(mode, axis_arg));
        const Tensor ref = unpack_reference(p.words, count, attrs_for(mode, axis_arg));
        EXPECT_EQ(fast.shape(), shape);
        EXPECT_EQ(uint8_values(fast), p.codes);
        EXPECT_EQ(uint8_values(ref), p.codes);
      }
    }
  }
}

// W decides the axis length: one group needs ceil(W / word_bits) words, no more, no fewer.
TEST(Unpack, GroupIndexWidthIsExact) {
  for (const Mode& mode : all_modes()) {
    if (!mode.grouped) continue;
    for (unsigned word_bits : {8u, 32u}) {
      const DType storage = word_bits == 8 ? DType::UInt8 : DType::UInt32;
      const std::int64_t need = (mode.index_bits + word_bits - 1) / word_bits;
      const Tensor count = int64_scalar(static_cast<std::int64_t>(mode.group));
      const auto attrs = attrs_for(mode, -1);
      EXPECT_NO_THROW(unpack(Tensor::zeros(storage, {need}), count, attrs)) << mode.radix << "^" << mode.group;
      EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "needs",
                               [&] { unpack(Tensor::zeros(storage, {need + 1}), count, attrs); }));
      if (need > 1) {
        EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "needs",
                                 [&] { unpack(Tensor::zeros(storage, {need - 1}), count, attrs); }));
      }
    }
  }
}

// Groups are not word-aligned: with W = 62 the second index occupies bits 62..123, i.e. the top two
// bits of word 1, all of word 2 and the low 28 bits of word 3 of UINT32 storage.
TEST(Unpack, SixtyTwoBitIndexSpansThreeWords) {
  // Two groups of (2, 62): index 0 all ones, index 1 = 0b1010...; codes are the index bits.
  std::vector<bool> stream;
  for (int k = 0; k < 62; ++k) stream.push_back(true);
  for (int k = 0; k < 62; ++k) stream.push_back(k % 2 == 1);
  while (stream.size() % 32) stream.push_back(false);
  std::vector<std::uint32_t> words(stream.size() / 32, 0);
  for (std::size_t i = 0; i < stream.size(); ++i) words[i / 32] |= std::uint32_t{stream[i]} << (i % 32);
  ASSERT_EQ(words.size(), 4u);
  const Tensor x = testing::typed_tensor(DType::UInt32, {4}, words);
  const Tensor y = unpack(x, int64_scalar(124), grouped_attrs(2, 62));
  const auto codes = uint8_values(y);
  for (int k = 0; k < 62; ++k) EXPECT_EQ(codes[k], 1) << k;
  for (int k = 0; k < 62; ++k) EXPECT_EQ(codes[62 + k], k % 2) << k;
}

TEST(Unpack, FastPathsEqualReferenceOnRandomWords) {
  std::mt19937_64 rng(7);
  for (unsigned bits = 1; bits <= 8; ++bits) {
    for (DType storage : {DType::UInt8, DType::UInt32}) {
      for (int trial = 0; trial < 20; ++trial) {
        const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 5);
        const std::int64_t count = static_cast<std::int64_t>(rng() % 300);
        const unsigned wb = storage == DType::UInt8 ? 8 : 32;
        const std::int64_t words = (count * bits + wb - 1) / wb;
        Tensor x = Tensor::zeros(storage, {rows, words});
        for (auto& b : x.mutable_bytes()) b = static_cast<std::byte>(rng());
        const Tensor c = int64_scalar(count);
        EXPECT_TRUE(same_tensor(unpack_reference(x, c, bits_attrs(bits)), unpack(x, c, bits_attrs(bits))))
            << "bits " << bits << " count " << count;
      }
    }
  }
  for (DType storage : {DType::UInt8, DType::UInt32}) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 5);
      const std::int64_t count = static_cast<std::int64_t>(rng() % 300);
      const std::int64_t groups = (count + 4) / 5;
      const std::int64_t words = storage == DType::UInt8 ? groups : (groups + 3) / 4;
      Tensor x = Tensor::zeros(storage, {rows, words});
      for (auto& b : x.mutable_bytes()) b = static_cast<std::byte>(rng() % 243);
      const Tensor c = int64_scalar(count);
      EXPECT_TRUE(same_tensor(unpack_reference(x, c, grouped_attrs(3, 5)), unpack(x, c, grouped_attrs(3, 5))));
    }
  }
}

TEST(Unpack, ZeroSizedDimensions) {
  // _unpack_empty and _unpack_empty_rows, plus zero dims on either side of the axis.
  EXPECT_EQ(unpack(Tensor::zeros(DType::UInt8, {2, 0}), int64_scalar(0), bits_attrs(3)).shape(), (Shape{2, 0}));
  EXPECT_EQ(unpack(Tensor::zeros(DType::UInt8, {2, 0, 6}), int64_scalar(9), bits_attrs(5)).shape(), (Shape{2, 0, 9}));
  EXPECT_EQ(unpack(Tensor::zeros(DType::UInt32, {0, 2, 5}), int64_scalar(7), bits_attrs(8, 1)).shape(),
            (Shape{0, 7, 5}));
  EXPECT_EQ(unpack(Tensor::zeros(DType::UInt8, {4, 0}), int64_scalar(0), grouped_attrs(3, 5)).shape(), (Shape{4, 0}));
  // The same length rule applies when another dim is zero.
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "needs", [] {
    unpack(Tensor::zeros(DType::UInt8, {0, 5}), int64_scalar(9), bits_attrs(5));
  }));
  // A huge dim beside a zero one: nothing to do, nothing overflows.
  EXPECT_EQ(unpack(Tensor::zeros(DType::UInt8, {0, 1, std::int64_t{1} << 40, std::int64_t{1} << 40}), int64_scalar(8),
                   bits_attrs(1, 1))
                .shape(),
            (Shape{0, 8, std::int64_t{1} << 40, std::int64_t{1} << 40}));
}

TEST(Unpack, IntoReusedBuffer) {
  Tensor y = Tensor::zeros(DType::UInt8, {8});
  for (auto& b : y.mutable_bytes()) b = std::byte{0xEE};
  unpack_into(uint8_tensor({3}, {136, 198, 250}), int64_scalar(8), bits_attrs(3), y);
  EXPECT_EQ(uint8_values(y), (std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  Tensor wrong = Tensor::zeros(DType::UInt8, {7});
  EXPECT_TRUE(throws_error(ErrorKind::InvalidArgument, "UINT8 of shape [8]", [&] {
    unpack_into(uint8_tensor({3}, {136, 198, 250}), int64_scalar(8), bits_attrs(3), wrong);
  }));
}

TEST(Unpack, LargestCount) {
  EXPECT_EQ(unpack_largest_count(Tensor::zeros(DType::UInt8, {3}), bits_attrs(3)), 8);
  EXPECT_EQ(unpack_largest_count(Tensor::zeros(DType::UInt32, {2, 2}), bits_attrs(5, 0)), 12);
  EXPECT_EQ(unpack_largest_count(Tensor::zeros(DType::UInt8, {4}), grouped_attrs(3, 5)), 20);
  EXPECT_EQ(unpack_largest_count(Tensor::zeros(DType::UInt8, {16}), grouped_attrs(3, 39)), 78);
  // One byte cannot hold a 62-bit group.
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "no count fits",
                           [] { unpack_largest_count(Tensor::zeros(DType::UInt8, {1}), grouped_attrs(3, 39)); }));
}

TEST(Unpack, InvalidInputs) {
  const Tensor x = uint8_tensor({3}, {1, 2, 3});
  const Tensor c8 = int64_scalar(8);
  using K = ErrorKind;
  auto attrs = bits_attrs(3);
  attrs.radix = 3;
  attrs.group_size = 5;
  EXPECT_TRUE(throws_error(K::InvalidArgument, "mutually exclusive", [&] { unpack(x, c8, attrs); }));
  EXPECT_TRUE(throws_error(K::InvalidArgument, "either bits", [&] { unpack(x, c8, UnpackAttributes{}); }));
  UnpackAttributes only_radix;
  only_radix.radix = 3;
  EXPECT_TRUE(throws_error(K::InvalidArgument, "radix requires group_size", [&] { unpack(x, c8, only_radix); }));
  UnpackAttributes only_group;
  only_group.group_size = 5;
  EXPECT_TRUE(throws_error(K::InvalidArgument, "group_size requires radix", [&] { unpack(x, c8, only_group); }));
  for (std::int64_t b : {0, 9, -1})
    EXPECT_TRUE(throws_error(K::InvalidArgument, "bits must be in [1, 8]", [&] { unpack(x, c8, bits_attrs(b)); }));
  for (std::int64_t r : {1, 257, 0})
    EXPECT_TRUE(
        throws_error(K::InvalidArgument, "radix must be in [2, 256]", [&] { unpack(x, c8, grouped_attrs(r, 5)); }));
  for (std::int64_t g : {0, -3})
    EXPECT_TRUE(
        throws_error(K::InvalidArgument, "group_size must be positive", [&] { unpack(x, c8, grouped_attrs(3, g)); }));
  // R^G past 2^63-1: 2^63, 256^8 = 2^64, 3^40, 10^19.
  // (A pair, not a structured binding: clang 14, the sanitizer build's compiler, cannot capture one.)
  for (const std::pair<int, int>& rg :
       {std::pair{2, 63}, std::pair{256, 8}, std::pair{3, 40}, std::pair{10, 19}, std::pair{2, 1000000}})
    EXPECT_TRUE(
        throws_error(K::InvalidArgument, "exceeds 2^63-1", [&] { unpack(x, c8, grouped_attrs(rg.first, rg.second)); }));
  // Wrong axis length, both modes and both storage types.
  EXPECT_TRUE(throws_error(K::InvalidInput, "needs 2 words", [&] { unpack(x, int64_scalar(5), bits_attrs(3)); }));
  EXPECT_TRUE(
      throws_error(K::InvalidInput, "needs 4 words", [&] { unpack(x, int64_scalar(16), grouped_attrs(3, 5)); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "word_bits = 32", [&] {
    unpack(testing::typed_tensor<std::uint32_t>(DType::UInt32, {3}, {1, 2, 3}), c8, bits_attrs(3));
  }));
  // A count so large that count * bits overflows.
  EXPECT_TRUE(
      throws_error(K::InvalidInput, "more than 2^64", [&] { unpack(x, int64_scalar(INT64_MAX), bits_attrs(8)); }));
  // count: negative, non-scalar, not INT64.
  EXPECT_TRUE(throws_error(K::InvalidInput, "nonnegative", [&] { unpack(x, int64_scalar(-1), bits_attrs(3)); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "scalar", [&] {
    unpack(x, testing::typed_tensor<std::int64_t>(DType::Int64, {1}, {8}), bits_attrs(3));
  }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "INT64", [&] {
    unpack(x, testing::typed_tensor<std::int32_t>(DType::Int32, {}, {8}), bits_attrs(3));
  }));
  // Axis out of range.
  const Tensor x2 = uint8_tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  for (std::int64_t axis : {2, -3, 100})
    EXPECT_TRUE(throws_error(K::InvalidArgument, "axis " + std::to_string(axis) + " is out of range",
                             [&] { unpack(x2, c8, bits_attrs(3, axis)); }));
  // Storage dtype and rank.
  for (DType d : {DType::Int8, DType::UInt16, DType::UInt64, DType::Float, DType::Bool})
    EXPECT_TRUE(
        throws_error(K::InvalidInput, "UINT8 or UINT32", [&] { unpack(Tensor::zeros(d, {3}), c8, bits_attrs(3)); }));
  EXPECT_TRUE(
      throws_error(K::InvalidInput, "rank at least 1", [&] { unpack(uint8_tensor({}, {1}), c8, bits_attrs(3)); }));
}

TEST(Unpack, GroupIndexAtOrAboveRadixPowerIsInvalid) {
  // 243 = 3^5 is the first invalid byte; on the fast path (last axis) and the reference (axis 0).
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "index 243, not below radix^group_size = 243", [] {
    unpack(uint8_tensor({2, 2}, {0, 1, 7, 243}), int64_scalar(10), grouped_attrs(3, 5));
  }));
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "index 255", [] {
    unpack(uint8_tensor({2, 2}, {0, 1, 7, 255}), int64_scalar(10), grouped_attrs(3, 5, 0));
  }));
  // Even in the last group, whose unused digits are otherwise ignored.
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "group 1 of row 0", [] {
    unpack(uint8_tensor({2}, {5, 250}), int64_scalar(6), grouped_attrs(3, 5));
  }));
  // A 62-bit index of (3, 39): all ones is 2^62 - 1 >= 3^39.
  Tensor x = Tensor::zeros(DType::UInt8, {8});
  for (auto& b : x.mutable_bytes()) b = std::byte{0xFF};
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "4052555153018976267",
                           [&] { unpack(x, int64_scalar(39), grouped_attrs(3, 39)); }));
  // 3^39 - 1 itself is valid: every digit is 2.
  const std::uint64_t top = 4052555153018976266ull;
  std::vector<std::uint8_t> bytes(8);
  for (int k = 0; k < 8; ++k) bytes[k] = static_cast<std::uint8_t>(top >> (8 * k));
  EXPECT_EQ(uint8_values(unpack(uint8_tensor({8}, bytes), int64_scalar(39), grouped_attrs(3, 39))),
            std::vector<std::uint8_t>(39, 2));
}

}  // namespace
}  // namespace onnxq

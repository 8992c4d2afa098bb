// The .npy reader on hand-built files: every descr in both byte orders, versions 1-3, 0-d and empty
// arrays, unicode strings, zero-copy views, and a catalogue of malformed headers with their errors.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "onnxq/npy/reader.hpp"
#include "onnxq/npy/writer.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

using testing::throws_error;
using Bytes = std::vector<std::byte>;

// A .npy file: magic, version, header length (2 or 4 bytes), dict padded to 64 with '\n', data.
Bytes build_npy(int major, const std::string& dict, const std::string& data, bool pad = true) {
  const std::size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  if (pad) {
    while ((preamble + header.size() + 1) % 64) header += ' ';
    header += '\n';
  }
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  out += header + data;
  Bytes b(out.size());
  std::memcpy(b.data(), out.data(), out.size());
  return b;
}

std::string dict_for(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

template <class T>
std::string le_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
std::string be_bytes(const std::vector<T>& v) {
  std::string s;
  for (const T& x : v) {
    std::string item(reinterpret_cast<const char*>(&x), sizeof x);
    std::reverse(item.begin(), item.end());
    s += item;
  }
  return s;
}

template <class T>
void expect_roundtrip(const std::string& kind, DType dtype, const std::vector<T>& values) {
  const std::string size = std::to_string(sizeof(T));
  for (const char order : {'<', '>'}) {
    const std::string descr = (sizeof(T) == 1 ? std::string("|") : std::string(1, order)) + kind + size;
    SCOPED_TRACE(descr);
    const std::string data = order == '<' ? le_bytes(values) : be_bytes(values);
    std::string shape = "(";  // built in steps: GCC 12 misreads "(" + std::string&& (-Wrestrict)
    shape += std::to_string(values.size());
    shape += ",)";
    const Tensor t = read_npy(build_npy(1, dict_for(descr, shape), data));
    ASSERT_EQ(t.dtype(), dtype);
    ASSERT_EQ(t.shape(), (Shape{static_cast<std::int64_t>(values.size())}));
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(std::memcmp(&values[i], t.bytes().data() + i * sizeof(T), sizeof(T)), 0);
  }
}

TEST(NpyReader, EveryDescrInBothByteOrders) {
  expect_roundtrip<std::uint8_t>("u", DType::UInt8, {0, 1, 200, 255});
  expect_roundtrip<std::int8_t>("i", DType::Int8, {-128, -1, 0, 127});
  expect_roundtrip<std::uint16_t>("u", DType::UInt16, {1, 0x1234, 0xFFFF});
  expect_roundtrip<std::uint32_t>("u", DType::UInt32, {1, 0x12345678, 0xFFFFFFFF});
  expect_roundtrip<std::uint64_t>("u", DType::UInt64, {1, 0x0123456789ABCDEFull});
  expect_roundtrip<std::int16_t>("i", DType::Int16, {-2, 0x1234});
  expect_roundtrip<std::int32_t>("i", DType::Int32, {-2, 0x12345678});
  expect_roundtrip<std::int64_t>("i", DType::Int64, {-2, 0x0123456789ABCDEFll});
  expect_roundtrip<std::uint16_t>("f", DType::Float16, {0x3C00, 0xC000, 0x7E00});
  expect_roundtrip<float>("f", DType::Float, {1.5f, -2.25f, 1e-40f});
  expect_roundtrip<double>("f", DType::Double, {1.5, -2.25e300});
}

TEST(NpyReader, ComplexSwapsEachHalf) {
  const std::vector<float> c64{1.0f, -2.0f, 3.5f, 0.25f};  // two complex64 values
  for (const char order : {'<', '>'}) {
    const std::string data = order == '<' ? le_bytes(c64) : be_bytes(c64);
    const Tensor t = read_npy(build_npy(1, dict_for(std::string(1, order) + "c8", "(2,)"), data));
    ASSERT_EQ(t.dtype(), DType::Complex64);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(t.at<float>(i), c64[i]);
  }
  const std::vector<double> c128{1.0, -2.0};
  const Tensor t = read_npy(build_npy(1, dict_for(">c16", "(1,)"), be_bytes(c128)));
  ASSERT_EQ(t.dtype(), DType::Complex128);
  EXPECT_EQ(t.at<double>(0), 1.0);
  EXPECT_EQ(t.at<double>(1), -2.0);
}

TEST(NpyReader, BoolIsNormalisedToZeroOrOne) {
  const Tensor t = read_npy(build_npy(1, dict_for("|b1", "(3,)"), std::string("\x00\x01\x02", 3)));
  ASSERT_EQ(t.dtype(), DType::Bool);
  EXPECT_EQ(testing::uint8_values(t), (std::vector<std::uint8_t>{0, 1, 1}));
}

TEST(NpyReader, VersionsTwoAndThree) {
  for (int major : {2, 3}) {
    const Tensor t = read_npy(build_npy(major, dict_for("<i4", "(2, 2)"), le_bytes<std::int32_t>({1, 2, 3, 4})));
    EXPECT_EQ(t.shape(), (Shape{2, 2}));
    EXPECT_EQ(t.at<std::int32_t>(3), 4);
  }
}

TEST(NpyReader, ZeroDimensionalAndEmptyArrays) {
  const Tensor scalar = read_npy(build_npy(1, dict_for("<f8", "()"), le_bytes<double>({2.5})));
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.at<double>(0), 2.5);
  EXPECT_EQ(read_npy(build_npy(1, dict_for("<f4", "(0,)"), "")).shape(), (Shape{0}));
  EXPECT_EQ(read_npy(build_npy(1, dict_for("|u1", "(2, 0, 3)"), "")).shape(), (Shape{2, 0, 3}));
  EXPECT_EQ(read_npy(build_npy(1, dict_for("<U3", "(0,)"), "")).shape(), (Shape{0}));
}

TEST(NpyReader, UnicodeArraysBecomeUtf8Strings) {
  // U+00E9 and U+1F600 (outside the BMP); "ab" is padded with NULs to 3 code units.
  const std::vector<std::uint32_t> units{'a', 'b', 0, 0xE9, 'x', 0x1F600};
  for (const char order : {'<', '>'}) {
    const std::string data = order == '<' ? le_bytes(units) : be_bytes(units);
    const Tensor t = read_npy(build_npy(3, dict_for(std::string(1, order) + "U3", "(2,)"), data));
    ASSERT_EQ(t.dtype(), DType::String);
    EXPECT_EQ(t.strings(), (std::vector<std::string>{"ab", "\xC3\xA9x\xF0\x9F\x98\x80"}));
  }
  // '<U0' items take no bytes and are empty strings.
  EXPECT_EQ(read_npy(build_npy(1, dict_for("<U0", "(2,)"), "")).strings(), (std::vector<std::string>{"", ""}));
}

TEST(NpyReader, HeaderSpellings) {
  // Double quotes, no trailing comma, other key order, no padding.
  const auto t = read_npy(build_npy(1, "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i2\"}\n",
                                    le_bytes<std::int16_t>({7, -7}), false));
  EXPECT_EQ(t.at<std::int16_t>(1), -7);
  EXPECT_EQ(read_npy(build_npy(1, dict_for("<i2", "(1, 2,)"), le_bytes<std::int16_t>({1, 2}))).shape(), (Shape{1, 2}));
}

TEST(NpyReader, ViewsAreZeroCopyUnlessConverted) {
  auto file = std::make_shared<Bytes>(build_npy(1, dict_for("<u4", "(2,)"), le_bytes<std::uint32_t>({5, 6})));
  const Tensor v = read_npy(*file, file);
  const std::size_t offset = parse_npy_header(*file).data_offset;
  EXPECT_EQ(offset % 64, 0u);
  EXPECT_EQ(v.bytes().data(), file->data() + offset);
  auto swapped = std::make_shared<Bytes>(build_npy(1, dict_for(">u4", "(2,)"), be_bytes<std::uint32_t>({5, 6})));
  const Tensor c = read_npy(*swapped, swapped);
  EXPECT_NE(c.bytes().data(), swapped->data() + offset);
  EXPECT_EQ(c.at<std::uint32_t>(1), 6u);
}

TEST(NpyReader, WriterRoundTrip) {
  const Tensor s = Tensor::from_strings({2, 2}, {"", "ab", "\xC3\xA9", "\xF0\x9F\x98\x80!"});
  const Tensor back = read_npy(encode_npy_tensor(s));
  EXPECT_EQ(back.shape(), s.shape());
  EXPECT_EQ(back.strings(), s.strings());
  const std::string header = npy_tensor_header(s);
  EXPECT_NE(header.find("'descr': '<U2'"), std::string::npos) << header;
  EXPECT_EQ(header.size() % 64, 0u);
  const Tensor f = testing::typed_tensor<float>(DType::Float, {}, {3.25f});
  EXPECT_TRUE(testing::same_tensor(f, read_npy(encode_npy_tensor(f))));
  EXPECT_TRUE(
      throws_error(ErrorKind::InvalidInput, "UTF-8", [] { encode_npy_tensor(Tensor::from_strings({1}, {"\xFF"})); }));
}

// The catalogue of malformed inputs: each with the error kind and a fragment of its message.
struct BadCase {
  const char* name;
  Bytes file;
  ErrorKind kind;
  const char* fragment;
};

Bytes truncate(Bytes b, std::size_t n) {
  b.resize(n);
  return b;
}

Bytes with_byte(Bytes b, std::size_t at, unsigned char v) {
  b[at] = static_cast<std::byte>(v);
  return b;
}

TEST(NpyReader, MalformedCatalogue) {
  using K = ErrorKind;
  const Bytes good = build_npy(1, dict_for("<i4", "(2,)"), le_bytes<std::int32_t>({1, 2}));
  Bytes huge_len = good;
  huge_len[8] = std::byte{0xFF};
  huge_len[9] = std::byte{0xFF};
  Bytes v2_huge = build_npy(2, dict_for("<i4", "(2,)"), le_bytes<std::int32_t>({1, 2}));
  v2_huge[8] = v2_huge[9] = v2_huge[10] = std::byte{0xFF};
  v2_huge[11] = std::byte{0x7F};
  const BadCase cases[] = {
      {"empty", {}, K::InvalidInput, "magic"},
      {"bad magic", with_byte(good, 1, 'X'), K::InvalidInput, "magic"},
      {"version 4", with_byte(good, 6, 4), K::Unsupported, "version 4.0"},
      {"version 0", with_byte(good, 6, 0), K::Unsupported, "version 0.0"},
      {"minor 1", with_byte(good, 7, 1), K::Unsupported, "version 1.1"},
      {"truncated preamble", truncate(good, 9), K::InvalidInput, "magic"},
      {"header past end", huge_len, K::InvalidInput, "runs past the end"},
      {"header over the bound", v2_huge, K::InvalidInput, "exceeds the limit"},
      {"data short", truncate(good, good.size() - 1), K::InvalidInput, "needs 8 data bytes, found 7"},
      {"data long", build_npy(1, dict_for("<i4", "(2,)"), std::string(9, 'x')), K::InvalidInput, "found 9"},
      {"fortran", build_npy(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }", std::string(8, 'x')),
       K::Unsupported, "Fortran"},
      {"object", build_npy(1, dict_for("|O", "(2,)"), std::string(16, 'x')), K::Unsupported, "object"},
      {"structured", build_npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", ""),
       K::Unsupported, "structured"},
      {"void", build_npy(1, dict_for("|V8", "(1,)"), std::string(8, 'x')), K::Unsupported, "structured"},
      {"bytes", build_npy(1, dict_for("|S4", "(1,)"), std::string(4, 'x')), K::Unsupported, "not a supported dtype"},
      {"datetime", build_npy(1, dict_for("<M8", "(1,)"), std::string(8, 'x')), K::Unsupported, "not a supported"},
      {"f3", build_npy(1, dict_for("<f3", "(1,)"), std::string(3, 'x')), K::Unsupported, "not a supported"},
      {"no byte order for u2", build_npy(1, dict_for("|u2", "(1,)"), std::string(2, 'x')), K::InvalidInput,
       "no byte order"},
      {"no order char", build_npy(1, dict_for("f4", "(1,)"), std::string(4, 'x')), K::InvalidInput, "byte-order"},
      {"no size", build_npy(1, dict_for("<f", "(1,)"), std::string(4, 'x')), K::InvalidInput, "item size"},
      {"missing key", build_npy(1, "{'descr': '<i4', 'shape': (2,), }", std::string(8, 'x')), K::InvalidInput,
       "needs the keys"},
      {"extra key", build_npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}", ""),
       K::InvalidInput, "unexpected key 'x'"},
      {"duplicate key", build_npy(1, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", ""),
       K::InvalidInput, "appears twice"},
      {"not a dict", build_npy(1, "['descr']", ""), K::InvalidInput, "expected '{'"},
      {"unterminated", build_npy(1, "{'descr': '<i4", ""), K::InvalidInput, "unsupported character"},
      {"bool spelled wrong", build_npy(1, "{'descr': '<i4', 'fortran_order': false, 'shape': (2,)}", ""),
       K::InvalidInput, "True or False"},
      {"int shape", build_npy(1, dict_for("<i4", "(2)"), std::string(8, 'x')), K::InvalidInput, "trailing comma"},
      {"list shape", build_npy(1, dict_for("<i4", "[2]"), std::string(8, 'x')), K::InvalidInput, "expected '('"},
      {"negative dim", build_npy(1, dict_for("<i4", "(-2,)"), std::string(8, 'x')), K::InvalidInput,
       "non-negative integer"},
      {"dim past int64", build_npy(1, dict_for("<i4", "(9223372036854775808,)"), ""), K::InvalidInput,
       "exceeds 2^63-1"},
      {"element count overflow", build_npy(1, dict_for("<i4", "(4294967296, 4294967296)"), ""), K::InvalidInput,
       "overflows"},
      {"byte count overflow", build_npy(1, dict_for("<c16", "(4611686018427387904,)"), ""), K::InvalidInput,
       "more than 2^64"},
      {"python long", build_npy(1, dict_for("<i4", "(2L,)"), std::string(8, 'x')), K::InvalidInput, "expected ','"},
      {"text after dict", build_npy(1, dict_for("<i4", "(2,)") + " x", std::string(8, 'x')), K::InvalidInput,
       "after the dict"},
      {"non-ASCII header", build_npy(3, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), '\xC3\xA9': 1}", ""),
       K::InvalidInput, "non-ASCII"},
      {"NUL in header", build_npy(1, std::string("{'descr': '<i4'\0", 16), ""), K::InvalidInput, "non-ASCII"},
      {"surrogate code point", build_npy(1, dict_for("<U1", "(1,)"), le_bytes<std::uint32_t>({0xD800})),
       K::InvalidInput, "invalid code point"},
      {"code point past U+10FFFF", build_npy(1, dict_for("<U1", "(1,)"), le_bytes<std::uint32_t>({0x110000})),
       K::InvalidInput, "invalid code point"},
  };
  for (const BadCase& c : cases)
    EXPECT_TRUE(throws_error(c.kind, c.fragment, [&] { read_npy(c.file, "t.npy"); })) << c.name;
  // The source name appears in the message.
  EXPECT_TRUE(throws_error(K::InvalidInput, "my.npy: ", [] { read_npy(Bytes{}, "my.npy"); }));
}

TEST(NpyReader, Stream) {
  const Bytes file = build_npy(1, dict_for("<i8", "(3,)"), le_bytes<std::int64_t>({-1, 0, 1}));
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::fwrite(file.data(), 1, file.size(), f);
  std::rewind(f);
  const Tensor t = read_npy_stream(fileno(f));
  std::fclose(f);
  EXPECT_EQ(t.shape(), (Shape{3}));
  EXPECT_EQ(t.at<std::int64_t>(0), -1);
}

TEST(NpyReader, FileErrorsAreIo) {
  EXPECT_TRUE(throws_error(ErrorKind::Io, "/nonexistent/x.npy", [] { read_npy_file("/nonexistent/x.npy"); }));
}

TEST(NpyReader, MagicTellsAnArrayFileFromRawValues) {
  const std::string npy = npy_bytes(Tensor::zeros(DType::Float, {2}));
  EXPECT_TRUE(has_npy_magic(std::as_bytes(std::span(npy))));
  EXPECT_FALSE(has_npy_magic(std::as_bytes(std::span(npy).first(5))));  // too short for the magic
  const std::string raw = "\x93NUMPx";
  EXPECT_FALSE(has_npy_magic(std::as_bytes(std::span(raw))));
  EXPECT_FALSE(has_npy_magic({}));
}

}  // namespace
}  // namespace onnxq

// Text to elements of a dtype: exact integers, floats rounded to the dtype, bools, strings; byte
// sizes in decimal and binary units; shapes; one-line errors naming the text.
#include "onnxq/core/value_text.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

template <class T>
std::vector<T> elements(const Tensor& t) {
  std::vector<T> out(t.bytes().size() / sizeof(T));
  std::memcpy(out.data(), t.bytes().data(), t.bytes().size());
  return out;
}

std::string error_of(DType dtype, const std::vector<std::string>& texts) {
  try {
    tensor_from_text(dtype, texts);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(ValueText, IntegersExactFloatsRoundedBoolsAndStrings) {
  EXPECT_EQ(elements<std::int8_t>(tensor_from_text(DType::Int8, {"-128", "127"})),
            (std::vector<std::int8_t>{-128, 127}));
  EXPECT_EQ(elements<std::uint64_t>(tensor_from_text(DType::UInt64, {"18446744073709551615"})),
            (std::vector<std::uint64_t>{~0ull}));
  EXPECT_EQ(elements<float>(tensor_from_text(DType::Float, {"0.1", "-inf"})),
            (std::vector<float>{0.1f, -std::numeric_limits<float>::infinity()}));
  // 1 + 2^-11 is halfway between two binary16 values: to nearest even, 1.0 (0x3C00).
  EXPECT_EQ(elements<std::uint16_t>(tensor_from_text(DType::Float16, {"1.00048828125", "65504"})),
            (std::vector<std::uint16_t>{0x3C00, 0x7BFF}));
  EXPECT_EQ(elements<std::uint8_t>(tensor_from_text(DType::Bool, {"true", "0", "True"})),
            (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(tensor_from_text(DType::String, {"a", ""}).shape(), (Shape{2}));
}

TEST(ValueText, TextThatIsNotAValueIsNamed) {
  EXPECT_EQ(error_of(DType::UInt8, {"1", "256"}), "'256' is not a u8 value");
  EXPECT_EQ(error_of(DType::Int32, {"1.5"}), "'1.5' is not a i32 value");
  EXPECT_EQ(error_of(DType::Float, {"x"}), "'x' is not a number");
  EXPECT_EQ(error_of(DType::Float, {""}), "'' is not a number");
  EXPECT_EQ(error_of(DType::Bool, {"yes"}), "'yes' is not a bool (0, 1, true, false)");
}

// Sizes as split --max-shard-size and export --max-shard-size take them.
TEST(ValueText, ByteSizes) {
  EXPECT_EQ(parse_byte_size("123"), 123u);
  EXPECT_EQ(parse_byte_size("5GB"), 5000000000u);
  EXPECT_EQ(parse_byte_size("5g"), 5000000000u);
  EXPECT_EQ(parse_byte_size("500 MB"), 500000000u);
  EXPECT_EQ(parse_byte_size("2GiB"), 2147483648u);
  EXPECT_EQ(parse_byte_size("1kib"), 1024u);
  EXPECT_EQ(parse_byte_size("3TiB"), 3298534883328u);
  EXPECT_EQ(parse_byte_size("1.5K"), 1500u);
  EXPECT_EQ(parse_byte_size("7B"), 7u);
  EXPECT_EQ(parse_byte_size("2.9"), 2u);  // whole bytes, rounded down
  for (const char* bad : {"", "0", "0.5", "-1GB", "5XB", "GB", "1e30", "nan", "inf"}) {
    try {
      parse_byte_size(bad);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(std::string(e.what()),
                "'" + std::string(bad) + "' is not a size; expected e.g. 5GB, 500MB, 2GiB or a byte count");
    }
  }
}

// Byte counts for people: progress and logs with one decimal up to TiB, estimate's tables with two
// up to PiB.
TEST(ValueText, BinaryUnits) {
  EXPECT_EQ(binary_units_text(0, 1, 4), "0 B");
  EXPECT_EQ(binary_units_text(1023, 2, 5), "1023 B");
  EXPECT_EQ(binary_units_text(1024, 1, 4), "1.0 KiB");
  EXPECT_EQ(binary_units_text(1536, 2, 5), "1.50 KiB");
  EXPECT_EQ(binary_units_text(20275.0, 1, 4), "19.8 KiB");
  EXPECT_EQ(binary_units_text(3.0 * (1ull << 30), 2, 5), "3.00 GiB");
  EXPECT_EQ(binary_units_text(2048.0 * (1ull << 40), 1, 4), "2048.0 TiB");  // the largest unit asked for
  EXPECT_EQ(binary_units_text(2048.0 * (1ull << 40), 2, 5), "2.00 PiB");
}

// Shapes as dequant --shape and quantize --shape take them.
TEST(ValueText, Shapes) {
  EXPECT_EQ(shape_from_text("2,32"), Shape({2, 32}));
  EXPECT_EQ(shape_from_text("[2, 32, 1]"), Shape({2, 32, 1}));
  EXPECT_EQ(shape_from_text("7"), Shape({7}));
  EXPECT_EQ(shape_from_text(""), Shape{});
  EXPECT_EQ(shape_from_text("[]"), Shape{});
  EXPECT_EQ(shape_from_text("-1,4"), Shape({-1, 4}));  // the caller checks the sizes
  auto refused = [](const std::string& text, const std::string& message) {
    try {
      shape_from_text(text);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  refused("2,x", "must be comma-separated sizes such as 2,32, got '2,x'");
  refused("2,,3", "must be comma-separated sizes such as 2,32, got '2,,3'");
  refused("2,", "must be comma-separated sizes such as 2,32, got '2,'");
  refused("1-2", "must be comma-separated sizes such as 2,32, got '1-2'");
  refused("99999999999999999999", "size '99999999999999999999' is out of range");
}

}  // namespace
}  // namespace onnxq

// Regression tests for what fuzzing and the hardening review found; the minimized inputs live in
// tests/regression/<fuzz target>/ and also run through the fuzz targets' replay tests.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/npy/reader.hpp"

namespace onnxq {
namespace {

std::vector<std::byte> regression_file(const std::string& relative) {
  const std::string path = std::string(ONNXQ_TESTDATA_DIR) + "/../tests/regression/" + relative;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

ErrorKind error_kind_of(const std::vector<std::byte>& file) {
  try {
    (void)read_npy(file, "regression.npy");
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "read_npy accepted the file";
  return ErrorKind::Io;
}

// A 128-byte '<U0' .npy passed the data-length check at any element count and then became 10^8 or
// 10^12 empty strings in memory (3 GB, or out of memory): zero-width items are now bounded by the
// input size.
TEST(Hardening, NpyZeroWidthUnicodeCannotDemandUnboundedMemory) {
  EXPECT_EQ(error_kind_of(regression_file("npy/u0_huge_count.npy")), ErrorKind::InvalidInput);
  EXPECT_EQ(error_kind_of(regression_file("npy/u0_1e8_count.npy")), ErrorKind::InvalidInput);
}

TEST(Hardening, NpyZeroWidthUnicodeWithFewElementsStillReads) {
  std::vector<std::byte> file = regression_file("npy/u0_huge_count.npy");
  // Same header with shape (3,): three empty strings are fine.
  std::string text(reinterpret_cast<const char*>(file.data()), file.size());
  const auto at = text.find("(1000000000000,)");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 16, "(3,)            ");
  std::memcpy(file.data(), text.data(), text.size());
  const Tensor t = read_npy(file, "u0.npy");
  ASSERT_EQ(t.strings().size(), 3u);
  EXPECT_EQ(t.strings()[0], "");
}

}  // namespace
}  // namespace onnxq

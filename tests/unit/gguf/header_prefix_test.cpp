// A remote header is parsed from growing prefixes of the file: every prefix shorter than the
// header must ask for more bytes (never report the file as invalid), and the parse of any
// prefix that holds the whole header must equal the parse of the whole file.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "gguf/parser.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

std::vector<std::byte> read_zoo() {
  std::ifstream in(std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf", std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

TEST(HeaderPrefix, ShortPrefixesAskForMoreAndLongOnesParseAlike) {
  const std::vector<std::byte> file = read_zoo();
  ASSERT_GT(file.size(), 1000u);
  const GgufFile whole = GgufParser::parse(file, "zoo.gguf", file.size());
  std::size_t needed = 0;  // the shortest prefix that parses
  for (std::size_t n = 0; n <= whole.data_offset; ++n) {
    const std::span<const std::byte> prefix(file.data(), n);
    try {
      const GgufFile part = GgufParser::parse(prefix, "zoo.gguf", file.size());
      if (!needed) needed = n;
      ASSERT_EQ(part.metadata.size(), whole.metadata.size()) << n;
      ASSERT_EQ(part.tensors.size(), whole.tensors.size()) << n;
      for (std::size_t i = 0; i < part.tensors.size(); ++i) {
        EXPECT_EQ(part.tensors[i].name, whole.tensors[i].name);
        EXPECT_EQ(part.tensors[i].file_offset, whole.tensors[i].file_offset);
      }
      EXPECT_EQ(part.size, file.size());
    } catch (const gguf_detail::NeedMoreBytes& more) {
      ASSERT_EQ(needed, 0u) << "prefix " << n << " asked for more after a shorter one parsed";
      ASSERT_GT(more.end, n) << "a request for more must reach past the prefix";
      ASSERT_LE(more.end, whole.data_offset);
    } catch (const Error& e) {
      FAIL() << "prefix of " << n << " bytes reported as invalid: " << e.what();
    }
  }
  EXPECT_GT(needed, 0u);
}

TEST(HeaderPrefix, AnInvalidHeaderIsInvalidWithoutReadingFurther) {
  std::vector<std::byte> file = read_zoo();
  file[0] = std::byte{'X'};  // bad magic: known from the first 4 bytes
  EXPECT_THROW(GgufParser::parse(std::span(file).first(16), "bad.gguf", file.size()), Error);
}

}  // namespace
}  // namespace onnxq

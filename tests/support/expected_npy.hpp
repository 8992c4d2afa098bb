// A tiny .npy loader for test expectations (test-only, independent of the library's
// reader): little-endian C-order arrays of one numeric descr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace onnxq::testing {

struct ExpectedArray {
  std::string descr;  // "<f4", "|i1", ...
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;
  std::size_t count() const;
  std::vector<std::uint32_t> f32_bits() const;  // requires descr "<f4"
};

// Reads a file into bytes; throws std::runtime_error when it cannot.
std::vector<std::byte> read_file_bytes(const std::string& path);
ExpectedArray load_expected_npy(const std::string& path);
// ONNXQ_TESTDATA_DIR + "/" + relative
std::string testdata_path(const std::string& relative);

}  // namespace onnxq::testing

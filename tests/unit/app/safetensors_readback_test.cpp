// Reads what `onnxq export` wrote with a reader of its own (nlohmann_json for the header)
// and compares every float32 tensor with ggml's expected array, bit for bit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "expected_npy.hpp"

namespace onnxq::testing {
namespace {

TEST(SafetensorsReadback, ExportOfTheZooMatchesGgml) {
  const auto dir = std::filesystem::temp_directory_path() / ("onnxq_st_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "zoo.safetensors").string();
  const std::string command =
      std::string("'") + ONNXQ_CLI_PATH + "' -q export '" + testdata_path("zoo.gguf") + "' -o '" + out + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::vector<std::byte> file = read_file_bytes(out);
  std::filesystem::remove_all(dir);

  ASSERT_GE(file.size(), 8u);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::to_integer<std::uint64_t>(file[i]) << (8 * i);
  ASSERT_EQ((8 + n) % 8, 0u);
  ASSERT_LE(8 + n, file.size());
  const auto header = nlohmann::ordered_json::parse(reinterpret_cast<const char*>(file.data()) + 8,
                                                    reinterpret_cast<const char*>(file.data()) + 8 + n);
  const std::byte* data = file.data() + 8 + n;
  const std::uint64_t data_size = file.size() - 8 - n;
  ASSERT_TRUE(header.contains("__metadata__"));
  EXPECT_EQ(header["__metadata__"]["general.name"], "onnxq test zoo A");

  std::uint64_t previous_end = 0;
  int compared = 0;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::uint64_t begin = entry["data_offsets"][0], end = entry["data_offsets"][1];
    EXPECT_EQ(begin, previous_end) << name;
    previous_end = end;
    ASSERT_LE(end, data_size) << name;
    if (entry["dtype"] != "F32") continue;
    const ExpectedArray want = load_expected_npy(testdata_path("gguf/expected/" + name + ".f32.npy"));
    std::vector<std::int64_t> shape = entry["shape"];
    EXPECT_EQ(shape, want.shape) << name;
    ASSERT_EQ(end - begin, want.data.size()) << name;
    EXPECT_EQ(std::memcmp(data + begin, want.data.data(), want.data.size()), 0) << name;
    ++compared;
  }
  EXPECT_EQ(previous_end, data_size);
  EXPECT_GE(compared, 28);  // 27 block formats + f32 (+ the 3-D and 1-D extras)
}

}  // namespace
}  // namespace onnxq::testing

// TensorReader runs the mapping guard for its callers: a mapped file cut while its tensor is read
// is an Error(Io) naming the file, not a SIGBUS and not zeros passed off as data. Run in a child
// process (a death test), since a file that changed is remembered for the rest of the process.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "onnxq/core/error.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/io/mapping_guard.hpp"

namespace onnxq {
namespace {

const std::string kZooToCut = std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf";

// Exit 3 for an Error(Io) (its message on stderr), 1 for another error, 0 when the read passed.
[[noreturn]] void read_largest_tensor_after_cutting(const std::string& path) {
  install_mapping_fault_guard();
  const GgufModel model = GgufModel::open(path);
  const TensorInfo* largest = &model.tensors().front();
  for (const TensorInfo& t : model.tensors())
    if (t.byte_size > largest->byte_size) largest = &t;
  std::filesystem::resize_file(path, 0);
  const TensorReader reader(model, *largest);
  std::vector<std::byte> scratch;
  try {
    unsigned sum = 0;
    reader.read_blocks(0, reader.block_count(), scratch, [&](std::span<const std::byte> bytes) {
      for (std::byte b : bytes) sum += std::to_integer<unsigned>(b);
    });
    std::fprintf(stderr, "read %u\n", sum);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::_Exit(e.kind() == ErrorKind::Io ? 3 : 1);
  }
  std::_Exit(0);
}

TEST(TensorReaderGuard, AMappedFileCutWhileReadIsAnIoErrorNamingIt) {
  const auto path = std::filesystem::temp_directory_path() / ("onnxq_cut_" + std::to_string(::getpid()) + ".gguf");
  std::filesystem::copy_file(kZooToCut, path, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EXIT(read_largest_tensor_after_cutting(path.string()), ::testing::ExitedWithCode(3),
              "onnxq_cut_.*\\.gguf changed size while it was being read");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace onnxq

// ChunkBuffers (lib/src/core/chunk_buffers.hpp): the buffers are apart, each as long as asked for,
// and their pages are in memory once made, so that the reads into them take no page fault.
#include "core/chunk_buffers.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace onnxq {
namespace {

TEST(ChunkBuffers, EachBufferIsItsOwnAndAsLongAsAskedFor) {
  const std::size_t bytes = (512 << 10) + 8;  // not a multiple of a page
  const ChunkBuffers buffers(3, bytes);
  ASSERT_EQ(buffers.count(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(buffers[i].size(), bytes);
    std::fill(buffers[i].begin(), buffers[i].end(), static_cast<std::byte>(i + 1));
  }
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(buffers[i].front(), static_cast<std::byte>(i + 1)) << i;
    EXPECT_EQ(buffers[i].back(), static_cast<std::byte>(i + 1)) << i;
  }
  // Huge pages can back them only from a 2 MiB boundary on.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffers[0].data()) % (2 << 20), 0u);
}

TEST(ChunkBuffers, ThePagesAreInMemoryBeforeTheFirstWrite) {
  const ChunkBuffers buffers(2, 512 << 10);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t length = 2 * (512 << 10);
  std::vector<unsigned char> resident((length + page - 1) / page);
  ASSERT_EQ(::mincore(buffers[0].data(), length, resident.data()), 0);
  std::size_t absent = 0;
  for (unsigned char r : resident) absent += (r & 1) ? 0 : 1;
  EXPECT_EQ(absent, 0u) << "of " << resident.size() << " pages";
}

}  // namespace
}  // namespace onnxq

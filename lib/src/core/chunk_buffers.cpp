#include "core/chunk_buffers.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <limits>
#include <new>

namespace onnxq {
namespace {

// A huge page on x86-64, and on AArch64 with 4 KiB pages (with 64 KiB pages the advice does nothing).
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

ChunkBuffers::ChunkBuffers(std::size_t count, std::size_t bytes) : count_(count), bytes_(bytes) {
  if (count == 0 || bytes == 0) return;
  if (bytes > (std::numeric_limits<std::size_t>::max() / 2 - kHugePage) / count) throw std::bad_alloc();
  const std::size_t used = count * bytes;
  // One huge page more than needed, so that the buffers can start at a huge-page boundary.
  mapping_bytes_ = round_up(used, kHugePage) + kHugePage;
  void* mapping = ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  mapping_ = mapping;
  const auto start = round_up(reinterpret_cast<std::uintptr_t>(mapping), kHugePage);
  first_ = reinterpret_cast<std::byte*>(start);
  // Both are advice: a kernel without them (or with huge pages turned off) faults the pages in
  // one at a time on the first reads instead.
#ifdef MADV_HUGEPAGE
  ::madvise(first_, round_up(used, kHugePage), MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
  ::madvise(first_, used, MADV_POPULATE_WRITE);
#endif
}

ChunkBuffers::~ChunkBuffers() {
  if (mapping_) ::munmap(mapping_, mapping_bytes_);
}

}  // namespace onnxq

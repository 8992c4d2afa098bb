// Buffers for the chunks of a pipeline, all in one block of memory that asks the kernel for
// transparent huge pages and is populated when it is made. A fresh 4 KiB page costs a fault on its
// first touch (15-30 us on some VMs, doc/design.md), which the first read into a 512 KiB
// buffer would otherwise pay 128 times; one huge page holds four such buffers.
#pragma once

#include <cstddef>
#include <span>

namespace onnxq {

class ChunkBuffers {
 public:
  // `count` buffers of `bytes` bytes each. Throws std::bad_alloc when the memory is not there.
  ChunkBuffers(std::size_t count, std::size_t bytes);
  ~ChunkBuffers();
  ChunkBuffers(const ChunkBuffers&) = delete;
  ChunkBuffers& operator=(const ChunkBuffers&) = delete;

  std::size_t count() const { return count_; }
  // Buffer i (< count()): `bytes` bytes of its own.
  std::span<std::byte> operator[](std::size_t i) const { return {first_ + i * bytes_, bytes_}; }

 private:
  std::size_t count_, bytes_;
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  std::byte* first_ = nullptr;
};

}  // namespace onnxq

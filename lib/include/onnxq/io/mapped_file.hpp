// A read-only memory map of a whole file (PROT_READ, MAP_PRIVATE), with the file kept open for
// reads that copy. Pipes and other streams that cannot be mapped (`<(...)`, /dev/stdin) are read
// into memory instead.
// A file that shrinks while it is mapped is caught by the guard in onnxq/io/mapping_guard.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace onnxq {

class MappedFile {
 public:
  // Throws Error(Io) when the file cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  std::size_t size() const { return size_; }
  // The open file behind the mapping, for reads that copy instead of touching the mapping's
  // pages (see MappedSource::read); -1 for a stream read into memory.
  int descriptor() const { return fd_; }

 private:
  MappedFile() = default;
  const std::byte* data_ = nullptr;
  bool mapped_ = false;
  std::vector<std::byte> read_bytes_;  // the contents of a stream that was read, not mapped
  std::size_t size_ = 0;
  std::string path_;
  int fd_ = -1;
  int guard_slot_ = -1;  // the mapping's entry for the SIGBUS guard (onnxq/io/mapping_guard.hpp)
};

}  // namespace onnxq

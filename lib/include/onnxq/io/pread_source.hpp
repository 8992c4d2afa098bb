// A local file as a ByteSource read with pread(2): no mapping, so no page faults and no SIGBUS
// when the file shrinks (a read that ends early is an Error(Io) instead). Regular files only.
#pragma once

#include <memory>
#include <string>

#include "onnxq/io/byte_source.hpp"

namespace onnxq {

class PreadSource final : public ByteSource {
 public:
  // Throws Error(Io) with the texts of MappedFile::open (cannot open, is a directory, ...), and
  // for a file that cannot be read by offset (a pipe).
  static std::shared_ptr<const PreadSource> open(const std::string& path);
  ~PreadSource() override;
  PreadSource(const PreadSource&) = delete;
  PreadSource& operator=(const PreadSource&) = delete;

  const std::string& name() const override { return path_; }
  std::uint64_t size() const override { return size_; }
  // Throws Error(Io) "PATH changed size while it was being read (...)" when the file ends early.
  void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const override;

 private:
  PreadSource(int fd, std::string path, std::uint64_t size);
  int fd_;
  std::string path_;
  std::uint64_t size_;
};

}  // namespace onnxq

// A file's bytes read by offset, wherever they live. The GGUF reader uses it for files it cannot
// map (remote files); local files stay memory-mapped and never go through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace onnxq {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // The name used in messages (a path or URL, never a credential).
  virtual const std::string& name() const = 0;
  virtual std::uint64_t size() const = 0;
  // Copies bytes [offset, offset + dst.size()) into dst; the range must lie inside the file.
  // `read_ahead_end` (at least offset + dst.size()) tells how far the caller will read on in
  // order, so a source may fetch up to there in one go. Safe to call from several threads.
  // Throws Error(Io).
  virtual void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const = 0;
};

}  // namespace onnxq

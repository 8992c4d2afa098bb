// The streaming decoder: a tensor (any BlockSource: a GGUF tensor, packed bytes in memory)
// decoded chunk by chunk into an output dtype and handed, in order, to a sink, or decoded into
// a caller's buffer. The input is read a chunk at a time and the output goes out through one
// reused buffer per thread, so memory stays bounded for any tensor size.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "onnxq/core/dtype.hpp"
#include "onnxq/formats/block_source.hpp"

namespace onnxq {

// Where decoded bytes go: a file, a pipe, memory. write() appends. A sink that is a regular file
// may also take positional writes, for several threads filling one stretch at once.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  virtual void write(const void* data, std::size_t size) = 0;
  // Whether write_at/advance work. write_at(offset, ...) writes `offset` bytes past the position
  // write() reached, without moving it; advance(n) then moves it n bytes on, past the stretch.
  virtual bool positional() const { return false; }
  virtual void write_at(std::uint64_t offset, const void* data, std::size_t size);  // default: Error(Unsupported)
  virtual void advance(std::uint64_t bytes);                                        // default: Error(Unsupported)
  // Told the bytes that follow before they are written (to allocate them); default: nothing.
  virtual void reserve(std::uint64_t) {}
};

// The chunk buffers of write_decoded(), one per decoding thread. A caller that writes many
// tensors passes the same one to each call (StreamOptions::buffers), so that each buffer's pages
// are faulted in once, not once per tensor. One call at a time: a call that finds them in use by
// another throws Error(InvalidArgument); calls at once each need their own.
class StreamBuffers {
 public:
  StreamBuffers();
  ~StreamBuffers();
  StreamBuffers(const StreamBuffers&) = delete;
  StreamBuffers& operator=(const StreamBuffers&) = delete;

  struct Pool;  // what write_decoded() keeps here (tensor_stream.cpp)
  Pool& pool() { return *pool_; }

 private:
  std::unique_ptr<Pool> pool_;
};

struct StreamOptions {
  // 0: the default thread count (onnxq/core/parallel.hpp), and a write adds threads only where
  // its first chunks show they pay off (see tensor_stream.cpp); N > 0: exactly N.
  int threads = 0;
  // Called with the input bytes of each chunk once it is decoded, from any thread.
  std::function<void(std::uint64_t)> on_progress;
  // Buffers to reuse across calls; null: the call allocates its own.
  StreamBuffers* buffers = nullptr;
};

// How a write_decoded() chose its threads, for a front end's log.
struct StreamPlan {
  bool probed = false;  // the first chunks were timed (else: one thread, or too few chunks)
  std::chrono::microseconds probe_read{0}, probe_decode{0}, probe_write{0};  // per chunk, the least of the timed ones
  std::uint64_t chunks_left = 0;                                             // after the probe
  unsigned other_runnable_threads = 0;
  unsigned threads = 1;  // that wrote the rest
};

// The decoded size of the whole source as `dtype`, in bytes.
std::uint64_t decoded_bytes(const BlockSource& source, DType dtype);

// Decodes the whole source and writes it to `sink` in order (the values only: a header is the
// caller's). Throws Error(InvalidArgument) when the format cannot be decoded to `dtype`.
StreamPlan write_decoded(StreamSink& sink, const BlockSource& source, DType dtype, const StreamOptions& options = {});
// Each source in turn, as one stream.
void write_decoded(StreamSink& sink, std::span<const BlockSource* const> sources, DType dtype,
                   const StreamOptions& options = {});

// Decodes the whole source into `out`, which must be decoded_bytes() long (else
// Error(InvalidArgument)), on options.threads threads.
void decode_into(const BlockSource& source, DType dtype, std::span<std::byte> out, const StreamOptions& options = {});

}  // namespace onnxq

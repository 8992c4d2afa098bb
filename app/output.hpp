// Output sinks for binary results: stdout, or a file written through the library's AtomicFile
// (onnxq/io/atomic_file.hpp: complete or absent, devices and FIFOs in place, inputs refused).
// What is the CLI's own: standard output, refusing a terminal, EPIPE as BrokenPipe, and the
// signal handlers that remove live named temporaries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "onnxq/io/atomic_file.hpp"
#include "onnxq/stream/tensor_stream.hpp"

namespace onnxq::cli {

// An output file through the library's AtomicFile, with the CLI's test hook (ONNXQ_TEST_NO_TMPFILE)
// and its note when no unnamed file can be made.
AtomicFile create_output_file(const std::string& path, AtomicFile::Options options);

// Thrown when stdout's reader has gone away (EPIPE); main exits quietly.
struct BrokenPipe {};

// The library's streaming decoder (onnxq/stream/tensor_stream.hpp) writes into it as a StreamSink.
class OutputSink final : public StreamSink {
 public:
  // path "-" means stdout. Refuses stdout when it is a terminal (binary output),
  // unless allow_terminal is set (text output).
  static OutputSink open(const std::string& path, bool allow_terminal = false);
  OutputSink(OutputSink&& other) noexcept = default;
  OutputSink& operator=(OutputSink&&) = delete;
  OutputSink(const OutputSink&) = delete;
  ~OutputSink() override = default;

  void write(const void* data, std::size_t size) override;

  // Positional writes, for several threads filling one stretch of a file at once (each pwrite
  // copies from a buffer still in its own core's cache). Only a regular file (the unnamed or
  // temporary file) supports them. write_at(offset, ...) writes `offset` bytes past the position
  // that write() reached, without moving it; advance(n) then moves it n bytes on, past the stretch.
  bool positional() const override { return file_ && file_->positional(); }
  void write_at(std::uint64_t offset, const void* data, std::size_t size) override;
  void advance(std::uint64_t bytes) override;
  // Allocates the next `bytes` of a regular output file before they are written, where the file
  // system can (fallocate); a no-op for stdout, devices and FIFOs. Reports a full disk or a
  // file-size limit here, before any decoding.
  void reserve(std::uint64_t bytes) override;
  // Names the finished file (replacing the target, if any). Stdout, devices, FIFOs: closes.
  // Fails, and names nothing, when a mapped input changed size while it was read.
  void commit();

  const std::string& path() const { return path_; }  // target path ("-" for stdout)
  bool is_stdout() const { return !file_; }
  // The file behind the sink (null for stdout), for committing several at once (onnxq/io/file_set.hpp).
  AtomicFile* file() { return file_ ? &*file_ : nullptr; }

 private:
  OutputSink() = default;

  std::string path_;
  std::optional<AtomicFile> file_;  // empty: stdout
  bool committed_ = false;
};

// True when stdout is a terminal (binary output must not go there).
bool stdout_is_terminal();
// True when stdin is not a terminal (a pipe or a file is attached).
bool stdin_is_redirected();

// Makes descriptors 0, 1 and 2 valid, so that no file the process opens takes a standard
// stream's number. A closed one gets /dev/null, opened so that it behaves as the closed
// descriptor did for the use a user means: reading a closed stdin and writing a closed stdout
// still fail with EBADF (an output asked for on stdout is an I/O error, exit 3); a closed stderr
// swallows messages. Call first thing in main.
void make_standard_descriptors_valid();

// Installs SIGINT/SIGTERM/SIGHUP handlers that remove live named temporaries, and ignores SIGPIPE
// (EPIPE surfaces as BrokenPipe) and SIGXFSZ (EFBIG surfaces as an I/O error). Call once from main.
void install_output_signal_handlers();

}  // namespace onnxq::cli

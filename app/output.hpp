// Output sinks for binary results. An output is complete or absent: a file is written to an
// unnamed file (O_TMPFILE) in the target's directory and given its name only by commit(), so an
// error, an exception, SIGINT/SIGTERM or kill -9 leaves no trace and the old target untouched.
// Where the file system has no unnamed files, the sink falls back to an exclusive temporary name
// beside the target (.NAME.onnxq-XXXXXX), which the signal handlers remove (kill -9 cannot be
// caught: there the temporary stays). An existing device or FIFO (/dev/null, /dev/full, a named
// pipe) is written in place: renaming onto it would replace the device node. A target that is one
// of the process's inputs (input_files.hpp) is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "onnxq/stream/tensor_stream.hpp"

namespace onnxq::cli {

// Thrown when stdout's reader has gone away (EPIPE); main exits quietly.
struct BrokenPipe {};

// The library's streaming decoder (onnxq/stream/tensor_stream.hpp) writes into it as a StreamSink.
class OutputSink final : public StreamSink {
 public:
  // path "-" means stdout. Refuses stdout when it is a terminal (binary output),
  // unless allow_terminal is set (text output).
  static OutputSink open(const std::string& path, bool allow_terminal = false);
  OutputSink(OutputSink&& other) noexcept;
  OutputSink& operator=(OutputSink&&) = delete;
  OutputSink(const OutputSink&) = delete;
  ~OutputSink() override;

  void write(const void* data, std::size_t size) override;

  // Positional writes, for several threads filling one stretch of a file at once (each pwrite
  // copies from a buffer still in its own core's cache). Only a regular file (the unnamed or
  // temporary file) supports them. write_at(offset, ...) writes `offset` bytes past the position
  // that write() reached, without moving it; advance(n) then moves it n bytes on, past the stretch.
  bool positional() const override { return kind_ == Kind::Unnamed || kind_ == Kind::NamedTemporary; }
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
  bool is_stdout() const { return kind_ == Kind::Stdout; }

 private:
  enum class Kind {
    Stdout,          // descriptor 1, as the caller asked with "-"
    Direct,          // a device or FIFO, opened in place
    Unnamed,         // an O_TMPFILE file in the target's directory
    NamedTemporary,  // .NAME.onnxq-XXXXXX beside the target (no O_TMPFILE here)
  };
  OutputSink() = default;
  void discard() noexcept;
  void name_unnamed_file();
  void replace_target_with(const std::string& temp_path);
  const std::string& shown_path() const;

  Kind kind_ = Kind::Stdout;
  int fd_ = -1;
  std::string path_;
  std::string temp_path_;  // the named temporary, while it exists
  bool committed_ = false;
  std::uint64_t position_ = 0;  // bytes written by write() and advance()
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

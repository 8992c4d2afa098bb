// Output sinks for binary results. A file is written to an exclusive temporary
// name beside the target and renamed only by commit(); if the sink is destroyed
// uncommitted (an error, an exception) or the process gets SIGINT/SIGTERM, the
// temporary is removed and the target is left untouched. An existing device or FIFO
// (/dev/null, /dev/full, a named pipe) is written in place: renaming onto it would
// replace the device node. A target that is one of the process's inputs (the same
// inode as an open or mapped file, stdin, or a path given to note_input_file) is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onnxq::cli {

// Thrown when stdout's reader has gone away (EPIPE); main exits quietly.
struct BrokenPipe {};

class OutputSink {
 public:
  // path "-" means stdout. Refuses stdout when it is a terminal (binary output),
  // unless allow_terminal is set (text output).
  static OutputSink open(const std::string& path, bool allow_terminal = false);
  OutputSink(OutputSink&& other) noexcept;
  OutputSink& operator=(OutputSink&&) = delete;
  OutputSink(const OutputSink&) = delete;
  ~OutputSink();

  void write(const void* data, std::size_t size);

  // Positional writes, for several threads filling one stretch of a file at once (each pwrite
  // copies from a buffer still in its own core's cache). Only a regular file (the temporary)
  // supports them. write_at(offset, ...) writes `offset` bytes past the position that write()
  // reached, without moving it; advance(n) then moves it n bytes on, past the stretch.
  bool positional() const { return !temp_path_.empty(); }
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  void advance(std::uint64_t bytes);
  // Allocates the next `bytes` of a regular output file (the temporary) before they are written,
  // where the file system can (fallocate); a no-op for stdout, devices and FIFOs. Reports a full
  // disk or a file-size limit here, before any decoding.
  void reserve(std::uint64_t bytes);
  // Flushes, closes and renames the temporary onto the target. Stdout: flushes.
  void commit();

  const std::string& path() const { return path_; }  // target path ("-" for stdout)
  bool is_stdout() const { return fd_ == 1; }

 private:
  OutputSink() = default;
  void discard() noexcept;
  bool exchange_with_target();

  int fd_ = -1;
  std::string path_;
  std::string temp_path_;
  bool direct_ = false;  // a device or FIFO opened in place: commit only closes it
  bool committed_ = false;
  std::uint64_t position_ = 0;  // bytes written by write() and advance()
};

// Records an input file (by inode) that is read and closed before outputs are opened, so that
// an output onto it is refused even though it is no longer open or mapped.
void note_input_file(const std::string& path);

// True when stdout is a terminal (binary output must not go there).
bool stdout_is_terminal();
// True when stdin is not a terminal (a pipe or a file is attached).
bool stdin_is_redirected();

// Installs SIGINT/SIGTERM/SIGHUP handlers that remove live temporaries, and ignores SIGPIPE
// (EPIPE surfaces as BrokenPipe) and SIGXFSZ (EFBIG surfaces as an I/O error). Call once from main.
void install_output_signal_handlers();

}  // namespace onnxq::cli

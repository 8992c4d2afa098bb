// A file that is complete or absent. It is written to an unnamed file (O_TMPFILE) in the
// target's directory and given its name only by commit(), so an error, an exception, a signal or
// kill -9 leaves no trace and the old target untouched. Where the file system has no unnamed
// files, it is written to an exclusive temporary beside the target (.NAME.onnxq-XXXXXX), listed
// for remove_live_temporaries() (kill -9 cannot be caught: there the temporary stays). An existing
// device or FIFO (/dev/null, a named pipe) is written in place: renaming onto it would replace the
// node itself. A target that is one of the process's inputs (same_file.hpp) is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onnxq {

class FileSet;

class AtomicFile {
 public:
  struct Options {
    // commit() waits for the data, then the directory entry, to reach the disk (fsync): for a
    // file that replaces a user's only copy. Off by default: derived outputs keep their speed.
    bool durable = false;
    // false: never an unnamed file, always the named temporary (tests reach that path with it).
    bool unnamed = true;
    // The target is the input this file is made from (an in-place edit): allowed, as the old file
    // is replaced only by commit()'s rename and stays readable to whoever holds it open.
    bool replaces_input = false;
  };
  enum class Kind {
    InPlace,         // a device or FIFO, opened where it is
    Unnamed,         // an O_TMPFILE file in the target's directory
    NamedTemporary,  // .NAME.onnxq-XXXXXX beside the target
  };

  // Errors: Error(Io) "output path P is a directory", "cannot open P", "cannot create a file in D",
  // "cannot create a temporary file in D"; Error(InvalidArgument) "refusing to write to P: it is
  // one of the input files".
  static AtomicFile create(const std::string& path, Options options);
  static AtomicFile create(const std::string& path) { return create(path, Options{}); }
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();  // without commit(): discards

  // Appends at the write position.
  void write(const void* data, std::size_t size);
  // Positional writes (regular files only: positional()), at an absolute offset, leaving the
  // write position where it is; several threads may write disjoint stretches at once.
  bool positional() const { return kind_ != Kind::InPlace; }
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  std::uint64_t position() const { return position_; }
  void seek(std::uint64_t position);
  // Allocates [offset, offset + bytes) before it is written, where the file system can
  // (fallocate): a full disk or a file-size limit shows here. A no-op in place.
  void reserve(std::uint64_t offset, std::uint64_t bytes);

  // Names the finished file, replacing the target (if any) in one step; in place: closes. Fails,
  // naming nothing, when a mapped input changed size while it was read (its bytes were zeros).
  void commit();
  // Drops what was written; the target stays as it was. Idempotent.
  void discard() noexcept;

  const std::string& path() const { return path_; }
  Kind kind() const { return kind_; }
  int descriptor() const { return fd_; }  // -1 once committed or discarded
  // Why no unnamed file was made (the errno of O_TMPFILE: EOPNOTSUPP, EISDIR, EINVAL), for a
  // front end's note; 0 when one was, or when Options::unnamed was false.
  int unnamed_unavailable_errno() const { return unnamed_errno_; }

 private:
  friend class FileSet;
  AtomicFile() = default;
  void sync_data();
  void close_data();
  void stage();  // ready to be named; the target untouched
  void link_temporary_name();
  bool swap_in();                           // staged file onto the target; true: exchanged with an old file
  void undo_swap(bool exchanged) noexcept;  // back to staged, the old target restored
  void drop_replaced(bool exchanged);       // removes the old file an exchange left at the temporary name
  void sync_directory();
  void forget_temporary() noexcept;

  Kind kind_ = Kind::InPlace;
  Options options_;
  int fd_ = -1;
  std::string path_;
  std::string temp_path_;  // the named temporary, while it exists
  bool done_ = false;      // committed or discarded
  std::uint64_t position_ = 0;
  int unnamed_errno_ = 0;
};

// Removes every named temporary of this process that is still live. Async-signal-safe: a front
// end calls it from its SIGINT/SIGTERM/SIGHUP handler (the library installs no handler). Those
// three signals are blocked for the moment a temporary is created and listed, so the handler
// never misses one.
void remove_live_temporaries() noexcept;

}  // namespace onnxq

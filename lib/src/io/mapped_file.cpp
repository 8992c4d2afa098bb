#include "onnxq/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/mapping_registry.hpp"
#include "io/open_file.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/read_all.hpp"

namespace onnxq {

namespace detail {

OpenedFile open_for_reading(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    io_error(err, "cannot open " + path + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    io_error(err, "cannot stat " + path + ": " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    io_error(EISDIR, path + " is a directory, expected a file");
  }
  return {fd, st};
}

}  // namespace detail

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  const auto [fd, st] = detail::open_for_reading(path);
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  if (!S_ISREG(st.st_mode)) {
    try {
      file->read_bytes_ = read_all(fd, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    file->data_ = file->read_bytes_.data();
    file->size_ = file->read_bytes_.size();
    return file;
  }
  file->size_ = static_cast<std::size_t>(st.st_size);
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      io_error(err, "cannot map " + path + ": " + std::strerror(err));
    }
    file->data_ = static_cast<const std::byte*>(p);
    file->mapped_ = true;
    file->guard_slot_ = detail::register_mapping(p, file->size_, path);
  }
  file->fd_ = fd;
  return file;
}

MappedFile::~MappedFile() {
  detail::unregister_mapping(guard_slot_);
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace onnxq

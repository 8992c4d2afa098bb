// Initializers stored as ONNX external data. A model is untrusted input and its locations
// name files to read, so each one must stay inside the model's folder: no absolute path, no
// `..`, no symlink out of the folder, a regular file (never a directory or a FIFO, which would
// block), and a byte range inside the file whose length equals the tensor's type times shape.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "onnx/external_data.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

namespace fs = std::filesystem;

std::uint64_t parse_number(const std::string& text, const std::string& label, const std::string& key) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    invalid_input(label + ": external_data " + key + " '" + text + "' is not a non-negative integer");
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) invalid_input(label + ": external_data " + key + " '" + text + "' overflows 64 bits");
  return v;
}

// The file behind the location, after the path rules; InvalidInput naming the initializer.
std::string resolve_location(const std::string& location, const std::string& model_dir, const std::string& label) {
  if (location.empty()) invalid_input(label + ": external_data has no location");
  if (location.find('\0') != std::string::npos) invalid_input(label + ": external_data location holds a NUL byte");
  const fs::path rel(location);
  if (rel.is_absolute()) invalid_input(label + ": external_data location '" + location + "' is absolute");
  for (const fs::path& part : rel)
    if (part == "..") invalid_input(label + ": external_data location '" + location + "' holds '..'");
  std::error_code ec;
  const fs::path dir = fs::canonical(model_dir.empty() ? "." : model_dir, ec);
  if (ec) invalid_input(label + ": cannot resolve the model's folder " + model_dir + ": " + ec.message());
  const fs::path file = fs::canonical(dir / rel, ec);
  if (ec) invalid_input(label + ": external_data location '" + location + "': " + ec.message());
  // A symlink may lead anywhere; what counts is where the path ends up.
  const fs::path inside = file.lexically_relative(dir);
  if (inside.empty() || *inside.begin() == "..")
    invalid_input(label + ": external_data location '" + location + "' leads out of the model's folder (to " +
                  file.string() + ")");
  return file.string();
}

// Opens without blocking (a FIFO) and checks the open file itself, not the name.
int open_regular(const std::string& path, const std::string& label, std::uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) invalid_input(label + ": cannot open external data " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    invalid_input(label + ": external data " + path + " is not a regular file");
  }
  size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

void check_range(const ExternalTensor& t, std::uint64_t file_size, const std::string& label) {
  const auto end = checked_add(t.offset, t.length);
  if (!end || *end > file_size)
    invalid_input(label + ": external data range [" + std::to_string(t.offset) + ", +" + std::to_string(t.length) +
                  ") lies outside " + t.location + " (" + std::to_string(file_size) + " bytes)");
}

std::uint64_t tensor_byte_size(DType dtype, const Shape& dims, const std::string& label) {
  const DTypeInfo& info = dtype_info(dtype);
  if (dtype == DType::String || info.bits % 8 != 0)
    invalid_input(label + ": external data of type " + std::string(info.onnx_name) + " is not supported");
  std::optional<std::uint64_t> bytes = info.bits / 8;
  for (std::int64_t d : dims) {
    if (d < 0) invalid_input(label + ": negative dimension " + std::to_string(d));
    if (bytes) bytes = checked_mul(*bytes, static_cast<std::uint64_t>(d));
  }
  if (!bytes || *bytes > static_cast<std::uint64_t>(INT64_MAX)) invalid_input(label + ": byte size overflows");
  return *bytes;
}

// Reads exactly dst.size() bytes at `offset`; a file that ends first shrank after the checks.
void read_exactly(int fd, std::uint64_t offset, std::span<std::byte> dst, const std::string& path,
                  const std::string& label) {
  std::uint64_t done = 0;
  while (done < dst.size()) {
    const ssize_t n = ::pread(fd, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(ErrorKind::Io, label + ": reading " + path + ": " + std::strerror(errno));
    if (n == 0) invalid_input(label + ": " + path + " ended before the external data's end (it shrank)");
    done += static_cast<std::uint64_t>(n);
  }
}

// An external initializer's blocks, read when asked (by several threads at once: pread only).
class ExternalBlocks final : public BlockSource {
 public:
  ExternalBlocks(const ExternalTensor& t, const BlockFormat& format, const std::string& label)
      : tensor_(t), format_(format), label_(label) {
    std::uint64_t size = 0;
    fd_ = open_regular(t.path, label, size);
    try {
      check_range(t, size, label);
      if (t.length % format.block_bytes != 0)
        invalid_input(label + ": " + std::to_string(t.length) + " bytes are not whole blocks of " +
                      std::string(format.gguf_name));
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~ExternalBlocks() override { ::close(fd_); }
  ExternalBlocks(const ExternalBlocks&) = delete;
  ExternalBlocks& operator=(const ExternalBlocks&) = delete;

  const BlockFormat& format() const override { return format_; }
  std::uint64_t block_count() const override { return tensor_.length / format_.block_bytes; }
  std::span<const std::byte> blocks(std::uint64_t first, std::uint64_t count,
                                    std::vector<std::byte>& scratch) const override {
    if (first > block_count() || count > block_count() - first)
      invalid_argument(label_ + ": blocks [" + std::to_string(first) + ", +" + std::to_string(count) +
                       ") are outside its " + std::to_string(block_count()));
    scratch.resize(count * format_.block_bytes);
    read_exactly(fd_, tensor_.offset + first * format_.block_bytes, scratch, tensor_.path, label_);
    return scratch;
  }

 private:
  ExternalTensor tensor_;
  const BlockFormat& format_;
  std::string label_;
  int fd_ = -1;
};

}  // namespace

namespace detail {

std::shared_ptr<const BlockSource> external_blocks(const ExternalTensor& tensor, const BlockFormat& format,
                                                   const std::string& source) {
  return std::make_shared<const ExternalBlocks>(tensor, format, source + ": initializer '" + tensor.name + "'");
}

ExternalTensor external_tensor_from_proto(const onnx::TensorProto& p, const std::string& model_dir,
                                          const std::string& label) {
  ExternalTensor t;
  t.name = p.name();
  if (!p.has_data_type() || p.data_type() == 0) invalid_input(label + ": data_type is UNDEFINED");
  const DTypeInfo* info = find_dtype(p.data_type());
  if (!info) invalid_input(label + ": unknown data_type " + std::to_string(p.data_type()));
  t.dtype = info->dtype;
  t.dims.assign(p.dims().begin(), p.dims().end());
  const std::uint64_t need = tensor_byte_size(t.dtype, t.dims, label);
  if (p.has_raw_data() || p.float_data_size() || p.int32_data_size() || p.int64_data_size() || p.double_data_size() ||
      p.uint64_data_size() || p.string_data_size())
    invalid_input(label + ": external data and data of its own");
  std::optional<std::uint64_t> length;
  bool has_location = false;
  for (const auto& entry : p.external_data()) {
    if (entry.key() == "location") {
      t.location = entry.value();
      has_location = true;
    } else if (entry.key() == "offset") {
      t.offset = parse_number(entry.value(), label, "offset");
    } else if (entry.key() == "length") {
      length = parse_number(entry.value(), label, "length");
    }  // "checksum" and others: not needed to read
  }
  if (!has_location) invalid_input(label + ": external_data has no location");
  if (length && *length != need)
    invalid_input(label + ": external_data length " + std::to_string(*length) + " disagrees with its type and shape (" +
                  std::to_string(need) + " bytes)");
  t.length = need;
  if (model_dir.empty()) invalid_input(label + ": external data needs the model's folder (read the model from a file)");
  t.path = resolve_location(t.location, model_dir, label);
  std::uint64_t size = 0;
  const int fd = open_regular(t.path, label, size);
  ::close(fd);
  check_range(t, size, label);
  return t;
}

void external_tensor_to_proto(const ExternalTensor& t, onnx::TensorProto* out) {
  out->Clear();
  out->set_name(t.name);
  out->set_data_type(static_cast<std::int32_t>(t.dtype));
  for (std::int64_t d : t.dims) out->add_dims(d);
  out->set_data_location(onnx::TensorProto::EXTERNAL);
  const std::pair<const char*, std::string> entries[] = {
      {"location", t.location}, {"offset", std::to_string(t.offset)}, {"length", std::to_string(t.length)}};
  for (const auto& [key, value] : entries) {
    auto* e = out->add_external_data();
    e->set_key(key);
    e->set_value(value);
  }
}

}  // namespace detail

Tensor read_external_tensor(const ExternalTensor& t, const std::string& source) {
  const std::string label = source + ": initializer '" + t.name + "'";
  std::uint64_t size = 0;
  const int fd = open_regular(t.path, label, size);
  Tensor tensor;
  try {
    check_range(t, size, label);
    tensor = Tensor::uninitialized(t.dtype, t.dims);
    if (tensor.bytes().size() != t.length) invalid_input(label + ": byte size disagrees with its type and shape");
    read_exactly(fd, t.offset, tensor.mutable_bytes(), t.path, label);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return tensor;
}

}  // namespace onnxq

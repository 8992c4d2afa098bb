#include "onnxq/core/tensor.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

std::uint64_t shape_element_count(const Shape& shape) {
  for (std::int64_t d : shape)
    if (d < 0) invalid_input("negative dimension " + std::to_string(d) + " in shape " + shape_to_string(shape));
  // A zero dimension makes the count zero whatever the others are, and whichever order the
  // dimensions come in (GGUF's order and ONNX's reverse one must agree).
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::uint64_t count = 1;
  for (std::int64_t d : shape) {
    auto next = checked_mul(count, static_cast<std::uint64_t>(d));
    if (!next || *next > static_cast<std::uint64_t>(INT64_MAX))
      invalid_input("element count of shape " + shape_to_string(shape) + " overflows 64 bits");
    count = *next;
  }
  return count;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

namespace {

struct AlignedBuffer {
  explicit AlignedBuffer(std::size_t n, bool zero = true) {
    // aligned_alloc needs a size that is a multiple of the alignment; never 0.
    const std::size_t rounded = ((n + 63) / 64) * 64 + 64;
    ptr = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
    if (!ptr) throw std::bad_alloc();
    if (zero) std::memset(ptr, 0, rounded);
  }
  ~AlignedBuffer() { std::free(ptr); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  std::byte* ptr;
};

}  // namespace

Tensor Tensor::zeros(DType dtype, Shape shape) { return allocate(dtype, std::move(shape), true); }

Tensor Tensor::uninitialized(DType dtype, Shape shape) { return allocate(dtype, std::move(shape), false); }

Tensor Tensor::allocate(DType dtype, Shape shape, bool zero) {
  Tensor t;
  t.dtype_ = dtype;
  const std::uint64_t count = shape_element_count(shape);
  t.shape_ = std::move(shape);
  if (dtype == DType::String) {
    t.strings_ = std::make_shared<std::vector<std::string>>(count);
    return t;
  }
  auto buffer = std::make_shared<AlignedBuffer>(dtype_storage_bytes(dtype, count), zero);
  t.data_ = buffer->ptr;
  t.size_ = dtype_storage_bytes(dtype, count);
  t.owner_ = buffer;
  t.writable_ = true;
  return t;
}

Tensor Tensor::from_bytes(DType dtype, Shape shape, std::span<const std::byte> bytes) {
  Tensor t = zeros(dtype, std::move(shape));
  if (bytes.size() != t.size_)
    invalid_input("tensor of shape " + shape_to_string(t.shape_) + " needs " + std::to_string(t.size_) +
                  " bytes, got " + std::to_string(bytes.size()));
  if (!bytes.empty()) std::memcpy(const_cast<std::byte*>(t.data_), bytes.data(), bytes.size());
  return t;
}

Tensor Tensor::view(DType dtype, Shape shape, std::span<const std::byte> bytes,
                    std::shared_ptr<const void> keep_alive) {
  Tensor t;
  t.dtype_ = dtype;
  const std::uint64_t count = shape_element_count(shape);
  t.shape_ = std::move(shape);
  if (dtype_storage_bytes(dtype, count) != bytes.size())
    invalid_input("tensor view of shape " + shape_to_string(t.shape_) + " needs " +
                  std::to_string(dtype_storage_bytes(dtype, count)) + " bytes, got " + std::to_string(bytes.size()));
  t.data_ = bytes.data();
  t.size_ = bytes.size();
  t.owner_ = std::move(keep_alive);
  return t;
}

Tensor Tensor::from_strings(Shape shape, std::vector<std::string> strings) {
  Tensor t;
  t.dtype_ = DType::String;
  const std::uint64_t count = shape_element_count(shape);
  t.shape_ = std::move(shape);
  if (strings.size() != count)
    invalid_input("string tensor of shape " + shape_to_string(t.shape_) + " needs " + std::to_string(count) +
                  " strings, got " + std::to_string(strings.size()));
  t.strings_ = std::make_shared<std::vector<std::string>>(std::move(strings));
  return t;
}

std::span<std::byte> Tensor::mutable_bytes() {
  if (!writable_ && size_ != 0) fail(ErrorKind::Unsupported, "tensor is a read-only view");
  return {const_cast<std::byte*>(data_), size_};
}

const std::vector<std::string>& Tensor::strings() const {
  static const std::vector<std::string> empty;
  return strings_ ? *strings_ : empty;
}

std::vector<std::string>& Tensor::mutable_strings() {
  if (!strings_) strings_ = std::make_shared<std::vector<std::string>>();
  return *strings_;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape_element_count(shape) != element_count())
    invalid_input("cannot reshape " + shape_to_string(shape_) + " to " + shape_to_string(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

}  // namespace onnxq

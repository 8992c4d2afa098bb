// A tensor of any ONNX dtype: dtype, shape and either bytes or strings.
// Bytes are either owned (64-byte aligned) or a read-only view of memory that a
// keep-alive handle owns (e.g. a GGUF mapping), so reshapes never copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onnxq/core/dtype.hpp"

namespace onnxq {

using Shape = std::vector<std::int64_t>;

// Product of the dims; throws InvalidInput on a negative dim or on overflow past 2^63-1.
std::uint64_t shape_element_count(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[2, 3]"

class Tensor {
 public:
  Tensor() = default;

  // Owned, zero-filled storage for dtype/shape (strings: empty strings).
  static Tensor zeros(DType dtype, Shape shape);
  // Owned storage whose bytes are left unset, for kernels that write every byte (strings: empty).
  static Tensor uninitialized(DType dtype, Shape shape);
  // Owned copy of the given bytes; the byte count must match dtype and shape.
  static Tensor from_bytes(DType dtype, Shape shape, std::span<const std::byte> bytes);
  // A read-only view; `keep_alive` owns the memory behind `bytes`.
  static Tensor view(DType dtype, Shape shape, std::span<const std::byte> bytes,
                     std::shared_ptr<const void> keep_alive);
  static Tensor from_strings(Shape shape, std::vector<std::string> strings);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::uint64_t element_count() const { return shape_element_count(shape_); }
  bool is_string() const { return dtype_ == DType::String; }

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  // Only for owned storage (zeros/from_bytes); throws for views.
  std::span<std::byte> mutable_bytes();

  const std::vector<std::string>& strings() const;
  std::vector<std::string>& mutable_strings();

  // Same data, new shape with the same element count; never copies.
  Tensor reshaped(Shape shape) const;

  // Typed access; the caller must pick T matching dtype(). Views may be unaligned, so
  // element reads go through memcpy.
  template <class T>
  T at(std::size_t i) const {
    T v;
    __builtin_memcpy(&v, data_ + i * sizeof(T), sizeof(T));
    return v;
  }
  template <class T>
  T* mutable_data() {
    return reinterpret_cast<T*>(mutable_bytes().data());
  }

 private:
  static Tensor allocate(DType dtype, Shape shape, bool zero);

  DType dtype_ = DType::Undefined;
  Shape shape_;
  std::shared_ptr<const void> owner_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool writable_ = false;
  std::shared_ptr<std::vector<std::string>> strings_;
};

}  // namespace onnxq

// A bounds-checked cursor over a GGUF file's bytes. Every read checks the bytes that remain
// first; a read past the end of the file throws Truncated, which the parser reports.
// The bytes may be only the first part of a longer file (a remote header read in pieces):
// a read that the file could satisfy but the part cannot throws NeedMoreBytes instead.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace onnxq::gguf_detail {

inline std::uint16_t bswap(std::uint16_t v) { return __builtin_bswap16(v); }
inline std::uint32_t bswap(std::uint32_t v) { return __builtin_bswap32(v); }
inline std::uint64_t bswap(std::uint64_t v) { return __builtin_bswap64(v); }

// Loads an unsigned integer of the file's byte order from possibly unaligned memory.
template <class T>
T load(const std::byte* p, bool big_endian) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (sizeof(T) > 1) {
    if (big_endian) v = bswap(v);
  }
  return v;
}

// Thrown when parsing needs bytes past the part given: the caller reads up to `end` and retries.
struct NeedMoreBytes {
  std::uint64_t end;
};

// Thrown by a read past the end of the file.
struct Truncated {
  std::uint64_t offset;   // where the field starts
  std::string_view what;  // the field, e.g. "metadata key"
  std::uint64_t need;     // bytes the field needs (a string: the length it states)
  std::uint64_t left;     // bytes left in the file at `offset` (a string: after its length)
  enum Kind {
    Field,          // the file ends inside the field
    LengthField,    // the file ends inside a string's length
    LengthPastEnd,  // a string's length exceeds the bytes left
  } kind = Field;
};

class ByteReader {
 public:
  // `file_size` is the whole file's size (at least bytes.size()).
  ByteReader(std::span<const std::byte> bytes, std::string_view file_name, std::uint64_t file_size)
      : bytes_(bytes), name_(file_name), file_size_(file_size) {}

  std::uint64_t offset() const { return pos_; }
  // Bytes left in the file (not only in the part at hand): the bound for plausibility checks.
  std::uint64_t remaining() const { return file_size_ - pos_; }
  const std::byte* here() const { return bytes_.data() + pos_; }
  std::uint64_t file_size() const { return file_size_; }
  std::string_view file_name() const { return name_; }
  void set_big_endian(bool be) { big_endian_ = be; }
  bool big_endian() const { return big_endian_; }

  // Ensures n more bytes exist; `what` names the field for the message.
  void require(std::uint64_t n, std::string_view what, Truncated::Kind kind = Truncated::Field) const {
    if (n > remaining()) throw Truncated{pos_, what, n, remaining(), kind};
    if (n > bytes_.size() - pos_) throw NeedMoreBytes{pos_ + n};
  }

  void skip(std::uint64_t n, std::string_view what) {
    require(n, what);
    pos_ += n;
  }

  template <class T>
  T read(std::string_view what, Truncated::Kind kind = Truncated::Field) {
    require(sizeof(T), what, kind);
    T v = load<T>(here(), big_endian_);
    pos_ += sizeof(T);
    return v;
  }

  // A GGUF string: u64 length, then that many bytes (any bytes; not NUL-terminated).
  std::string_view read_string(std::string_view what) {
    const std::uint64_t at = pos_;
    const auto len = read<std::uint64_t>(what, Truncated::LengthField);
    if (len > remaining()) throw Truncated{at, what, len, remaining(), Truncated::LengthPastEnd};
    require(len, what);
    std::string_view s(reinterpret_cast<const char*>(here()), static_cast<std::size_t>(len));
    pos_ += len;
    return s;
  }

 private:
  std::span<const std::byte> bytes_;
  std::string_view name_;
  std::uint64_t file_size_;
  std::uint64_t pos_ = 0;
  bool big_endian_ = false;
};

}  // namespace onnxq::gguf_detail

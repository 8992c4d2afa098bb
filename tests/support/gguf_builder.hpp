// Test helper: writes GGUF files byte by byte, valid or deliberately broken,
// in either byte order, so tests can build the malformed catalogue and
// big-endian/split files in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq::testing {

// GgufModel::parse of bytes built in memory; `name` is the file name its messages give. The model
// views `bytes`, which must outlive it: a temporary would leave every view dangling.
GgufModel parse_gguf(const std::vector<std::uint8_t>& bytes, const std::string& name = "test.gguf");
GgufModel parse_gguf(std::vector<std::uint8_t>&& bytes, const std::string& name = "test.gguf") = delete;

// A little serializer in the file's byte order.
class GgufBytes {
 public:
  explicit GgufBytes(bool big_endian = false) : big_endian_(big_endian) {}
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s);
  }
  void raw(const std::string& s) { bytes_.insert(bytes_.end(), s.begin(), s.end()); }
  void raw(const std::vector<std::uint8_t>& b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }
  std::vector<std::uint8_t>& bytes() { return bytes_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  bool big_endian() const { return big_endian_; }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      const int shift = big_endian_ ? 8 * (n - 1 - i) : 8 * i;
      bytes_.push_back(static_cast<std::uint8_t>(v >> shift));
    }
  }
  bool big_endian_;
  std::vector<std::uint8_t> bytes_;
};

struct BuilderTensor {
  std::string name;
  std::vector<std::uint64_t> ne;
  std::uint32_t type = 0;
  std::vector<std::uint8_t> data;  // written at the tensor's offset; when empty and
                                   // auto_data is set, zeros of the tensor's size (if small)
  bool auto_data = true;
  std::optional<std::uint64_t> offset;  // default: packed one after another, aligned
};

class GgufBuilder {
 public:
  bool big_endian = false;
  std::string magic = "GGUF";
  std::uint32_t version = 3;
  std::uint64_t alignment = 32;  // used for layout; write general.alignment yourself to change the file's
  std::optional<std::uint64_t> n_tensors_override;
  std::optional<std::uint64_t> n_kv_override;

  // Metadata: the value payload is produced by `write` in the file's byte order.
  template <class Fn>
  GgufBuilder& kv(const std::string& key, std::uint32_t type, Fn write) {
    GgufBytes b(big_endian);
    write(b);
    kvs_.push_back({key, type, b.bytes()});
    return *this;
  }
  GgufBuilder& kv_u32(const std::string& key, std::uint32_t v) {
    return kv(key, 4, [&](GgufBytes& b) { b.u32(v); });
  }
  GgufBuilder& kv_u64(const std::string& key, std::uint64_t v) {
    return kv(key, 10, [&](GgufBytes& b) { b.u64(v); });
  }
  GgufBuilder& kv_u16(const std::string& key, std::uint16_t v) {
    return kv(key, 2, [&](GgufBytes& b) { b.u16(v); });
  }
  GgufBuilder& kv_i32(const std::string& key, std::int32_t v) {
    return kv(key, 5, [&](GgufBytes& b) { b.u32(static_cast<std::uint32_t>(v)); });
  }
  GgufBuilder& kv_str(const std::string& key, const std::string& v) {
    return kv(key, 8, [&](GgufBytes& b) { b.str(v); });
  }

  GgufBuilder& tensor(BuilderTensor t) {
    tensors_.push_back(std::move(t));
    return *this;
  }
  GgufBuilder& tensor(std::string name, std::vector<std::uint64_t> ne, std::uint32_t type,
                      std::optional<std::uint64_t> offset = {}) {
    BuilderTensor t;
    t.name = std::move(name);
    t.ne = std::move(ne);
    t.type = type;
    t.offset = offset;
    return tensor(std::move(t));
  }

  std::vector<std::uint8_t> build() const;

 private:
  struct Kv {
    std::string key;
    std::uint32_t type;
    std::vector<std::uint8_t> payload;
  };
  std::vector<Kv> kvs_;
  std::vector<BuilderTensor> tensors_;
};

// Bytes per ggml type for a tensor of `ne` (test-side table, independent of the library's).
std::uint64_t test_tensor_bytes(std::uint32_t ggml_type, const std::vector<std::uint64_t>& ne);

}  // namespace onnxq::testing

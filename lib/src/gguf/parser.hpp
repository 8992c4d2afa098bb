// Internal: the GGUF parser (one file's bytes → GgufFile), the one reader of GGUF records.
// It reports each problem it finds to a ParseListener: GgufModel::open's listener turns the first
// into Error(InvalidInput); `onnxq check`'s records every problem, and the parser goes on wherever
// the next record can still be found. The listener also sees each record where it lies, so the
// rules check adds on top (ggml's, the specification's, text content) follow the file's order.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {

namespace gguf_detail {

// A problem the reader rejects.
struct Problem {
  const char* code;               // `onnxq check`'s finding code, e.g. "duplicate-key"
  std::uint64_t offset;           // of the record or field
  std::string reason;             // GgufModel::open's message, after "<file>: offset <offset>: "
  std::string finding;            // `onnxq check`'s message (the key or tensor is named apart from it)
  std::string_view key = {};      // the metadata record it concerns, if any
  std::string_view tensor = {};   // the tensor-info record it concerns, if any
  bool fatal = false;             // the records after it cannot be found: the parse ends here
  bool reason_has_offset = true;  // false: GgufModel::open's message is "<file>: <reason>"
};

class ParseListener {
 public:
  virtual ~ParseListener() = default;
  // Every problem, in file order. To go on, return; the parser then reads on where it can.
  virtual void problem(const Problem& p) = 0;

  // The records, each where the parser reads it; called only when wants_records().
  virtual bool wants_records() const { return false; }
  virtual void magic(bool /*fugg*/) {}          // a valid magic; `fugg`: gguf-py's big-endian one
  virtual void version(bool /*big_endian*/) {}  // a supported version, in this byte order
  virtual void key(std::uint64_t /*offset*/, std::string_view /*key*/) {}  // before its value is read
  // A string inside the current value; `element` is its top-level array element (0 for a string value).
  virtual void string(std::uint64_t /*offset*/, std::string_view /*text*/, std::uint64_t /*element*/) {}
  // An array inside the current value (depth 0: the value itself), before its elements are read.
  virtual void array(std::uint64_t /*offset*/, GgufType /*element_type*/, std::uint64_t /*count*/, int /*depth*/) {}
  virtual void key_value(const GgufKeyValue& /*kv*/) {}  // a record read completely
  virtual void alignment(const GgufKeyValue& /*kv*/) {}  // a general.alignment that the reader accepts
  virtual void tensor_name(std::uint64_t /*offset*/, std::string_view /*name*/) {}
  virtual void distinct_tensor_name(std::uint64_t /*offset*/, std::string_view /*name*/) {}  // not a duplicate
  // Where the data section starts, once the file can hold it (with tensors, the padding up to it).
  virtual void data_start(std::uint64_t /*infos_end*/, std::uint64_t /*data_offset*/) {}
  // A tensor of a type onnxq does not know, its size inferred from the layout (always called).
  virtual void unknown_type(const TensorInfo& /*tensor*/) {}
  // Every tensor's size is known and its data lies inside the file.
  virtual void tensors_placed(const GgufFile& /*shard*/) {}
};

}  // namespace gguf_detail

class GgufParser {
 public:
  // Parses and validates one file. Throws Error(InvalidInput) on the first problem.
  // `bytes` may be the first part of a file of `file_size` bytes: when the header goes on past
  // it, throws gguf_detail::NeedMoreBytes (never for a whole file).
  static GgufFile parse(std::span<const std::byte> bytes, const std::string& name, std::uint64_t file_size);
  // Parses a whole file, reporting every problem to `listener`; `shard` gets the records read
  // completely (after a problem a tensor may lack its format, size or place). False when a
  // problem ended the parse before the end of the tensor infos.
  static bool parse(std::span<const std::byte> bytes, const std::string& name, gguf_detail::ParseListener& listener,
                    GgufFile& shard);

  // Reads one value of `type` at the reader's position (depth counts array nesting), from bytes
  // parse() has already validated (GgufArray's elements).
  static GgufValue read_value(gguf_detail::ByteReader& reader, GgufType type, int depth);

 private:
  GgufParser(gguf_detail::ByteReader& reader, gguf_detail::ParseListener& listener, GgufFile* shard);
  void run();
  void header();
  void metadata();
  void alignment();
  void tensor_infos();
  bool tensor_size(TensorInfo& t, std::uint64_t dims_at);
  bool count_elements(TensorInfo& t, std::uint64_t dims_at);
  std::uint64_t room_end(std::size_t i, std::uint64_t section) const;
  void infer_unknown_sizes(std::uint64_t section);
  void name_fork_layouts(std::uint64_t section);
  void data_layout();
  GgufValue value(GgufType type, int depth);

  void problem(gguf_detail::Problem p);
  [[noreturn]] void fatal(gguf_detail::Problem p);
  [[noreturn]] void truncated(const gguf_detail::Truncated& t);

  gguf_detail::ByteReader& reader_;
  gguf_detail::ParseListener& listener_;
  const bool records_;
  GgufFile* shard_;  // null when only reading a value
  std::uint64_t n_tensors_ = 0, n_kv_ = 0;
  std::vector<bool> sized_;                // per tensor: its byte size is known
  std::vector<bool> to_infer_;             // per tensor: an unknown type whose size data_layout infers
  std::vector<std::uint64_t> data_order_;  // every tensor's data offset, ascending
  std::string_view key_;                   // the record whose value is being read
  std::uint64_t element_ = 0;              // the top-level element of that value being read
};

}  // namespace onnxq

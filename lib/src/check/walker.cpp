// The check walker: one pass over a GGUF file's bytes that records every problem instead of
// stopping at the first. Where a record's size cannot be known (an unknown value type, a length
// past the end of the file) the records after it cannot be found, and the walk ends there.
#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <unordered_set>

#include "gguf/byte_reader.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/formats/format.hpp"
#include "walker.hpp"

namespace onnxq::check_detail {
namespace {

using gguf_detail::load;

constexpr std::uint32_t kTypeString = 8, kTypeArray = 9, kTypeCount = 13;
constexpr std::uint64_t kMaxKeyBytes = 65535;          // GGUF specification
constexpr std::uint64_t kGgmlMaxString = 64ull << 20;  // ggml: GGUF_MAX_STRING_LENGTH
constexpr std::uint64_t kGgmlMaxArray = 64ull << 20;   // ggml: GGUF_MAX_ARRAY_ELEMENTS
constexpr std::uint64_t kGgmlMaxName = 64;             // ggml: GGML_MAX_NAME, with its NUL
constexpr std::uint64_t kGgmlMaxAlignment = 1 << 20;   // ggml: GGUF_MAX_ALIGNMENT
constexpr std::uint64_t kMinKvBytes = 8 + 4 + 1;       // as onnxq's reader
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;
constexpr int kMaxDepth = 8;  // onnxq's reader: kGgufMaxArrayDepth

std::string str(std::uint64_t v) { return std::to_string(v); }

std::uint64_t scalar_size(std::uint32_t t) {
  static constexpr std::uint8_t sizes[kTypeCount] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return t < kTypeCount ? sizes[t] : 0;
}

class Walker {
 public:
  Walker(std::span<const std::byte> bytes, Report& report, FileFacts& facts)
      : bytes_(bytes), report_(report), facts_(facts) {}

  void run() {
    if (!header()) return;
    if (!metadata()) return;
    alignment();
    if (!tensor_infos()) return;
    data_layout();
    content();
  }

 private:
  std::uint64_t remaining() const { return bytes_.size() - pos_; }

  template <class T>
  bool read(T& v, std::string_view what) {
    if (sizeof(T) > remaining()) {
      truncated(what, sizeof(T));
      return false;
    }
    v = load<T>(bytes_.data() + pos_, facts_.big_endian);
    pos_ += sizeof(T);
    return true;
  }

  void truncated(std::string_view what, std::uint64_t need) {
    report_.error("truncated", pos_,
                  "the file ends inside the " + std::string(what) + " (" + str(need) + " bytes needed, " +
                      str(remaining()) + " left); nothing after this point can be checked");
  }

  // A GGUF string: its length, then its bytes; false (and a finding) when it runs past the end.
  bool read_string(std::string_view& s, std::string_view what) {
    const std::uint64_t at = pos_;
    std::uint64_t n = 0;
    if (!read(n, std::string(what) + " length")) return false;
    if (n > remaining()) {
      report_.error("truncated", at,
                    std::string(what) + " length " + str(n) + " exceeds the " + str(remaining()) +
                        " bytes left in the file; nothing after this point can be checked");
      return false;
    }
    s = std::string_view(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }

  bool header() {
    if (bytes_.size() < 4) {
      truncated("magic", 4);
      return false;
    }
    const std::string_view magic(reinterpret_cast<const char*>(bytes_.data()), 4);
    if (magic == "FUGG") {
      report_.warning("fugg-magic", 0,
                      "magic 'FUGG': gguf-py writes it for big-endian files; not in the GGUF specification, "
                      "and ggml's reader refuses it");
    } else if (magic != "GGUF") {
      report_.error("bad-magic", 0, "the file does not start with the magic 'GGUF' (not a GGUF file)");
      return false;
    }
    pos_ = 4;
    std::uint32_t v = 0;
    if (!read(v, "version")) return false;
    const std::uint32_t v_be = gguf_detail::bswap(v);
    if (v == 2 || v == 3) {
      facts_.version = v;
    } else if (v_be == 2 || v_be == 3) {
      facts_.version = v_be;
      facts_.big_endian = true;
      report_.warning("big-endian", 4,
                      "big-endian file: ggml and llama.cpp on little-endian machines refuse it (onnxq reads it)");
    } else {
      report_.error("bad-version", 4,
                    (v == 1 || v_be == 1) ? std::string("GGUF version 1 is not supported; expected 2 or 3")
                                          : "unsupported GGUF version " + str(v) + ", expected 2 or 3");
      return false;
    }
    if (!read(n_tensors_, "tensor count") || !read(n_kv_, "metadata count")) return false;
    if (n_kv_ > remaining() / kMinKvBytes) {
      report_.error("impossible-count", 16,
                    "metadata count " + str(n_kv_) + " is impossible: only " + str(remaining()) +
                        " bytes left in the file; nothing after this point can be checked");
      return false;
    }
    return true;
  }

  bool metadata() {
    std::unordered_set<std::string_view> keys;
    for (std::uint64_t i = 0; i < n_kv_; ++i) {
      KeyValue kv;
      kv.offset = pos_;
      if (!read_string(kv.key, "metadata key")) return false;
      key_rules(kv);
      if (!keys.insert(kv.key).second)
        report_.error("duplicate-key", kv.offset, "duplicate metadata key (both readers reject it)").key = kv.key;
      const std::uint64_t type_at = pos_;
      if (!read(kv.type, "metadata value type")) return false;
      if (kv.type >= kTypeCount) {
        report_
            .error("bad-value-type", type_at,
                   "unknown value type " + str(kv.type) +
                       ", expected 0..12; its size is unknown, so nothing after it can be checked")
            .key = kv.key;
        return false;
      }
      kv.value_offset = pos_;
      ValueState state;
      if (!value(kv, kv.type, 0, state)) return false;
      value_findings(kv, state);
      facts_.metadata.push_back(kv);
    }
    return true;
  }

  void key_rules(const KeyValue& kv) {
    auto tag = [&](Finding& f) { f.key = kv.key; };
    if (kv.key.empty()) report_.error("empty-key", kv.offset, "empty metadata key (both readers reject it)");
    if (kv.key.size() > kMaxKeyBytes)
      tag(report_.error("key-too-long", kv.offset,
                        "metadata key of " + str(kv.key.size()) +
                            " bytes: the GGUF specification allows at most 65535 (ggml accepts it)"));
    const auto non_ascii = std::find_if(kv.key.begin(), kv.key.end(), [](char c) { return (c & 0x80) != 0; });
    if (non_ascii != kv.key.end())
      tag(report_.error("non-ascii-key", kv.offset,
                        "metadata key is not ASCII (byte " + str(non_ascii - kv.key.begin()) +
                            "): the GGUF specification requires ASCII keys (ggml accepts them)"));
    if (auto issue = find_control(kv.key, false))
      tag(report_.warning("control-chars", kv.offset,
                          "metadata key holds " + issue->what + " at byte " + str(issue->at)));
  }

  struct ValueState {
    std::uint64_t strings_with_controls = 0, strings_bad_utf8 = 0;
    std::optional<TextIssue> first_control, first_utf8;
    std::uint64_t first_control_index = 0, first_utf8_index = 0;
    std::uint64_t index = 0;  // element index in the top-level array
    bool nested_reported = false;
  };

  // Walks one value at pos_; false when the rest of the file cannot be located.
  bool value(KeyValue& kv, std::uint32_t type, int depth, ValueState& st) {
    auto tag = [&](Finding& f) -> Finding& {
      f.key = kv.key;
      return f;
    };
    if (type == kTypeString) {
      const std::uint64_t at = pos_;
      std::string_view s;
      if (!read_string(s, "string value")) {
        report_.findings().back().key = kv.key;
        return false;
      }
      if (depth == 0) kv.text = s;
      if (s.size() > kGgmlMaxString)
        tag(report_.error("string-too-long", at,
                          "string of " + str(s.size()) + " bytes: ggml's reader refuses strings over 64 MiB"));
      if (auto issue = find_control(s, /*allow_layout=*/true)) {
        if (st.strings_with_controls++ == 0) {
          st.first_control = issue;
          st.first_control_index = st.index;
        }
      }
      if (auto issue = find_invalid_utf8(s)) {
        if (st.strings_bad_utf8++ == 0) {
          st.first_utf8 = issue;
          st.first_utf8_index = st.index;
        }
      }
      return true;
    }
    if (type != kTypeArray) {
      const std::uint64_t n = scalar_size(type);
      if (n > remaining()) {
        tag(report_.error("truncated", pos_, "the file ends inside a metadata value; nothing after it can be checked"));
        return false;
      }
      if (depth == 0) {
        std::uint64_t bits = 0;
        switch (n) {
          case 1: bits = load<std::uint8_t>(bytes_.data() + pos_, facts_.big_endian); break;
          case 2: bits = load<std::uint16_t>(bytes_.data() + pos_, facts_.big_endian); break;
          case 4: bits = load<std::uint32_t>(bytes_.data() + pos_, facts_.big_endian); break;
          default: bits = load<std::uint64_t>(bytes_.data() + pos_, facts_.big_endian); break;
        }
        kv.bits = bits;
      }
      pos_ += n;
      return true;
    }
    const std::uint64_t at = pos_;
    if (depth >= kMaxDepth) {
      tag(report_.error("array-too-deep", at,
                        "arrays nested deeper than 8 levels (onnxq's reader rejects them); nothing after this "
                        "point can be checked"));
      return false;
    }
    std::uint32_t elem = 0;
    std::uint64_t count = 0;
    if (!read(elem, "array element type") || !read(count, "array length")) {
      report_.findings().back().key = kv.key;
      return false;
    }
    if (elem >= kTypeCount) {
      tag(report_.error(
          "bad-value-type", at,
          "unknown array element type " + str(elem) + ", expected 0..12; nothing after it can be checked"));
      return false;
    }
    if (depth == 0) {
      kv.elem_type = elem;
      kv.count = count;
    }
    if (elem == kTypeArray && !st.nested_reported) {
      st.nested_reported = true;
      tag(report_.error("nested-array", at,
                        "array of arrays: ggml's reader refuses them (the GGUF specification and onnxq allow them)"));
    }
    if (count > kGgmlMaxArray)
      tag(report_.error("array-too-long", at,
                        "array of " + str(count) + " elements: ggml's reader refuses more than 67108864"));
    const std::uint64_t size = scalar_size(elem);
    if (size != 0) {
      const auto total = checked_mul(count, size);
      if (!total || *total > remaining()) {
        tag(report_.error("truncated", at,
                          "array of " + str(count) + " elements needs more than the " + str(remaining()) +
                              " bytes left in the file; nothing after it can be checked"));
        return false;
      }
      pos_ += *total;
      return true;
    }
    const std::uint64_t min_size = elem == kTypeString ? 8 : 12;
    if (count > remaining() / min_size) {
      tag(report_.error("truncated", at,
                        "array of " + str(count) + " elements needs more than the " + str(remaining()) +
                            " bytes left in the file; nothing after it can be checked"));
      return false;
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      if (depth == 0) st.index = i;
      if (!value(kv, elem, depth + 1, st)) return false;
    }
    return true;
  }

  void value_findings(const KeyValue& kv, const ValueState& st) {
    const bool array = kv.type == kTypeArray;
    auto where = [&](std::uint64_t index) {
      return array ? " (element " + str(index) + " first; " : std::string(" (");
    };
    if (st.first_control) {
      std::string msg = "string value holds " + st.first_control->what + where(st.first_control_index) + "byte " +
                        str(st.first_control->at);
      if (array) msg += "; " + str(st.strings_with_controls) + " strings in all";
      report_.warning("control-chars", kv.offset, msg + ")").key = kv.key;
    }
    if (st.first_utf8) {
      std::string msg = "string value is not UTF-8: " + st.first_utf8->what + where(st.first_utf8_index) + "byte " +
                        str(st.first_utf8->at);
      if (array) msg += "; " + str(st.strings_bad_utf8) + " strings in all";
      report_.warning("invalid-utf8", kv.offset, msg + ")").key = kv.key;
    }
  }

  void alignment() {
    for (const KeyValue& kv : facts_.metadata) {
      if (kv.key != "general.alignment") continue;
      auto tag = [&](Finding& f) { f.key = kv.key; };
      if (kv.type != 4) {
        tag(report_.error("alignment-type", kv.offset,
                          "general.alignment must be a u32 (both readers reject other types); checking with 32"));
        return;
      }
      const std::uint64_t a = kv.bits;
      if (a == 0 || !std::has_single_bit(a)) {
        tag(report_.error("bad-alignment", kv.offset,
                          "general.alignment is " + str(a) + ", expected a power of two; checking with 32"));
        return;
      }
      if (a > kGgmlMaxAlignment)
        tag(report_.error("alignment-too-large", kv.offset,
                          "general.alignment is " + str(a) + ": both readers refuse more than 1 MiB"));
      else if (a != 32)
        tag(report_.warning("unusual-alignment", kv.offset,
                            "general.alignment is " + str(a) + ": legal, but writers use 32 (the default)"));
      facts_.alignment = a;
    }
  }

  bool tensor_infos() {
    const std::uint64_t at = pos_;
    if (n_tensors_ > remaining() / kMinTensorInfoBytes) {
      report_.error("impossible-count", 8,
                    "tensor count " + str(n_tensors_) + " is impossible: only " + str(remaining()) +
                        " bytes left after the metadata (at " + str(at) + "); nothing after it can be checked");
      return false;
    }
    std::unordered_set<std::string_view> names, c_names;  // c_names: up to the first NUL, as ggml sees them
    for (std::uint64_t i = 0; i < n_tensors_; ++i) {
      TensorRecord t;
      t.offset = pos_;
      if (!read_string(t.name, "tensor name")) return false;
      auto tag = [&](Finding& f) { f.tensor = t.name; };
      if (t.name.size() >= kGgmlMaxName)
        tag(report_.error(
            "tensor-name-too-long", t.offset,
            "tensor name of " + str(t.name.size()) + " bytes: both readers refuse 64 or more (ggml's GGML_MAX_NAME)"));
      if (auto issue = find_control(t.name, false))
        tag(report_.warning("control-chars", t.offset,
                            "tensor name holds " + issue->what + " at byte " + str(issue->at)));
      if (!names.insert(t.name).second)
        tag(report_.error("duplicate-tensor", t.offset, "duplicate tensor name (both readers reject it)"));
      else if (!c_names.insert(t.name.substr(0, t.name.find('\0'))).second)
        tag(report_.error("duplicate-tensor", t.offset,
                          "tensor name equal to an earlier one up to its NUL byte: ggml's reader compares names as C "
                          "strings and refuses it"));
      const std::uint64_t dims_at = pos_;
      std::uint32_t n_dims = 0;
      if (!read(n_dims, "tensor n_dims")) return false;
      bool known = true;  // its byte size can be computed
      if (n_dims < 1 || n_dims > 4) {
        tag(report_.error("bad-n-dims", dims_at,
                          "n_dims " + str(n_dims) + ", expected 1..4" +
                              (n_dims == 0 ? " (onnxq's reader rejects 0; ggml reads it as a scalar)" : "")));
        known = false;
        if (n_dims > remaining() / 8) {
          truncated("tensor dimensions", static_cast<std::uint64_t>(n_dims) * 8);
          return false;
        }
      }
      t.ne.resize(n_dims);
      for (std::uint32_t d = 0; d < n_dims; ++d) {
        const std::uint64_t dim_at = pos_;
        if (!read(t.ne[d], "tensor dimension")) return false;
        if (t.ne[d] > static_cast<std::uint64_t>(INT64_MAX)) {
          tag(report_.error("negative-dimension", dim_at,
                            "dimension " + str(d) + " is " + std::to_string(static_cast<std::int64_t>(t.ne[d]))));
          known = false;
        }
      }
      const std::uint64_t type_at = pos_;
      if (!read(t.type, "tensor type")) return false;
      t.format = find_format_by_ggml_type(t.type);
      if (!t.format) {
        tag(report_.error(
            "bad-tensor-type", type_at,
            std::string(is_removed_ggml_type(t.type) ? "removed" : "unknown") + " ggml type " + str(t.type)));
        known = false;
      }
      const std::uint64_t offset_at = pos_;
      if (!read(t.offset_in_data, "tensor data offset")) return false;
      if (known) known = tensor_size(t, dims_at, tag);
      if (t.offset_in_data % facts_.alignment != 0)
        tag(report_.error(
            "unaligned-offset", offset_at,
            "data offset " + str(t.offset_in_data) + " is not a multiple of the alignment " + str(facts_.alignment)));
      t.size_known = known;
      facts_.tensors.push_back(t);
    }
    infos_end_ = pos_;
    return true;
  }

  template <class Tag>
  bool tensor_size(TensorRecord& t, std::uint64_t dims_at, Tag& tag) {
    const BlockFormat& f = *t.format;
    bool ok = true;
    if (t.ne[0] % f.block_elements != 0) {
      tag(report_.error("not-block-multiple", dims_at,
                        "ne0 = " + str(t.ne[0]) + " is not a multiple of " + str(f.block_elements) + " for " +
                            std::string(f.gguf_name)));
      ok = false;
    }
    std::optional<std::uint64_t> count = 1;
    for (std::uint64_t d : t.ne)
      if (count) count = checked_mul(*count, d);
    if (!count || *count >= static_cast<std::uint64_t>(INT64_MAX)) {
      tag(report_.error("element-count-overflow", dims_at, "the element count overflows 63 bits"));
      return false;
    }
    std::optional<std::uint64_t> size = checked_mul(t.ne[0] / f.block_elements, f.block_bytes);
    for (std::size_t d = 1; d < t.ne.size() && size; ++d) size = checked_mul(*size, t.ne[d]);
    if (!size || *size > static_cast<std::uint64_t>(INT64_MAX)) {
      tag(report_.error("byte-size-overflow", dims_at, "the byte size overflows 63 bits"));
      return false;
    }
    t.byte_size = *size;
    return ok;
  }

  void data_layout() {
    auto data = checked_align_up(infos_end_, facts_.alignment);
    if (!data) {
      report_.error("data-outside-file", infos_end_, "the data section offset overflows 64 bits");
      return;
    }
    facts_.data_offset = *data;
    const std::uint64_t size = bytes_.size();
    const bool any_data = std::any_of(facts_.tensors.begin(), facts_.tensors.end(),
                                      [](const TensorRecord& t) { return t.size_known && t.byte_size > 0; });
    if (!facts_.tensors.empty() && *data > size) {
      report_.error("data-outside-file", infos_end_,
                    "the data section would start at " + str(*data) + ", past the end of the " + str(size) +
                        "-byte file" + (any_data ? "" : " (ggml's reader refuses it)"));
      return;
    }
    nonzero_run(infos_end_, std::min<std::uint64_t>(*data, size), "the padding before the data section");
    // Where each tensor lies, as onnxq's reader checks it.
    std::vector<const TensorRecord*> placed;
    for (TensorRecord& t : facts_.tensors) {
      if (!t.size_known) continue;
      auto begin = checked_add(*data, t.offset_in_data);
      auto end = begin ? checked_add(*begin, t.byte_size) : std::nullopt;
      if (!end || (t.byte_size > 0 && *end > size)) {
        report_
            .error("data-outside-file", t.offset,
                   "data [" + str(t.offset_in_data) + ", +" + str(t.byte_size) + ") relative to the data section at " +
                       str(*data) + " lies outside the " + str(size) + "-byte file")
            .tensor = t.name;
        continue;
      }
      t.file_offset = *begin;
      t.placed = true;
      placed.push_back(&t);
    }
    if (placed.size() != facts_.tensors.size()) return;  // ggml's layout rules need every tensor
    ggml_layout(*data, size);
  }

  // ggml's reader demands that tensor i starts where tensor i-1 ends, padded to the alignment.
  // Each departure is reported for what it is: out of order, overlapping, or a gap.
  void ggml_layout(std::uint64_t data, std::uint64_t size) {
    const std::uint64_t align = facts_.alignment;
    const auto& ts = facts_.tensors;
    // With no tensors the data section is empty and ggml reads nothing from it, so the file may
    // end before its padded start (gguf-py's writer leaves vocab-only files so).
    if (ts.empty()) return;
    const std::size_t before = report_.findings().size();
    for (std::size_t i = 1; i < ts.size(); ++i)
      if (ts[i].offset_in_data < ts[i - 1].offset_in_data)
        report_
            .error("data-out-of-order", ts[i].offset,
                   "data at " + str(ts[i].offset_in_data) + " lies before that of the previous tensor (" +
                       str(ts[i - 1].offset_in_data) + "): ggml's reader requires tensor-info order")
            .tensor = ts[i].name;
    // Overlaps and gaps, in the order the bytes lie.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].byte_size > 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ts[a].offset_in_data < ts[b].offset_in_data; });
    std::uint64_t end = 0;     // padded end of the data so far
    std::uint64_t reach = 0;   // unpadded end of the data so far
    std::size_t furthest = 0;  // the tensor that reaches `reach`
    bool first = true;
    for (std::size_t i : order) {
      const TensorRecord& t = ts[i];
      if (!first && t.offset_in_data < reach)
        report_
            .error("data-overlap", t.offset,
                   "data [" + str(t.offset_in_data) + ", +" + str(t.byte_size) + ") overlaps that of tensor #" +
                       str(furthest) + " in tensor-info order: ggml's reader refuses it")
            .tensor = t.name;
      else if (t.offset_in_data > end)
        report_
            .error("data-gap", t.offset,
                   str(t.offset_in_data - end) +
                       " unused bytes before this tensor's data: ggml's reader "
                       "refuses gaps")
            .tensor = t.name;
      const std::uint64_t t_end = t.offset_in_data + t.byte_size;
      if (first || t_end > reach) {
        reach = t_end;
        furthest = i;
      }
      first = false;
      const std::uint64_t padded_end = checked_align_up(t_end, align).value_or(t_end);
      if (padded_end > end) {
        nonzero_run(data + std::max(end, t_end), data + std::min(padded_end, size - data),
                    "the padding after a tensor's data");
        end = padded_end;
      }
    }
    // The exact chain ggml computes.
    std::uint64_t expected = 0;
    bool chain = true;
    for (const TensorRecord& t : ts) {
      const auto padded = checked_align_up(t.byte_size, align);
      const auto next = padded ? checked_add(expected, *padded) : std::nullopt;
      if (t.offset_in_data != expected || !next) {
        if (report_.findings().size() == before)
          report_
              .error("data-misplaced", t.offset,
                     "data offset " + str(t.offset_in_data) + ", but ggml's reader expects " + str(expected) +
                         " (the previous tensors' padded sizes)")
              .tensor = t.name;
        chain = false;
        break;
      }
      expected = *next;
    }
    // ggml reads the whole padded data section, to the padded end of the last tensor.
    const std::uint64_t section_end = data + (chain ? expected : end);
    if (chain && section_end > size)
      report_.error("data-section-truncated", size,
                    "the file ends " + str(section_end - size) +
                        " bytes before the padded end of the data section: ggml's reader refuses it when it loads "
                        "the data (as llama-gguf-hash does); llama.cpp's mmap loader accepts it");
    else if (section_end < size)
      report_.warning("trailing-bytes", section_end,
                      str(size - section_end) + " bytes after the padded end of the data section belong to no tensor");
  }

  void nonzero_run(std::uint64_t from, std::uint64_t to, std::string_view what) {
    for (std::uint64_t i = from; i < to && i < bytes_.size(); ++i)
      if (bytes_[i] != std::byte{0}) {
        report_.warning("nonzero-padding", i,
                        "non-zero byte in " + std::string(what) + ": unused bytes that hold data");
        return;
      }
  }

  void content() { content_rules(facts_, report_); }

  std::span<const std::byte> bytes_;
  Report& report_;
  FileFacts& facts_;
  std::uint64_t pos_ = 0;
  std::uint64_t n_tensors_ = 0, n_kv_ = 0;
  std::uint64_t infos_end_ = 0;
};

}  // namespace

void walk_file(std::span<const std::byte> bytes, Report& report, FileFacts& facts) {
  Walker(bytes, report, facts).run();
}

}  // namespace onnxq::check_detail

// check_file: the GGUF parser with a listener that records every problem as an error finding and
// adds, at each record it sees, what ggml's reader and the GGUF specification refuse beyond
// onnxq's reader, and the text that is risky to print.
#include "file_rules.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "gguf/parser.hpp"
#include "onnxq/gguf/rules.hpp"

namespace onnxq::check_detail {
namespace {

class FileRules final : public gguf_detail::ParseListener {
 public:
  FileRules(std::span<const std::byte> bytes, Report& report) : bytes_(bytes), report_(report) {}

  void problem(const gguf_detail::Problem& p) override {
    Finding& f = report_.error(p.code, p.offset, p.finding);
    f.key = p.key;
    f.tensor = p.tensor;
  }
  bool wants_records() const override { return true; }

  void unknown_type(const TensorInfo& t) override {
    report_
        .warning("unknown-tensor-type", t.info_offset,
                 "ggml type " + std::to_string(t.ggml_type) +
                     " is not one onnxq knows: the tensor is listed and hashed, not decoded; its size (" +
                     std::to_string(t.byte_size) + " bytes, padding included) is inferred from the layout")
        .tensor = t.name;
  }

  void magic(bool fugg) override {
    if (fugg)
      report_.warning("fugg-magic", 0,
                      "magic 'FUGG': gguf-py writes it for big-endian files; not in the GGUF specification, "
                      "and ggml's reader refuses it");
  }
  void version(bool big_endian) override {
    if (big_endian)
      report_.warning("big-endian", 4,
                      "big-endian file: ggml and llama.cpp on little-endian machines refuse it (onnxq reads it)");
  }

  void key(std::uint64_t offset, std::string_view key) override {
    value_ = {};
    key_ = key;
    auto tag = [&](Finding& f) { f.key = key; };
    if (key.size() > kGgufSpecMaxKeyBytes)
      tag(report_.error("key-too-long", offset,
                        "metadata key of " + std::to_string(key.size()) +
                            " bytes: the GGUF specification allows at most " + std::to_string(kGgufSpecMaxKeyBytes) +
                            " (ggml accepts it)"));
    if (const auto non_ascii = gguf_first_non_ascii(key))
      tag(report_.error("non-ascii-key", offset,
                        "metadata key is not ASCII (byte " + std::to_string(*non_ascii) +
                            "): the GGUF specification requires ASCII keys (ggml accepts them)"));
    if (auto issue = find_control(key, false))
      tag(report_.warning("control-chars", offset,
                          "metadata key holds " + issue->what + " at byte " + std::to_string(issue->at)));
  }

  void string(std::uint64_t offset, std::string_view text, std::uint64_t element) override {
    if (text.size() > kGgmlMaxStringBytes)
      error_for_key("string-too-long", offset,
                    "string of " + std::to_string(text.size()) + " bytes: ggml's reader refuses strings over 64 MiB");
    if (auto issue = find_control(text, /*allow_layout=*/true))
      if (value_.with_controls++ == 0) value_.first_control = {*issue, element};
    if (auto issue = find_invalid_utf8(text))
      if (value_.bad_utf8++ == 0) value_.first_utf8 = {*issue, element};
  }

  void array(std::uint64_t offset, GgufType element_type, std::uint64_t count, int /*depth*/) override {
    if (element_type == GgufType::Array && !value_.nested_reported) {
      value_.nested_reported = true;
      error_for_key("nested-array", offset,
                    "array of arrays: ggml's reader refuses them (the GGUF specification and onnxq's reader allow "
                    "them; onnxq does not write them)");
    }
    if (count > kGgmlMaxArrayElements)
      error_for_key("array-too-long", offset,
                    "array of " + std::to_string(count) + " elements: ggml's reader refuses more than " +
                        std::to_string(kGgmlMaxArrayElements));
  }

  // What the strings of a value held, reported once for the value.
  void key_value(const GgufKeyValue& kv) override {
    const bool array = kv.value.type() == GgufType::Array;
    auto report = [&](const char* code, const std::string& what, const FirstIssue& first, std::uint64_t strings) {
      std::string msg = what + first.issue.what +
                        (array ? " (element " + std::to_string(first.element) + " first; " : " (") + "byte " +
                        std::to_string(first.issue.at);
      if (array) msg += "; " + std::to_string(strings) + " strings in all";
      report_.warning(code, kv.offset, msg + ")").key = kv.key;
    };
    if (value_.first_control)
      report("control-chars", "string value holds ", *value_.first_control, value_.with_controls);
    if (value_.first_utf8) report("invalid-utf8", "string value is not UTF-8: ", *value_.first_utf8, value_.bad_utf8);
  }

  void alignment(const GgufKeyValue& kv) override {
    const std::uint64_t a = kv.value.raw_bits();
    if (a != kGgufDefaultAlignment)
      report_
          .warning("unusual-alignment", kv.offset,
                   "general.alignment is " + std::to_string(a) + ": legal, but writers use " +
                       std::to_string(kGgufDefaultAlignment) + " (the default)")
          .key = kv.key;
  }

  void tensor_name(std::uint64_t offset, std::string_view name) override {
    if (auto issue = find_control(name, false))
      report_
          .warning("control-chars", offset,
                   "tensor name holds " + issue->what + " at byte " + std::to_string(issue->at))
          .tensor = name;
  }
  // ggml compares tensor names as C strings: up to the first NUL.
  void distinct_tensor_name(std::uint64_t offset, std::string_view name) override {
    if (!c_names_.insert(name.substr(0, name.find('\0'))).second)
      report_
          .error("duplicate-tensor", offset,
                 "tensor name equal to an earlier one up to its NUL byte: ggml's reader compares names as C "
                 "strings and refuses it")
          .tensor = name;
  }

  void data_start(std::uint64_t infos_end, std::uint64_t data_offset) override {
    nonzero_padding(bytes_, infos_end, data_offset, "the padding before the data section", report_);
  }
  void tensors_placed(const GgufFile& shard) override { ggml_layout_rules(shard, report_); }

 private:
  void error_for_key(const char* code, std::uint64_t offset, std::string message) {
    report_.error(code, offset, std::move(message)).key = key_;
  }

  struct FirstIssue {
    TextIssue issue;
    std::uint64_t element;  // its top-level array element
  };
  struct ValueState {
    std::uint64_t with_controls = 0, bad_utf8 = 0;  // strings with each issue
    std::optional<FirstIssue> first_control, first_utf8;
    bool nested_reported = false;
  };

  std::span<const std::byte> bytes_;
  Report& report_;
  std::string_view key_;  // the record being read
  ValueState value_;      // what its value's strings held so far
  std::unordered_set<std::string_view> c_names_;
};

}  // namespace

bool check_file(std::span<const std::byte> bytes, const std::string& name, Report& report, GgufFile& shard) {
  FileRules rules(bytes, report);
  const bool complete = GgufParser::parse(bytes, name, rules, shard);
  if (complete) content_rules(shard, report);
  return complete;
}

const GgufKeyValue* find_key(const GgufFile& shard, std::string_view key) {
  for (const GgufKeyValue& kv : shard.metadata)
    if (kv.key == key) return &kv;
  return nullptr;
}

}  // namespace onnxq::check_detail

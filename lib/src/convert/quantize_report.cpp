// How the quantizer's plan and report are named and written as JSON, for every front end.
#include <nlohmann/json.hpp>

#include "onnxq/convert/model_quantizer.hpp"
#include "onnxq/convert/quantize_plan.hpp"
#include "onnxq/model/file_type.hpp"

namespace onnxq {

const BlockFormat* find_override_type(std::string_view name) {
  const BlockFormat* f = find_format(name);
  if (f == nullptr || (!f->is_block_format() && !dtype_info(f->plain_dtype).is_float)) return nullptr;
  return f;
}

std::string ggml_type_display_name(std::uint32_t ggml_type) {
  const BlockFormat* f = find_format_by_ggml_type(ggml_type);
  return f ? std::string(f->gguf_name) : "type " + std::to_string(ggml_type);
}

std::string model_quantize_report_json(const ModelQuantizeReport& r, const std::string& input,
                                       const std::string& output, bool dry_run, const std::string& type) {
  using Json = nlohmann::ordered_json;
  Json tensors = Json::array();
  for (const QuantizedTensorRow& t : r.tensors)
    tensors.push_back({{"name", t.name},
                       {"shape", t.ne},
                       {"from", ggml_type_display_name(t.plan.from_type)},
                       {"to", ggml_type_display_name(t.plan.to_type)},
                       {"copied", t.plan.copy},
                       {"bytes_before", t.plan.bytes_before},
                       {"bytes_after", t.plan.bytes_after},
                       {"importance", t.importance},
                       {"reason", t.plan.reason}});
  const Json out{{"input", input},
                 {"output", dry_run ? Json() : Json(output)},
                 {"dry_run", dry_run},
                 {"input_kind", r.input_kind},
                 {"architecture", r.architecture},
                 {"architecture_known", r.architecture_known},
                 {"type", type},
                 {"preset", r.preset},
                 {"file_type", r.file_type},
                 {"file_type_name", std::string(llama_file_type_name(r.file_type))},
                 {"importance_entries", r.importance_entries},
                 {"tensors", tensors},
                 {"elements", r.elements},
                 {"bytes_before", r.bytes_before},
                 {"bytes_after", r.bytes_after},
                 {"bits_per_weight_before", r.bits_per_weight_before()},
                 {"bits_per_weight_after", r.bits_per_weight_after()},
                 {"file_size", r.file_size}};
  // Names come from the input and need not be UTF-8: bad bytes are replaced, never thrown on.
  return out.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace onnxq

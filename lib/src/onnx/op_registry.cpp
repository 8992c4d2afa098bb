// The operator registry: one row per operator version onnxq runs, with the inputs, outputs and
// attributes its operator text defines and the kernel that runs it (op_kernels.cpp).
#include <algorithm>

#include "onnx/op_kernels.hpp"
#include "onnxq/onnx/node_runner.hpp"

namespace onnxq {
namespace {

using A = AttributeType;

constexpr std::string_view kUnsqueezeAttrInputs[] = {"data"};
constexpr std::string_view kUnsqueezeInputs[] = {"data", "axes"};
constexpr std::string_view kUnsqueezeOutputs[] = {"expanded"};
constexpr OpAttributeSchema kUnsqueezeAxesAttr[] = {{"axes", A::Ints, true}};

constexpr std::string_view kOneHotInputs[] = {"indices", "depth", "values"};
constexpr std::string_view kOneHotOutputs[] = {"output"};
constexpr OpAttributeSchema kOneHotAttrs[] = {{"axis", A::Int, false}};

constexpr std::string_view kUnpackInputs[] = {"X", "count"};
constexpr std::string_view kUnpackOutputs[] = {"Y"};
constexpr OpAttributeSchema kUnpackAttrs[] = {
    {"axis", A::Int, false}, {"bits", A::Int, false}, {"group_size", A::Int, false}, {"radix", A::Int, false}};

// Identity and Cast carry an exported model's plain tensors to its outputs (onnx/gguf_export.cpp).
// Later versions of both only widened the types they accept.
constexpr std::string_view kUnaryInputs[] = {"input"};
constexpr std::string_view kUnaryOutputs[] = {"output"};
constexpr OpAttributeSchema kCastAttrs[] = {{"to", A::Int, true}};

constexpr std::string_view kDequantizePackedInputs[] = {"x"};
constexpr std::string_view kDequantizePackedOutputs[] = {"y"};
constexpr OpAttributeSchema kDequantizePackedAttrs[] = {
    {"format", A::String, true}, {"output_dtype", A::Int, false}, {"shape", A::Ints, true}};

using namespace detail;  // the kernels

constexpr OpSchema kOperators[] = {
    {"Cast", 6, kUnaryInputs, kUnaryOutputs, kCastAttrs, &run_cast},
    {"DequantizePacked", 29, kDequantizePackedInputs, kDequantizePackedOutputs, kDequantizePackedAttrs,
     &run_dequantize_packed_29},
    {"Identity", 1, kUnaryInputs, kUnaryOutputs, {}, &run_identity},
    {"OneHot", 9, kOneHotInputs, kOneHotOutputs, kOneHotAttrs, &run_onehot_9},
    {"OneHot", 11, kOneHotInputs, kOneHotOutputs, kOneHotAttrs, &run_onehot_11},  // negative indices from the back
    {"Unpack", 29, kUnpackInputs, kUnpackOutputs, kUnpackAttrs, &run_unpack_29},
    {"Unsqueeze", 1, kUnsqueezeAttrInputs, kUnsqueezeOutputs, kUnsqueezeAxesAttr, &run_unsqueeze_1},  // axes >= 0
    {"Unsqueeze", 11, kUnsqueezeAttrInputs, kUnsqueezeOutputs, kUnsqueezeAxesAttr, &run_unsqueeze_11},
    {"Unsqueeze", 13, kUnsqueezeInputs, kUnsqueezeOutputs, {}, &run_unsqueeze_13},  // axes became an input
};

// The versions the operator texts in the spec describe.
struct DefaultOpset {
  std::string_view op_type;
  std::int64_t opset;
};
constexpr DefaultOpset kDefaultOpsets[] = {{"DequantizePacked", 29}, {"OneHot", 9}, {"Unpack", 29}, {"Unsqueeze", 23}};

}  // namespace

std::span<const OpSchema> operator_registry() { return kOperators; }

const OpSchema* find_op_schema(std::string_view op_type, std::int64_t opset) {
  const OpSchema* best = nullptr;
  for (const OpSchema& s : operator_registry())
    if (s.op_type == op_type && s.since_version <= opset && (!best || s.since_version > best->since_version)) best = &s;
  return best;
}

std::optional<std::string> unsupported_reason(const OnnxNode& node, std::int64_t opset) {
  if (!is_default_onnx_domain(node.domain)) return "op " + node.domain + "." + node.op_type + " not supported";
  std::string versions;
  for (const OpSchema& s : operator_registry())
    if (s.op_type == node.op_type) versions += (versions.empty() ? "" : ", ") + std::to_string(s.since_version);
  if (versions.empty()) return "op " + node.op_type + " not supported";
  const OpSchema* schema = find_op_schema(node.op_type, opset);
  if (!schema)
    return node.op_type + " at opset " + std::to_string(opset) + " not supported (onnxq has versions " + versions + ")";
  if (!schema->kernel)
    return "op " + node.op_type + "-" + std::to_string(schema->since_version) +
           " is not built into this onnxq (no kernel)";
  return std::nullopt;
}

std::optional<std::int64_t> default_opset(std::string_view op_type) {
  for (const auto& d : kDefaultOpsets)
    if (d.op_type == op_type) return d.opset;
  return std::nullopt;
}

}  // namespace onnxq

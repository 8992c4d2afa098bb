#include "tensor_selection.hpp"

#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "text_table.hpp"

namespace onnxq::cli {

std::vector<const TensorInfo*> decodable_tensors(const GgufModel& model, std::vector<const TensorInfo*> chosen,
                                                 bool skip_unknown) {
  std::vector<const TensorInfo*> kept;
  std::string skipped;
  for (const TensorInfo* t : chosen) {
    if (t->format) {
      kept.push_back(t);
      continue;
    }
    const std::string what = "'" + escape_for_terminal(t->name) + "' (ggml type " + std::to_string(t->ggml_type) + ")";
    if (!skip_unknown)
      fail(ErrorKind::Unsupported, model.primary().path + ": tensor " + what +
                                       " is of a type onnxq does not know and cannot be decoded; --skip-unknown "
                                       "leaves such tensors out");
    skipped += (skipped.empty() ? "" : ", ") + what;
  }
  if (!skipped.empty()) {
    if (kept.empty())
      fail(ErrorKind::Unsupported,
           model.primary().path + ": every chosen tensor is of a type onnxq does not know: " + skipped);
    log::warn("skipped {} tensor(s) of types onnxq does not know: {}", chosen.size() - kept.size(), skipped);
  }
  return kept;
}

}  // namespace onnxq::cli

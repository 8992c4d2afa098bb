// onnxq report: one self-contained HTML page that pictures a model (which types went where, where
// the bytes go, what chosen tensors' values look like, how far each tensor is from a reference).
// The page's data is one JSON object (report_json), inlined into a page template that the build
// embeds (report_page); the page makes no request (its Content-Security-Policy forbids any).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "onnxq/gguf/model.hpp"

namespace onnxq {

struct ReportOptions {
  std::string model_label;               // the model as the user named it (a path, a URL)
  const GgufModel* reference = nullptr;  // --compare: every shared tensor is decoded and compared
  std::string reference_label;
  std::string values_glob;  // tensors whose values are decoded (shell glob); empty: none
  unsigned histogram_bins = 64;
  int threads = 0;                                  // 0: all cores
  std::function<void(std::uint64_t)> on_bytes;      // progress: tensor bytes decoded, from any thread
  std::function<void(std::string_view)> on_tensor;  // the tensor about to be decoded
};

// The page's data. Without a reference and a values glob only the header is read. Values are
// UTF-8: bytes of the file that are not are replaced (U+FFFD).
std::string report_json(const GgufModel& model, const ReportOptions& options);

// The tensor bytes report_json decodes (a front end's progress total): those of the tensors that
// values_glob chooses and onnxq can decode, and those of each tensor the reference has too, of the
// same shape, both of types onnxq knows.
std::uint64_t report_decoded_bytes(const GgufModel& model, const ReportOptions& options);

// The page: the template with `json` inlined where no text of it can end the script element
// ('<' , '>' and '&' written as \u escapes).
std::string report_page(std::string_view json);

// report_page(report_json(...)) written to `path` through an AtomicFile: complete or absent.
void write_report(const std::string& path, const GgufModel& model, const ReportOptions& options);

}  // namespace onnxq

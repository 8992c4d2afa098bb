// ONNX backend node tests: a case folder holds model.onnx (one node) and
// test_data_set_N/input_K.pb, output_K.pb. This finds cases and runs them; the results are
// plain data, and how they are reported is up to the caller.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/io/atomic_file.hpp"
#include "onnxq/onnx/onnx_io.hpp"
#include "onnxq/onnx/tensor_compare.hpp"

namespace onnxq {

enum class CaseStatus { Pass, Fail, Skip };

struct DataSetResult {
  std::string name;  // "test_data_set_0"
  CaseStatus status = CaseStatus::Pass;
  std::string reason;  // why it failed, as the error said it (any bytes); empty for PASS
};

struct CaseResult {
  std::string name;  // the folder's name
  std::string path;
  CaseStatus status = CaseStatus::Pass;
  std::string reason;   // why it failed or was skipped, as the error said it (any bytes); empty for PASS
  std::string op_type;  // empty when the model did not load
  std::string domain;
  std::int64_t opset = 0;
  std::vector<DataSetResult> data_sets;
  double seconds = 0;
};

struct ConformanceOptions {
  std::optional<Tolerance> tolerance;  // nullopt: floats bit-exact
};

// Case folders under `path`: `path` itself when it holds model.onnx, else every folder below
// it that does (not looking inside a case), sorted by path; a path to a model.onnx file means
// its folder. Throws Io when `path` is not a readable directory.
std::vector<std::string> find_case_folders(const std::string& path);

// fnmatch-style glob (*, ?, [...]) against the case name.
bool case_name_matches(const std::string& name, const std::string& glob);

// The case folders under each of `paths` (as above), each once where paths overlap, in order.
// Throws InvalidInput naming a path under which there is none.
std::vector<std::string> find_case_folders(const std::vector<std::string>& paths);

// Runs every test_data_set_* of the case. Never throws for anything the files contain:
// an unloadable model or data set is a FAIL with the reason, an operator onnxq lacks a SKIP.
CaseResult run_conformance_case(const std::string& case_folder, const ConformanceOptions& options);

// Writes a case folder as run_conformance_case reads it: DIR/test_data_set_0/input_K.pb and
// output_K.pb (`inputs` and `outputs` line up with model.inputs and model.outputs, whose names they
// take), then DIR/model.onnx last, so that a folder is a case only once its data are complete. Each
// file is made by `create` (AtomicFile::create when empty) and named when complete. Returns the
// other test_data_set_* folders DIR already held, which would be run against the new model.
using CaseFileCreator = std::function<AtomicFile(const std::string& path)>;
std::vector<std::string> write_case_folder(const std::string& dir, const OnnxModel& model,
                                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                           TensorProtoEncoding encoding, const CaseFileCreator& create = {});

std::string_view case_status_name(CaseStatus status);  // "PASS", "FAIL", "SKIP"

struct ConformanceTotals {
  std::uint64_t passed = 0, failed = 0, skipped = 0;
  void add(CaseStatus status);
  std::uint64_t total() const { return passed + failed + skipped; }
};
// Exactly "N passed, N failed, N skipped".
std::string conformance_totals_text(const ConformanceTotals& totals);

// The JSON report of a run (2-space indent, a newline at the end): the totals, the tolerance (null
// for bit-exact) and each case with its data sets. Reasons go through `one_line`, which keeps them
// on one line as the caller's text report shows them. Names and reasons come from the files and
// need not be UTF-8: bad bytes are replaced, never an exception.
std::string conformance_report_json(const ConformanceTotals& totals, const std::optional<Tolerance>& tolerance,
                                    const std::vector<CaseResult>& cases,
                                    const std::function<std::string(std::string_view)>& one_line);

}  // namespace onnxq

// ONNX backend node tests: a case folder holds model.onnx (one node) and
// test_data_set_N/input_K.pb, output_K.pb. This finds cases and runs them; the results are
// plain data, and how they are reported is up to the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// Runs every test_data_set_* of the case. Never throws for anything the files contain:
// an unloadable model or data set is a FAIL with the reason, an operator onnxq lacks a SKIP.
CaseResult run_conformance_case(const std::string& case_folder, const ConformanceOptions& options);

}  // namespace onnxq

// A conformance run's totals and JSON report (the library's, for every front end), and the case
// folders found under several paths, each once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "onnxq/core/error.hpp"
#include "onnxq/onnx/conformance.hpp"
#include "onnxq/onnx/node_case.hpp"

namespace onnxq {
namespace {

TEST(ConformanceTotals, CountEachStatus) {
  ConformanceTotals t;
  for (auto s : {CaseStatus::Pass, CaseStatus::Skip, CaseStatus::Fail, CaseStatus::Skip, CaseStatus::Pass}) t.add(s);
  EXPECT_EQ(t.passed, 2u);
  EXPECT_EQ(t.failed, 1u);
  EXPECT_EQ(t.skipped, 2u);
  EXPECT_EQ(t.total(), 5u);
  EXPECT_EQ(conformance_totals_text(t), "2 passed, 1 failed, 2 skipped");
  EXPECT_EQ(case_status_name(CaseStatus::Skip), "SKIP");
}

TEST(ConformanceReportJson, EveryCaseAndDataSetWithReasonsThroughTheCallersText) {
  CaseResult r;
  r.name = "test_x";
  r.path = "cases/test_x";
  r.status = CaseStatus::Fail;
  r.reason = "bad";
  r.op_type = "OneHot";
  r.domain = "";
  r.opset = 11;
  r.seconds = 0.25;
  r.data_sets.push_back({"test_data_set_0", CaseStatus::Fail, "worse"});
  ConformanceTotals totals;
  totals.add(r.status);
  const std::string text =
      conformance_report_json(totals, std::nullopt, {r}, [](std::string_view s) { return "<" + std::string(s) + ">"; });
  EXPECT_EQ(text.back(), '\n');
  const auto j = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(j.begin().key(), "passed");
  EXPECT_EQ(j["failed"], 1);
  EXPECT_TRUE(j["tolerance"].is_null());
  const auto& c = j["cases"].at(0);
  EXPECT_EQ(c["name"], "test_x");
  EXPECT_EQ(c["status"], "FAIL");
  EXPECT_EQ(c["reason"], "<bad>");
  EXPECT_EQ(c["opset"], 11);
  EXPECT_EQ(c["seconds"], 0.25);
  EXPECT_EQ(c["data_sets"].at(0)["name"], "test_data_set_0");
  EXPECT_EQ(c["data_sets"].at(0)["reason"], "<worse>");
  const auto tolerant = nlohmann::ordered_json::parse(
      conformance_report_json(totals, Tolerance{1e-3, 0.5}, {}, [](std::string_view s) { return std::string(s); }));
  EXPECT_EQ(tolerant["tolerance"]["rtol"], 1e-3);
  EXPECT_EQ(tolerant["tolerance"]["atol"], 0.5);
  EXPECT_TRUE(tolerant["cases"].empty());
}

TEST(FindCaseFolders, SeveralPathsGiveEachCaseOnceAndAnEmptyPathIsRefused) {
  const auto root = std::filesystem::temp_directory_path() / ("onnxq_cases_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  for (const char* c : {"a/test_1", "a/test_2", "b"}) std::filesystem::create_directories(root / c);
  std::ofstream(root / "a/test_1/model.onnx") << "x";
  std::ofstream(root / "a/test_2/model.onnx") << "x";
  const auto cases = find_case_folders({(root / "a").string(), (root / "a/test_2").string()});
  EXPECT_EQ(cases.size(), 2u);
  try {
    find_case_folders({(root / "a").string(), (root / "b").string()});
    ADD_FAILURE() << "a path without cases was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_EQ(std::string(e.what()), "no test cases (folders with model.onnx) under " + (root / "b").string());
  }
  std::filesystem::remove_all(root);
}

TEST(WriteCaseFolder, WritesWhatTheConformanceRunnerReadsAndNamesStaleDataSets) {
  const auto root = std::filesystem::temp_directory_path() / ("onnxq_case_folder_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  const std::vector<std::int64_t> axes = {0, 3};
  const std::vector<Tensor> inputs = {Tensor::zeros(DType::Float, {2, 3}),
                                      Tensor::from_bytes(DType::Int64, {2}, std::as_bytes(std::span(axes)))};
  const NodeCase c = make_node_case(*find_op_schema("Unsqueeze", 23), 23, 10, "g", {}, inputs);
  EXPECT_TRUE(
      write_case_folder((root / "fresh").string(), c.model, inputs, c.outputs, TensorProtoEncoding::RawData).empty());
  for (const char* f :
       {"model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/input_1.pb", "test_data_set_0/output_0.pb"})
    EXPECT_TRUE(std::filesystem::is_regular_file(root / "fresh" / f)) << f;
  const CaseResult r = run_conformance_case((root / "fresh").string(), {});
  EXPECT_EQ(r.status, CaseStatus::Pass) << r.reason;
  EXPECT_EQ(r.op_type, "Unsqueeze");
  EXPECT_EQ(r.data_sets.size(), 1u);

  std::filesystem::create_directories(root / "old/test_data_set_2");
  std::filesystem::create_directories(root / "old/test_data_set_1");
  std::vector<std::string> made;
  const auto stale = write_case_folder((root / "old").string(), c.model, inputs, c.outputs,
                                       TensorProtoEncoding::TypedFields, [&](const std::string& path) {
                                         made.push_back(path);
                                         return AtomicFile::create(path);
                                       });
  EXPECT_EQ(stale, (std::vector<std::string>{"test_data_set_1", "test_data_set_2"}));
  ASSERT_EQ(made.size(), 4u);
  EXPECT_TRUE(made.back().ends_with("model.onnx"));  // last: a folder is a case once its data are complete
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace onnxq

// The CLI's conformance report (app/conformance_report.cpp, compiled into this binary): the report
// lines, the totals line, their escaping, and the library's JSON report with the CLI's one-line text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "conformance_report.hpp"

namespace onnxq::cli {
namespace {

TEST(ConformanceReport, LinesAndTotals) {
  CaseResult r;
  r.name = "test_unpack_3bit";
  EXPECT_EQ(format_case_line(r), "PASS test_unpack_3bit");
  r.status = CaseStatus::Fail;
  r.reason = "output 0 element [1,3] expected 7 got 5";
  EXPECT_EQ(format_case_line(r), "FAIL test_unpack_3bit: output 0 element [1,3] expected 7 got 5");
  r.status = CaseStatus::Skip;
  r.reason = "op Foo not supported";
  EXPECT_EQ(format_case_line(r), "SKIP test_unpack_3bit: op Foo not supported");
  ConformanceTotals t;
  for (auto s : {CaseStatus::Pass, CaseStatus::Pass, CaseStatus::Fail, CaseStatus::Skip, CaseStatus::Pass}) t.add(s);
  EXPECT_EQ(conformance_totals_text(t), "3 passed, 1 failed, 1 skipped");
  EXPECT_EQ(t.total(), 5u);
  EXPECT_EQ(conformance_totals_text(ConformanceTotals{}), "0 passed, 0 failed, 0 skipped");
}

TEST(ConformanceReport, EveryLineIsOneLineAndQuotedValuesKeepTheirEscapes) {
  CaseResult r;
  r.name = "test_a\nb";
  r.status = CaseStatus::Fail;
  r.reason = std::string("test_data_set_\t0/input_0.pb: bad byte \x01\x7f\r");
  EXPECT_EQ(format_case_line(r), "FAIL test_a\\nb: test_data_set_\\t0/input_0.pb: bad byte \\x01\\x7f\\r");
  // find_mismatch already escapes string elements: their backslashes are printed as they are.
  r.name = "test_strings";
  r.reason = R"(output 0 element [1] expected "y" got "y\x0a\\")";
  EXPECT_EQ(format_case_line(r), R"(FAIL test_strings: output 0 element [1] expected "y" got "y\x0a\\")");
}

TEST(ConformanceReport, JsonKeepsNamesAndPutsReasonsOnOneLine) {
  CaseResult r;
  r.name = "test_a\nb";
  r.path = "cases/test_a\nb";
  r.status = CaseStatus::Fail;
  r.reason = "test_data_set_1: bad\nthing";
  r.op_type = "Unpack";
  r.opset = 29;
  r.data_sets.push_back({"test_data_set_0", CaseStatus::Pass, ""});
  r.data_sets.push_back({"test_data_set_1", CaseStatus::Fail, "bad\nthing"});
  ConformanceTotals totals;
  totals.add(r.status);
  const std::string text = conformance_report_json(totals, Tolerance{0.5, 0}, {r}, report_text);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto report = nlohmann::json::parse(text);
  EXPECT_EQ(report["passed"], 0);
  EXPECT_EQ(report["failed"], 1);
  EXPECT_EQ(report["skipped"], 0);
  EXPECT_EQ(report["tolerance"]["rtol"], 0.5);
  const auto& c = report["cases"].at(0);
  EXPECT_EQ(c["name"], "test_a\nb");
  EXPECT_EQ(c["path"], "cases/test_a\nb");
  EXPECT_EQ(c["status"], "FAIL");
  EXPECT_EQ(c["reason"], "test_data_set_1: bad\\nthing");
  EXPECT_EQ(c["op_type"], "Unpack");
  EXPECT_EQ(c["opset"], 29);
  EXPECT_EQ(c["data_sets"].at(0)["status"], "PASS");
  EXPECT_EQ(c["data_sets"].at(1)["reason"], "bad\\nthing");
  // No tolerance is null; bytes that are not UTF-8 are replaced rather than thrown on.
  r.reason = "op Unsqueez\xff not supported";
  const auto bitexact = nlohmann::json::parse(conformance_report_json(totals, std::nullopt, {r}, report_text));
  EXPECT_TRUE(bitexact["tolerance"].is_null());
  EXPECT_EQ(bitexact["cases"].at(0)["reason"], "op Unsqueez\xEF\xBF\xBD not supported");
}

}  // namespace
}  // namespace onnxq::cli

// Findings as one line each and as JSON (onnxq check): file text escaped, counts by severity,
// missing offsets, keys and tensors null.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "onnxq/check/check.hpp"

namespace onnxq {
namespace {

std::vector<Finding> sample() {
  return {{Severity::Error, "non-ascii-key", "d/m\xc3\xa9.gguf", 40, "cl\xc3\xa9", "", "metadata key is not ASCII"},
          {Severity::Warning, "control-chars", "m.gguf", std::nullopt, "", "t\x1b", "tensor name holds ESC"},
          {Severity::Error, "empty-key", "m.gguf", 24, "", "", "metadata key 0 is empty"},
          {Severity::Warning, "big-endian", "m.gguf", 4, "", "", "big-endian file"}};
}

TEST(FindingsText, Lines) {
  const auto f = sample();
  EXPECT_EQ(finding_line(f[0]),
            "d/m\\xc3\\xa9.gguf: error [non-ascii-key] at offset 40, key 'cl\\xc3\\xa9': metadata key is not ASCII");
  EXPECT_EQ(finding_line(f[1]), "m.gguf: warning [control-chars], tensor 't\\x1b': tensor name holds ESC");
  // A key's finding names the key even when it is empty; another finding names none.
  EXPECT_EQ(finding_line(f[2]), "m.gguf: error [empty-key] at offset 24, key '': metadata key 0 is empty");
  EXPECT_EQ(finding_line(f[3]), "m.gguf: warning [big-endian] at offset 4: big-endian file");
}

TEST(FindingsText, CountsAndJson) {
  const auto f = sample();
  const FindingCounts counts = count_findings(f);
  EXPECT_EQ(counts.errors, 2u);
  EXPECT_EQ(counts.warnings, 2u);
  const auto j = nlohmann::ordered_json::parse(findings_json("d/m.gguf", f));
  EXPECT_EQ(j["file"], "d/m.gguf");
  EXPECT_EQ(j["errors"], 2);
  EXPECT_EQ(j["warnings"], 2);
  ASSERT_EQ(j["findings"].size(), 4u);
  EXPECT_EQ(j["findings"][0].dump(), R"({"severity":"error","code":"non-ascii-key","file":"d/m)"
                                     "\xc3\xa9"
                                     R"(.gguf","offset":40,"key":"cl\\xc3\\xa9",)"
                                     R"("tensor":null,"message":"metadata key is not ASCII"})");
  EXPECT_EQ(j["findings"][1]["offset"], nullptr);
  EXPECT_EQ(j["findings"][1]["key"], nullptr);
  EXPECT_EQ(j["findings"][1]["tensor"], "t\\x1b");
  EXPECT_EQ(nlohmann::json::parse(findings_json("x", {}))["findings"], nlohmann::json::array());
}

}  // namespace
}  // namespace onnxq

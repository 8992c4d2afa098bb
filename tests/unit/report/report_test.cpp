// The report's data (report_json) from a model built in memory, and the page (report_page): layers
// and kinds parsed from blk.N names, per-layer and per-type totals, long arrays collapsed, and JSON
// inlined so that no text of the file can end the script element.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gguf_builder.hpp"
#include "onnxq/report/report.hpp"

namespace onnxq {
namespace {

using Json = nlohmann::json;
using testing::GgufBuilder;
using testing::GgufBytes;
using testing::parse_gguf;
constexpr std::uint32_t kF32 = 0, kQ8_0 = 8;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportJson, LayersKindsAndTotals) {
  GgufBuilder b;
  b.kv_str("general.architecture", "llama").kv_u32("llama.block_count", 2);
  b.kv("tokenizer.ggml.tokens", 9, [](GgufBytes& v) {
    v.u32(8);
    v.u64(20);
    for (int i = 0; i < 20; ++i) {
      std::string token = "t";  // appended, not "t" + ...: GCC 12's -Wrestrict misfires on that
      v.str(token += std::to_string(i));
    }
  });
  b.tensor("token_embd.weight", {32, 4}, kQ8_0)
      .tensor("blk.0.attn_q.weight", {32, 2}, kQ8_0)
      .tensor("blk.0.ffn_up_exps.weight", {32, 2, 4}, kQ8_0)
      .tensor("blk.1.attn_q.weight", {32, 2}, kF32)
      .tensor("blk.1.attn_q.bias", {2}, kF32)
      .tensor("enc.blk.0.attn_q.weight", {32}, kF32);
  const auto bytes = b.build();
  const GgufModel model = parse_gguf(bytes);
  ReportOptions options;
  options.model_label = "m.gguf";
  const Json j = Json::parse(report_json(model, options));
  EXPECT_EQ(j["kinds"], Json({"attn_q", "ffn_up_exps", "attn_q.bias", "enc.attn_q"}));
  // Q8_0: 34 bytes per 32 values; F32: 4 bytes each.
  EXPECT_EQ(j["layer_bytes"], Json({2 * 34 + 8 * 34 + 32 * 4, 32 * 4 * 2 + 2 * 4}));  // enc.blk.0 counts in layer 0
  const Json& t = j["tensors"];
  ASSERT_EQ(t.size(), 6u);
  EXPECT_TRUE(t[0]["layer"].is_null());
  EXPECT_TRUE(t[0]["kind"].is_null());
  EXPECT_EQ(t[1]["layer"], 0);
  EXPECT_EQ(t[1]["kind"], "attn_q");
  EXPECT_EQ(t[1]["shape"], Json({2, 32}));
  EXPECT_EQ(t[1]["bpw"], 8.5);
  EXPECT_FALSE(t[1]["expert"]);
  EXPECT_TRUE(t[2]["expert"]);
  EXPECT_EQ(t[4]["kind"], "attn_q.bias");
  ASSERT_EQ(j["types"].size(), 2u);
  EXPECT_EQ(j["types"][0]["type"], "F32");
  EXPECT_EQ(j["types"][0]["tensors"], 3);
  EXPECT_EQ(j["types"][1]["bytes"], (4 + 2 + 8) * 34);
  EXPECT_EQ(j["overview"]["label"], "m.gguf");
  EXPECT_EQ(j["overview"]["architecture"], "llama");
  const Json& tokens = j["overview"]["metadata"][2];
  EXPECT_EQ(tokens["key"], "tokenizer.ggml.tokens");
  EXPECT_EQ(tokens["count"], 20);
  EXPECT_EQ(tokens["value"], "[t0, t1, t2, t3, t4, t5, t6, t7, … (20 items)]");
  EXPECT_TRUE(j["values"].empty());
  EXPECT_TRUE(j["compare"].is_null());
}

// The progress total: the bytes of the tensors --values chooses that onnxq decodes, and of those
// --compare compares (the reference has them, in the same shape, both of known types).
TEST(ReportJson, DecodedBytes) {
  testing::BuilderTensor unknown;  // a type onnxq does not know: its size is what lies before the end
  unknown.name = "c.weight";
  unknown.ne = {32};
  unknown.type = 142;
  unknown.data.assign(8, 0);
  GgufBuilder b;
  b.tensor("a.weight", {32, 2}, kQ8_0).tensor("b.weight", {32}, kF32).tensor(unknown);
  const auto bytes = b.build();
  const GgufModel model = parse_gguf(bytes);
  GgufBuilder r;
  r.tensor("a.weight", {32, 2}, kF32).tensor("b.weight", {16, 2}, kF32).tensor(unknown);
  const auto reference_bytes = r.build();
  const GgufModel reference = parse_gguf(reference_bytes, "reference.gguf");
  ReportOptions options;
  EXPECT_EQ(report_decoded_bytes(model, options), 0u);  // the header only
  options.values_glob = "*.weight";
  EXPECT_EQ(report_decoded_bytes(model, options), 68u + 128u);  // not the unknown type
  options.values_glob = "b*";
  EXPECT_EQ(report_decoded_bytes(model, options), 128u);
  options.reference = &reference;
  EXPECT_EQ(report_decoded_bytes(model, options), 128u + 68u);  // b's shape differs, c's type is unknown
  options.values_glob.clear();
  EXPECT_EQ(report_decoded_bytes(model, options), 68u);
}

TEST(ReportJson, BytesThatAreNotUtf8AreReplaced) {
  GgufBuilder b;
  b.kv_str("general.name", "a\xff\xfe").tensor("blk.0.\xc3(.weight", {32}, kF32);
  const auto bytes = b.build();
  const Json j = Json::parse(report_json(parse_gguf(bytes), {}));
  EXPECT_EQ(j["overview"]["name"], "a\uFFFD\uFFFD");
  EXPECT_EQ(j["tensors"][0]["kind"], "\uFFFD(");
}

TEST(ReportPage, DataCannotEndTheScript) {
  const std::string page = report_page(R"({"t":"</script><script>x()</script><!--&"})");
  EXPECT_EQ(count_of(page, "</script"), 2u);  // the data's and the program's own
  EXPECT_EQ(count_of(page, "<!--"), count_of(report_page("{}"), "<!--"));
  EXPECT_NE(page.find(R"({"t":"\u003c/script\u003e\u003cscript\u003ex()\u003c/script\u003e\u003c!--\u0026"})"),
            std::string::npos);
  EXPECT_EQ(page.find("{{ONNXQ"), std::string::npos);  // every placeholder filled
}

TEST(ReportPage, PolicyAllowsNoNetwork) {
  const std::string page = report_page("{}");
  const std::size_t at = page.find("Content-Security-Policy\" content=\"");
  ASSERT_NE(at, std::string::npos);
  const std::string csp = page.substr(at, page.find('"', at + 35) - at);
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(csp.find("script-src 'sha256-"), std::string::npos);
  EXPECT_EQ(csp.find("http"), std::string::npos);
  EXPECT_EQ(csp.find("connect-src"), std::string::npos);
}

}  // namespace
}  // namespace onnxq

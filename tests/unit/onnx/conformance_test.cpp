// Output comparison, case discovery, and running case folders (written here, and the shipped ones).
// The report lines the CLI prints are tested in conformance_report_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "onnxq/core/error.hpp"
#include "onnxq/onnx/conformance.hpp"
#include "onnxq/onnx/onnx_io.hpp"
#include "onnxq/onnx/tensor_compare.hpp"
#include "op_tensors.hpp"

namespace fs = std::filesystem;

namespace onnxq {
namespace {

using testing::typed_tensor;

Tensor f32(Shape shape, std::vector<float> v) { return typed_tensor(DType::Float, std::move(shape), v); }

TEST(FindMismatch, IntegersExactWithTheFirstDifferenceNamed) {
  const Tensor expected = typed_tensor<std::int32_t>(DType::Int32, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(find_mismatch(expected, expected), std::nullopt);
  const Tensor got = typed_tensor<std::int32_t>(DType::Int32, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 5});
  EXPECT_EQ(find_mismatch(expected, got), "element [1,3] expected 7 got 5");
  // A tolerance does not loosen integers.
  EXPECT_EQ(find_mismatch(expected, got, Tolerance{1, 10}), "element [1,3] expected 7 got 5");
  const Tensor u64 = typed_tensor<std::uint64_t>(DType::UInt64, {1}, {~0ull});
  EXPECT_EQ(find_mismatch(u64, typed_tensor<std::uint64_t>(DType::UInt64, {1}, {1})),
            "element [0] expected 18446744073709551615 got 1");
}

TEST(FindMismatch, DtypeAndShapeMustMatchExactly) {
  EXPECT_EQ(find_mismatch(f32({2}, {1, 2}), typed_tensor<double>(DType::Double, {2}, {1, 2})),
            "dtype expected FLOAT got DOUBLE");
  EXPECT_EQ(find_mismatch(f32({2, 1}, {1, 2}), f32({1, 2}, {1, 2})), "shape expected [2, 1] got [1, 2]");
  EXPECT_EQ(find_mismatch(f32({}, {1}), f32({1}, {1})), "shape expected [] got [1]");
}

TEST(FindMismatch, FloatsBitExactByDefaultNanMatchesNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(find_mismatch(f32({2}, {nan, 1}), f32({2}, {-nan, 1})), std::nullopt);
  EXPECT_EQ(find_mismatch(f32({1}, {nan}), f32({1}, {1})), "element [0] expected nan got 1");
  EXPECT_EQ(find_mismatch(f32({1}, {0.0f}), f32({1}, {-0.0f})), "element [0] expected 0 got -0");
  EXPECT_EQ(find_mismatch(f32({1}, {1.0f}), f32({1}, {std::nextafter(1.0f, 2.0f)})),
            "element [0] expected 1 got 1.00000012");
}

TEST(FindMismatch, ToleranceIsAtolPlusRtolTimesExpected) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(find_mismatch(f32({1}, {100}), f32({1}, {100.09f}), Tolerance{1e-3, 0}), std::nullopt);
  EXPECT_NE(find_mismatch(f32({1}, {100}), f32({1}, {100.2f}), Tolerance{1e-3, 0}), std::nullopt);
  EXPECT_EQ(find_mismatch(f32({1}, {0}), f32({1}, {1e-8f}), Tolerance{0, 1e-7}), std::nullopt);
  EXPECT_NE(find_mismatch(f32({1}, {0}), f32({1}, {1e-6f}), Tolerance{0, 1e-7}), std::nullopt);
  // The relative part scales with the expected value, not the actual one.
  EXPECT_EQ(find_mismatch(f32({1}, {10}), f32({1}, {19}), Tolerance{1, 0}), std::nullopt);
  EXPECT_NE(find_mismatch(f32({1}, {10}), f32({1}, {21}), Tolerance{1, 0}), std::nullopt);
  EXPECT_EQ(find_mismatch(f32({1}, {inf}), f32({1}, {inf}), Tolerance{1, 1}), std::nullopt);
  EXPECT_NE(find_mismatch(f32({1}, {inf}), f32({1}, {3e38f}), Tolerance{1, 1}), std::nullopt);
  EXPECT_NE(find_mismatch(f32({1}, {inf}), f32({1}, {-inf}), Tolerance{1, 1}), std::nullopt);
}

TEST(FindMismatch, NarrowFloatsComparedAfterWidening) {
  auto f16 = [](std::uint16_t bits) { return typed_tensor<std::uint16_t>(DType::Float16, {1}, {bits}); };
  // 0x3C01 is 1 + 2^-10.
  EXPECT_EQ(find_mismatch(f16(0x3C00), f16(0x3C01)), "element [0] expected 1 got 1.00097656");
  EXPECT_EQ(find_mismatch(f16(0x3C00), f16(0x3C01), Tolerance{1e-3, 0}), std::nullopt);
  EXPECT_NE(find_mismatch(f16(0x3C00), f16(0x3C01), Tolerance{1e-4, 0}), std::nullopt);
  EXPECT_EQ(find_mismatch(f16(0x7E00), f16(0x7C01)), std::nullopt);  // two NaNs
  auto bf16 = [](std::uint16_t bits) { return typed_tensor<std::uint16_t>(DType::BFloat16, {1}, {bits}); };
  EXPECT_EQ(find_mismatch(bf16(0x3F80), bf16(0x3FC0)), "element [0] expected 1 got 1.5");
  auto f8 = [](std::uint8_t bits) { return typed_tensor<std::uint8_t>(DType::Float8E4M3FN, {1}, {bits}); };
  EXPECT_EQ(find_mismatch(f8(0x38), f8(0x39)), "element [0] expected 1 got 1.125");
  EXPECT_EQ(find_mismatch(f8(0x7F), f8(0xFF)), std::nullopt);  // both NaN
}

TEST(FindMismatch, StringsBoolComplexAndFourBit) {
  const Tensor a = Tensor::from_strings({2}, {"x", "y"});
  EXPECT_EQ(find_mismatch(a, Tensor::from_strings({2}, {"x", "y\n"})), "element [1] expected \"y\" got \"y\\x0a\"");
  EXPECT_EQ(find_mismatch(typed_tensor<std::uint8_t>(DType::Bool, {2}, {1, 0}),
                          typed_tensor<std::uint8_t>(DType::Bool, {2}, {1, 1})),
            "element [1] expected false got true");
  EXPECT_EQ(find_mismatch(typed_tensor<float>(DType::Complex64, {1}, {1, 2}),
                          typed_tensor<float>(DType::Complex64, {1}, {1, 3})),
            "element [0] expected (1,2) got (1,3)");
  // int4 [1, -1, 7] vs [1, -2, 7]: the second value is the high nibble of byte 0.
  EXPECT_EQ(find_mismatch(typed_tensor<std::uint8_t>(DType::Int4, {3}, {0xF1, 0x07}),
                          typed_tensor<std::uint8_t>(DType::Int4, {3}, {0xE1, 0x07})),
            "element [1] expected -1 got -2");
}

TEST(CaseNameMatches, ShellGlob) {
  EXPECT_TRUE(case_name_matches("test_unpack_3bit", "test_unpack_*"));
  EXPECT_TRUE(case_name_matches("test_unpack_3bit", "*3bit"));
  EXPECT_FALSE(case_name_matches("test_onehot_with_axis", "test_unpack_*"));
}

// A case folder written by the test: Unsqueeze-23 of a [2] float tensor at axis 0.
class CaseFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("onnxq_conformance_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }

  OnnxModel unsqueeze_model(const std::string& op = "Unsqueeze") {
    OnnxModel m;
    m.nodes.emplace_back();
    m.ir_version = 10;
    m.opset_imports.push_back({"", 23});
    m.nodes[0].op_type = op;
    m.nodes[0].inputs = {"x", "axes"};
    m.nodes[0].outputs = {"y"};
    m.inputs = {{"x", DType::Float, true, {2}}, {"axes", DType::Int64, true, {1}}};
    m.outputs = {{"y", DType::Float, true, {1, 2}}};
    return m;
  }

  fs::path make_case(const std::string& name, const std::vector<float>& expected_values, int data_sets = 1) {
    const fs::path dir = root_ / name;
    write(dir / "model.onnx", encode_model(unsqueeze_model()));
    for (int d = 0; d < data_sets; ++d) {
      const fs::path ds = dir / ("test_data_set_" + std::to_string(d));
      write(ds / "input_0.pb", encode_tensor_proto(f32({2}, {1.5f, -2}), "x"));
      write(ds / "input_1.pb", encode_tensor_proto(typed_tensor<std::int64_t>(DType::Int64, {1}, {0}), "axes",
                                                   TensorProtoEncoding::TypedFields));
      write(ds / "output_0.pb", encode_tensor_proto(f32({1, 2}, expected_values), "y"));
    }
    return dir;
  }

  fs::path root_;
};

// The status and reason, as one string for readable expectations.
std::string verdict(const CaseResult& r) {
  const char* status = r.status == CaseStatus::Pass ? "PASS" : r.status == CaseStatus::Fail ? "FAIL" : "SKIP";
  return r.reason.empty() ? status : std::string(status) + ": " + r.reason;
}

TEST_F(CaseFolder, PassingCase) {
  const fs::path dir = make_case("test_good", {1.5f, -2});
  const CaseResult r = run_conformance_case(dir.string(), {});
  EXPECT_EQ(verdict(r), "PASS");
  EXPECT_EQ(r.name, "test_good");
  EXPECT_EQ(r.op_type, "Unsqueeze");
  EXPECT_EQ(r.opset, 23);
  ASSERT_EQ(r.data_sets.size(), 1u);
  EXPECT_EQ(r.data_sets[0].name, "test_data_set_0");
}

TEST_F(CaseFolder, WrongExpectedValueFailsWithTheElement) {
  const fs::path dir = make_case("test_bad", {1.5f, -3});
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})), "FAIL: output 0 element [0,1] expected -3 got -2");
  // Within a tolerance it passes.
  EXPECT_EQ(run_conformance_case(dir.string(), {Tolerance{0.5, 0}}).status, CaseStatus::Pass);
}

TEST_F(CaseFolder, EveryDataSetRunsAndTheFailingOneIsNamed) {
  const fs::path dir = make_case("test_multi", {1.5f, -2}, 3);
  write(dir / "test_data_set_2" / "output_0.pb", encode_tensor_proto(f32({1, 2}, {0, 0}), "y"));
  const CaseResult r = run_conformance_case(dir.string(), {});
  ASSERT_EQ(r.data_sets.size(), 3u);
  EXPECT_EQ(r.data_sets[0].status, CaseStatus::Pass);
  EXPECT_EQ(r.data_sets[2].status, CaseStatus::Fail);
  EXPECT_EQ(verdict(r), "FAIL: test_data_set_2: output 0 element [0,0] expected 0 got 1.5");
}

TEST_F(CaseFolder, BrokenFilesAreFailuresNotCrashes) {
  const fs::path dir = make_case("test_broken", {1.5f, -2});
  write(dir / "test_data_set_0" / "input_0.pb", std::string("\x0f\xff", 2));
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})),
            "FAIL: test_data_set_0/input_0.pb: not a valid serialized TensorProto");
  fs::remove(dir / "test_data_set_0" / "input_0.pb");
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})),
            "FAIL: test_data_set_0: input_0.pb is missing (found input_1.pb)");
  fs::remove_all(dir / "test_data_set_0");
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})), "FAIL: no test_data_set_* folder");
  write(dir / "model.onnx", "garbage\xff");
  EXPECT_EQ(run_conformance_case(dir.string(), {}).status, CaseStatus::Fail);
}

TEST_F(CaseFolder, WrongInputTypeAndOperatorErrorsFail) {
  const fs::path dir = make_case("test_types", {1.5f, -2});
  write(dir / "test_data_set_0" / "input_0.pb",
        encode_tensor_proto(typed_tensor<double>(DType::Double, {2}, {1.5, -2}), "x"));
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})), "FAIL: input 0 'x' is DOUBLE, the graph declares FLOAT");
  const fs::path dup = make_case("test_dup_axes", {1.5f, -2});
  OnnxModel m = unsqueeze_model();
  m.inputs[1].dims = {2};
  write(dup / "model.onnx", encode_model(m));
  write(dup / "test_data_set_0" / "input_1.pb",
        encode_tensor_proto(typed_tensor<std::int64_t>(DType::Int64, {2}, {0, 0}), "axes"));
  const CaseResult r = run_conformance_case(dup.string(), {});
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_FALSE(r.reason.empty());
}

TEST_F(CaseFolder, ReasonsAreTheErrorTextUnescaped) {
  // Escaping for a report line is the caller's business: a tab in a folder name stays a tab.
  const fs::path dir = make_case("test_raw", {1.5f, -2});
  fs::rename(dir / "test_data_set_0", dir / "test_data_set_\t0");
  write(dir / "test_data_set_\t0" / "input_0.pb", std::string("\x0f\xff", 2));
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})),
            "FAIL: test_data_set_\t0/input_0.pb: not a valid serialized TensorProto");
}

TEST_F(CaseFolder, UnknownOperatorIsSkippedMultiNodeModelFails) {
  const fs::path dir = make_case("test_unknown", {1.5f, -2});
  write(dir / "model.onnx", encode_model(unsqueeze_model("Frobnicate")));
  EXPECT_EQ(verdict(run_conformance_case(dir.string(), {})), "SKIP: op Frobnicate not supported");
}

TEST_F(CaseFolder, FindsCasesRecursivelyInOrder) {
  make_case("b_case", {1.5f, -2});
  fs::create_directories(root_ / "group");
  const fs::path nested = root_ / "group";
  write(nested / "a_case" / "model.onnx", encode_model(unsqueeze_model()));
  fs::create_directories(root_ / "empty_dir");
  const auto cases = find_case_folders(root_.string());
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(fs::path(cases[0]).filename(), "b_case");
  EXPECT_EQ(fs::path(cases[1]).filename(), "a_case");
  // A case folder given directly is the one case.
  EXPECT_EQ(find_case_folders((root_ / "b_case").string()).size(), 1u);
  EXPECT_EQ(find_case_folders((root_ / "b_case" / "model.onnx").string()),
            std::vector<std::string>{(root_ / "b_case").string()});
  EXPECT_THROW(find_case_folders((root_ / "missing").string()), Error);
}

// The shipped cases: every one listed in index.json exists and passes bit-exactly.
TEST(ShippedCases, EveryIndexedCasePasses) {
  const fs::path root = fs::path(ONNXQ_TESTDATA_DIR) / "onnx-node";
  std::ifstream index_file(root / "index.json");
  ASSERT_TRUE(index_file) << "missing " << (root / "index.json");
  const auto index = nlohmann::json::parse(index_file);
  const auto folders = find_case_folders(root.string());
  EXPECT_EQ(folders.size(), index.size());
  for (const auto& entry : index) {
    const std::string name = entry.at("case");
    const CaseResult r = run_conformance_case((root / name).string(), {});
    EXPECT_EQ(verdict(r), "PASS") << name;
    EXPECT_EQ(r.name, name);
    EXPECT_EQ(r.op_type, entry.at("op").get<std::string>()) << name;
    EXPECT_EQ(r.opset, entry.at("opset").get<std::int64_t>()) << name;
  }
}

}  // namespace
}  // namespace onnxq

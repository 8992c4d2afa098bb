// hash_report: rows named as the manifest names them, checked against a manifest, the totals and
// the failure message of `hash --check`, and the JSON every front end prints.
#include "onnxq/hash/hash_report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace onnxq {
namespace {

struct ManifestFile {
  std::string path =
      (std::filesystem::temp_directory_path() / ("onnxq_hash_report_" + std::to_string(::getpid()))).string();
  explicit ManifestFile(const std::string& text) { std::ofstream(path) << text; }
  ~ManifestFile() { std::filesystem::remove(path); }
};

std::vector<HashRow> rows_of(const TensorInfo& a, const TensorInfo& b) {
  return {{HashType::Xxh64, "1111", &a}, {HashType::Xxh64, "2222", &b}, {HashType::Xxh64, "3333", nullptr}};
}

TEST(HashReport, UncheckedRowsAreNamedFileColonTensor) {
  TensorInfo a{}, b{};
  a.name = "blk.0.w";
  b.name = "out";
  const HashReport r = hash_report("m.gguf", rows_of(a, b), nullptr, "");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].name, "m.gguf:blk.0.w");
  EXPECT_EQ(r.rows[0].tensor, "blk.0.w");
  EXPECT_EQ(r.rows[2].name, "m.gguf");
  EXPECT_FALSE(r.rows[2].tensor);
  EXPECT_EQ(r.ok + r.mismatched + r.missing, 0u);
  EXPECT_FALSE(hash_check_failure(r));
  const auto j = nlohmann::ordered_json::parse(hash_report_json(r));
  EXPECT_EQ(j["file"], "m.gguf");
  EXPECT_FALSE(j.contains("check"));
  EXPECT_EQ(j["hashes"][0]["type"], "xxh64");
  EXPECT_EQ(j["hashes"][0]["hash"], "1111");
  EXPECT_FALSE(j["hashes"][0].contains("result"));
  EXPECT_TRUE(j["hashes"][2]["tensor"].is_null());
}

TEST(HashReport, CheckedRowsCountVerdictsAndNameTheMismatches) {
  TensorInfo a{}, b{};
  a.name = "blk.0.w";
  b.name = "out";
  const ManifestFile m("xxh64     1111  m.gguf:blk.0.w\nxxh64     9999  m.gguf\n");
  const HashManifest manifest = HashManifest::read(m.path);
  const HashReport r = hash_report("m.gguf", rows_of(a, b), &manifest, m.path);
  EXPECT_EQ(r.rows[0].verdict, ManifestVerdict::Ok);
  EXPECT_EQ(r.rows[1].verdict, ManifestVerdict::NotFound);
  EXPECT_EQ(r.rows[2].verdict, ManifestVerdict::Mismatch);
  EXPECT_EQ(r.ok, 1u);
  EXPECT_EQ(r.missing, 1u);
  EXPECT_EQ(r.mismatched, 1u);
  EXPECT_EQ(r.mismatch_names, std::vector<std::string>{"xxh64 of the model"});
  EXPECT_EQ(hash_check_failure(r), "m.gguf: 1 hash does not match " + m.path + ": xxh64 of the model");
  const auto j = nlohmann::ordered_json::parse(hash_report_json(r));
  EXPECT_EQ(j["hashes"][0]["result"], "ok");
  EXPECT_EQ(j["hashes"][1]["result"], "not found");
  EXPECT_EQ(j["hashes"][2]["result"], "mismatch");
  EXPECT_EQ(j["check"]["manifest"], m.path);
  EXPECT_EQ(j["check"]["ok"], 1u);
  EXPECT_EQ(j["check"]["mismatch"], 1u);
  EXPECT_EQ(j["check"]["not_found"], 1u);
}

TEST(HashReport, SeveralMismatchesAreCountedAndNoMatchingEntryFails) {
  TensorInfo a{}, b{};
  a.name = "blk.0.w";
  b.name = "out";
  const ManifestFile m("xxh64 0 m.gguf:blk.0.w\nxxh64 0 m.gguf:out\n");
  const HashManifest manifest = HashManifest::read(m.path);
  const HashReport r = hash_report("m.gguf", rows_of(a, b), &manifest, m.path);
  EXPECT_EQ(hash_check_failure(r),
            "m.gguf: 2 hashes do not match " + m.path + ": xxh64 of tensor 'blk.0.w' and 1 more");
  const HashReport other = hash_report("other.gguf", rows_of(a, b), &manifest, m.path);
  EXPECT_EQ(other.ok + other.mismatched, 0u);
  ASSERT_TRUE(hash_check_failure(other));
  EXPECT_TRUE(hash_check_failure(other)->starts_with("other.gguf: no entry of " + m.path + " names this file"));
}

TEST(HashReport, ManifestLinesAreLlamaGgufHashs) {
  HashReportRow row;
  row.type = HashType::Sha1;
  row.hex = "abc";
  EXPECT_EQ(manifest_line(row, "m.gguf:t", false), "sha1      abc  m.gguf:t");
  row.type = HashType::Sha256;
  EXPECT_EQ(manifest_line(row, "m.gguf", false), "sha256    abc  m.gguf");
  EXPECT_EQ(manifest_line(row, "m", true), "sha256    abc  m  -  Not Found");
  row.verdict = ManifestVerdict::Ok;
  EXPECT_EQ(manifest_line(row, "m", true), "sha256    abc  m  -  Ok");
  row.verdict = ManifestVerdict::Mismatch;
  EXPECT_EQ(manifest_line(row, "m", true), "sha256    abc  m  -  Mismatch");
  // What the manifest reader reads back.
  const ManifestFile m(manifest_line(row, "m.gguf:t", false) + "\n");
  EXPECT_EQ(HashManifest::read(m.path).find(HashType::Sha256, "m.gguf:t"), "abc");
}

TEST(HashReport, VerdictNames) {
  EXPECT_EQ(manifest_verdict_name(ManifestVerdict::Ok), "ok");
  EXPECT_EQ(manifest_verdict_name(ManifestVerdict::Mismatch), "mismatch");
  EXPECT_EQ(manifest_verdict_name(ManifestVerdict::NotFound), "not found");
}

}  // namespace
}  // namespace onnxq

// A model's hash rows as `onnxq hash` reports them: each with its manifest name and, when checked
// against a manifest, its verdict, the totals and the JSON every front end prints.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/hash/manifest.hpp"
#include "onnxq/hash/model_hash.hpp"

namespace onnxq {

// "ok", "mismatch" or "not found".
std::string_view manifest_verdict_name(ManifestVerdict verdict);

struct HashReportRow {
  HashType type = HashType::Xxh64;
  std::string hex;
  std::string name;                   // FILE:TENSOR or FILE
  std::optional<std::string> tensor;  // none for the model's row
  ManifestVerdict verdict = ManifestVerdict::NotFound;
};

struct HashReport {
  std::string file;
  std::string manifest;  // its path; empty when not checked
  std::vector<HashReportRow> rows;
  std::size_t ok = 0, mismatched = 0, missing = 0;
  std::vector<std::string> mismatch_names;  // "TYPE of tensor 'T'" or "TYPE of the model"
};

// `rows` (of hash_model) named after `file`, the model as the caller names it, and each checked
// against `manifest` (read from `manifest_path`) when there is one.
HashReport hash_report(const std::string& file, const std::vector<HashRow>& rows, const HashManifest* manifest,
                       const std::string& manifest_path);

// A row as llama-gguf-hash prints it: "TYPE  HASH  NAME", the type padded to 8 characters, and when
// checked its verdict after "  -  " ("Ok", "Mismatch" or "Not Found"). `shown_name` is the row's name
// as the caller shows it (byte for byte in a manifest file).
std::string manifest_line(const HashReportRow& row, std::string_view shown_name, bool checked);

// Why a checked report fails the check: a hash that does not match the manifest (naming the first,
// and how many more), or no entry of the manifest naming the file; nullopt when it passes or was not
// checked.
std::optional<std::string> hash_check_failure(const HashReport& report);

// {"file", "hashes": [{"type", "hash", "name", "tensor"(, "result")}](, "check": {...})}: 2-space
// indent, no final newline.
std::string hash_report_json(const HashReport& report);

}  // namespace onnxq

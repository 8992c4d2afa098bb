#include "onnxq/hash/hash_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace onnxq {

std::string_view manifest_verdict_name(ManifestVerdict verdict) {
  switch (verdict) {
    case ManifestVerdict::Ok: return "ok";
    case ManifestVerdict::Mismatch: return "mismatch";
    case ManifestVerdict::NotFound: return "not found";
  }
  return "?";
}

std::string manifest_line(const HashReportRow& row, std::string_view shown_name, bool checked) {
  std::string line(hash_type_name(row.type));
  line.resize(std::max<std::size_t>(line.size(), 8), ' ');
  line.append("  ").append(row.hex).append("  ").append(shown_name);
  if (!checked) return line;
  const char* verdict = row.verdict == ManifestVerdict::Ok         ? "Ok"
                        : row.verdict == ManifestVerdict::Mismatch ? "Mismatch"
                                                                   : "Not Found";
  return line.append("  -  ").append(verdict);
}

HashReport hash_report(const std::string& file, const std::vector<HashRow>& rows, const HashManifest* manifest,
                       const std::string& manifest_path) {
  HashReport r;
  r.file = file;
  if (manifest) r.manifest = manifest_path;
  for (const HashRow& line : rows) {
    HashReportRow& row = r.rows.emplace_back();
    row.type = line.type;
    row.hex = line.hex;
    row.name = manifest_entry_name(file, line);
    if (line.tensor) row.tensor = std::string(line.tensor->name);
    if (!manifest) continue;
    row.verdict = manifest_verdict(*manifest, file, line);
    (row.verdict == ManifestVerdict::Ok         ? r.ok
     : row.verdict == ManifestVerdict::Mismatch ? r.mismatched
                                                : r.missing) += 1;
    if (row.verdict == ManifestVerdict::Mismatch)
      r.mismatch_names.push_back(std::string(hash_type_name(row.type)) + " of " +
                                 (row.tensor ? "tensor '" + *row.tensor + "'" : "the model"));
  }
  return r;
}

std::optional<std::string> hash_check_failure(const HashReport& r) {
  if (r.manifest.empty()) return std::nullopt;
  if (r.mismatched > 0) {
    std::string what = r.mismatch_names.front();
    if (r.mismatch_names.size() > 1) what += " and " + std::to_string(r.mismatch_names.size() - 1) + " more";
    return r.file + ": " + std::to_string(r.mismatched) + " hash" + (r.mismatched > 1 ? "es do" : " does") +
           " not match " + r.manifest + ": " + what;
  }
  if (r.ok == 0)
    return r.file + ": no entry of " + r.manifest +
           " names this file with the chosen hash type (entries are matched by TYPE and by NAME = FILE[:TENSOR], "
           "FILE as given on the command line)";
  return std::nullopt;
}

std::string hash_report_json(const HashReport& r) {
  using Json = nlohmann::ordered_json;
  const bool checked = !r.manifest.empty();
  Json lines = Json::array();
  for (const HashReportRow& row : r.rows) {
    Json j = {{"type", hash_type_name(row.type)},
              {"hash", row.hex},
              {"name", row.name},
              {"tensor", row.tensor ? Json(*row.tensor) : Json(nullptr)}};
    if (checked) j["result"] = manifest_verdict_name(row.verdict);
    lines.push_back(std::move(j));
  }
  Json out = {{"file", r.file}, {"hashes", lines}};
  if (checked)
    out["check"] = {{"manifest", r.manifest}, {"ok", r.ok}, {"mismatch", r.mismatched}, {"not_found", r.missing}};
  // Names come from the file and need not be UTF-8: bad bytes are replaced, never thrown on.
  return out.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace onnxq

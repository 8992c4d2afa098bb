// onnxq hash: per-tensor and whole-model hashes of the tensor data, in llama-gguf-hash's
// manifest format, and verification against such a manifest (--check).
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "command.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "io_settings.hpp"
#include "metadata_format.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/hash/manifest.hpp"
#include "onnxq/hash/model_hash.hpp"
#include "output.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct HashOptions {
  std::string path;
  HashSelection types;
  bool all = false;
  bool no_layer = false;
  std::string manifest;
  bool json = false;
  int threads = 0;
};

using Verdict = ManifestVerdict;

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "Ok";
    case Verdict::Mismatch: return "Mismatch";
    case Verdict::NotFound: return "Not Found";
  }
  return "?";
}

const char* verdict_json(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "ok";
    case Verdict::Mismatch: return "mismatch";
    case Verdict::NotFound: return "not found";
  }
  return "?";
}

// One line of the manifest printed: a hash of a tensor or of the model, and with --check its verdict.
struct HashRow {
  std::string_view type;
  std::string hex;
  std::string name;                   // FILE:TENSOR or FILE
  std::optional<std::string> tensor;  // none for the model line
  Verdict verdict = Verdict::NotFound;
};

// What hash computed and, with --check, what it found in the manifest.
struct HashFacts {
  std::string path;
  std::string manifest;  // its path; empty without --check
  std::vector<HashRow> rows;
  std::size_t ok = 0, mismatched = 0, missing = 0;
  std::vector<std::string> mismatch_names;  // "TYPE of tensor 'T'" or "TYPE of the model"
};

HashFacts compute_hash(const HashOptions& opts) {
  HashSelection types = opts.types;
  if (opts.all)
    for (HashType t : {HashType::Xxh64, HashType::Xxh3, HashType::Sha1, HashType::Sha256}) types[t] = true;
  std::optional<HashManifest> manifest;
  if (!opts.manifest.empty()) {
    manifest = HashManifest::read(opts.manifest);
    types = manifest_check_types(*manifest, opts.manifest, types);
  }
  if (!types.any()) types[HashType::Xxh64] = true;

  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  HashFacts f;
  f.path = opts.path;
  f.manifest = opts.manifest;
  for (const onnxq::HashRow& line : hash_model(model, types, opts.no_layer, opts.threads)) {
    HashRow& row = f.rows.emplace_back();
    row.type = hash_type_name(line.type);
    row.hex = line.hex;
    row.name = manifest_entry_name(opts.path, line);
    if (line.tensor) row.tensor = std::string(line.tensor->name);
    if (!manifest) continue;
    row.verdict = manifest_verdict(*manifest, opts.path, line);
    (row.verdict == Verdict::Ok ? f.ok : row.verdict == Verdict::Mismatch ? f.mismatched : f.missing) += 1;
    if (row.verdict == Verdict::Mismatch)
      f.mismatch_names.push_back(std::string(row.type) + " of " +
                                 (row.tensor ? "tensor '" + *row.tensor + "'" : "the model"));
  }
  return f;
}

void render_hash_json(const HashFacts& f) {
  const bool checked = !f.manifest.empty();
  Json json_lines = Json::array();
  for (const HashRow& row : f.rows) {
    Json j = {{"type", row.type},
              {"hash", row.hex},
              {"name", row.name},
              {"tensor", row.tensor ? Json(*row.tensor) : Json(nullptr)}};
    if (checked) j["result"] = verdict_json(row.verdict);
    json_lines.push_back(std::move(j));
  }
  Json out = {{"file", f.path}, {"hashes", json_lines}};
  if (checked)
    out["check"] = {{"manifest", f.manifest}, {"ok", f.ok}, {"mismatch", f.mismatched}, {"not_found", f.missing}};
  std::fflush(stdout);
  std::cout << dump_json(out) << '\n';
}

// A manifest is text for files and pipes, byte for byte; on a terminal, names are escaped.
void render_hash_text(const HashFacts& f, bool terminal) {
  const bool checked = !f.manifest.empty();
  for (const HashRow& row : f.rows) {
    const std::string shown = terminal ? escape_for_terminal(row.name) : row.name;
    if (checked)
      std::printf("%-8s  %s  %s  -  %s\n", row.type.data(), row.hex.c_str(), shown.c_str(), verdict_text(row.verdict));
    else
      std::printf("%-8s  %s  %s\n", row.type.data(), row.hex.c_str(), shown.c_str());
  }
  if (checked)
    std::printf("\n%s: %zu ok, %zu mismatched, %zu not in the manifest\n", f.manifest.c_str(), f.ok, f.mismatched,
                f.missing);
}

void run_hash(const HashOptions& opts) {
  const HashFacts f = compute_hash(opts);
  if (opts.json)
    render_hash_json(f);
  else
    render_hash_text(f, stdout_is_terminal());
  if (f.manifest.empty()) return;
  if (f.mismatched > 0) {
    std::string what = f.mismatch_names.front();
    if (f.mismatch_names.size() > 1) what += " and " + std::to_string(f.mismatch_names.size() - 1) + " more";
    throw DifferencesFound{opts.path + ": " + std::to_string(f.mismatched) + " hash" +
                           (f.mismatched > 1 ? "es do" : " does") + " not match " + opts.manifest + ": " + what};
  }
  if (f.ok == 0)
    throw DifferencesFound{opts.path + ": no entry of " + opts.manifest +
                           " names this file with the chosen hash type (entries are matched by TYPE and by NAME = "
                           "FILE[:TENSOR], FILE as given on the command line)"};
}

void add_hash_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<HashOptions>();
  CLI::App* cmd = app.add_subcommand(
      "hash", "Hash each tensor's data and the whole model's, as llama-gguf-hash does, or check a manifest");
  add_gguf_file_argument(*cmd, opts->path);
  cmd->add_flag("--xxh64", opts->types[HashType::Xxh64], "XXH64, seed 0 (the default type)");
  cmd->add_flag("--xxh3", opts->types[HashType::Xxh3], "XXH3, 64-bit");
  cmd->add_flag("--sha1", opts->types[HashType::Sha1], "SHA-1");
  cmd->add_flag("--sha256", opts->types[HashType::Sha256], "SHA-256");
  cmd->add_flag("--uuid", opts->types[HashType::Uuid], "A UUIDv5 of the model's tensor data (model line only)");
  cmd->add_flag("--all", opts->all, "xxh64, xxh3, sha1 and sha256");
  cmd->add_flag("--no-layer", opts->no_layer, "Only the model lines, no per-tensor lines");
  names_path(cmd->add_option("-c,--check", opts->manifest,
                             "Verify against a manifest (llama-gguf-hash's or onnxq's); without a type option, "
                             "the strongest type in it"))
      ->type_name("MANIFEST");
  add_json_flag(*cmd, opts->json, "one object per line: type, hash, name, tensor and with --check result");
  add_threads_option(*cmd, opts->threads);
  cmd->footer(
      "Prints 'TYPE  HASH  FILE:TENSOR' for every tensor (all chosen types of a tensor together, tensors in "
      "file order), then 'TYPE  HASH  FILE' for the model, FILE as given: the manifest format of llama.cpp's "
      "llama-gguf-hash. A tensor's hash covers its bytes as stored; the model's covers every tensor's bytes "
      "in tensor-info order (not the padding), so editing metadata changes neither. uuid is a UUIDv5: SHA-1 "
      "over the namespace ef001206-dadc-5f6d-a15f-3359e577d4e5 and the model's tensor data. A split model "
      "is hashed whole (all shards' tensors, in order): its hashes equal those of the merged file.\n"
      "--check prints each line with '  -  Ok', '  -  Mismatch' or '  -  Not Found' and a summary; exit "
      "status 4 (differences, as diff --exit-code and check) when any hash mismatches or when no entry matches "
      "this file (llama-gguf-hash exits 1 and 3); 2 for a manifest or model that cannot be read as one. "
      "uuid lines are looked up under the type uuid (llama-gguf-hash looks them up under sha256, so it never "
      "verifies them).");
  cmd->callback([opts] { run_hash(*opts); });
}

const CommandRegistration hash_registration{"hash", 54, &add_hash_command};

}  // namespace
}  // namespace onnxq::cli

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
#include "onnxq/core/error.hpp"
#include "onnxq/hash/hash_report.hpp"
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

HashReport compute_hash(const HashOptions& opts) {
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
  return hash_report(opts.path, hash_model(model, types, opts.no_layer, opts.threads), manifest ? &*manifest : nullptr,
                     opts.manifest);
}

// A manifest is text for files and pipes, byte for byte; on a terminal, names are escaped.
void render_hash_text(const HashReport& f, bool terminal) {
  const bool checked = !f.manifest.empty();
  for (const HashReportRow& row : f.rows)
    std::printf("%s\n", manifest_line(row, terminal ? escape_for_terminal(row.name) : row.name, checked).c_str());
  if (checked)
    std::printf("\n%s: %zu ok, %zu mismatched, %zu not in the manifest\n", f.manifest.c_str(), f.ok, f.mismatched,
                f.missing);
}

void run_hash(const HashOptions& opts) {
  const HashReport f = compute_hash(opts);
  if (opts.json) {
    std::fflush(stdout);
    std::cout << hash_report_json(f) << '\n';
  } else {
    render_hash_text(f, stdout_is_terminal());
  }
  if (const auto failure = hash_check_failure(f)) throw DifferencesFound{*failure};
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

// onnxq formats: the format table.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct FormatsOptions {
  bool json = false;
  bool isa = false;
};

// The decoders' SIMD path (ONNXQ_ISA forces one) and the paths this CPU can run.
void run_isa(const FormatsOptions& opts) {
  const std::string active = active_isa();
  const std::vector<std::string> supported = supported_isas();
  if (opts.json) {
    std::cout << nlohmann::ordered_json{{"active_isa", active}, {"supported_isas", supported}}.dump(2) << '\n';
    return;
  }
  std::string list;
  for (const std::string& s : supported) list += (list.empty() ? "" : " ") + s;
  std::cout << "active isa: " << active << "\nsupported:  " << list << '\n';
}

void run_formats(const FormatsOptions& opts) {
  if (opts.isa) return run_isa(opts);
  if (opts.json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const BlockFormat& f : all_formats()) {
      rows.push_back({{"format_id", f.format_id},
                      {"ggml_type", f.ggml_type},
                      {"ggml_name", f.ggml_name},
                      {"gguf_name", f.gguf_name},
                      {"block_elements", f.block_elements},
                      {"block_bytes", f.block_bytes},
                      {"bits_per_weight", f.bits_per_weight()},
                      {"plain_dtype", f.is_block_format() ? "" : dtype_info(f.plain_dtype).short_name}});
    }
    std::cout << rows.dump(2) << '\n';
    return;
  }
  using A = TextTable::Align;
  TextTable table({"format", "ggml type", "name", "block elements", "block bytes", "bits/weight"},
                  {A::Left, A::Right, A::Left, A::Right, A::Right, A::Right});
  for (const BlockFormat& f : all_formats()) {
    char bpw[32];
    std::snprintf(bpw, sizeof bpw, "%.4g", f.bits_per_weight());
    table.add_row({f.is_block_format() ? std::string(f.format_id) : "-", std::to_string(f.ggml_type),
                   std::string(f.gguf_name), std::to_string(f.block_elements), std::to_string(f.block_bytes), bpw});
  }
  table.print(std::cout);
}

void add_formats_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<FormatsOptions>();
  CLI::App* cmd = app.add_subcommand("formats", "Show the format table: DequantizePacked formats and GGUF plain types");
  add_json_flag(*cmd, opts->json);
  std::string names;
  for (const std::string& name : known_isas()) names += (names.empty() ? "" : "|") + name;
  cmd->add_flag("--isa", opts->isa, "Show the SIMD path the decoders use (ONNXQ_ISA=" + names + " forces one)");
  cmd->callback([opts] { run_formats(*opts); });
}

const CommandRegistration formats_registration{"formats", 40, &add_formats_command};

}  // namespace
}  // namespace onnxq::cli

// onnxq list: one row per tensor.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "metadata_format.hpp"
#include "partial_model.hpp"
#include "tensor_selection.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct ListOptions {
  std::string path;
  std::string filter;
  bool json = false;
};

void run_list(const ListOptions& opts) {
  const GgufFile model = open_present_shards(opts.path);
  const auto tensors = select_tensors(model, {}, opts.filter, opts.filter.empty());
  const bool split = model.primary().split_number > 0;
  if (opts.json) {
    Json out = Json::array();
    for (const TensorInfo* t : tensors) {
      out.push_back({{"name", t->name},
                     {"type", t->format->gguf_name},
                     {"ggml_type", t->format->ggml_type},
                     {"format_id", t->format->format_id},
                     {"ne", t->ne},
                     {"shape", t->onnx_shape()},
                     {"elements", t->element_count},
                     {"bytes", t->byte_size},
                     {"offset_in_data", t->offset_in_data},
                     {"file_offset", t->file_offset},
                     {"shard", split ? shard_number(model, *t) - 1 : 0}});
    }
    std::cout << dump_json(out) << '\n';
    return;
  }
  using A = TextTable::Align;
  std::vector<std::string> header = {"name", "type", "format", "shape", "elements", "bytes", "offset"};
  std::vector<A> align = {A::Left, A::Left, A::Left, A::Left, A::Right, A::Right, A::Right};
  if (split) {
    header.push_back("shard");
    align.push_back(A::Right);
  }
  TextTable table(header, align);
  for (const TensorInfo* t : tensors) {
    std::vector<std::string> row = {escape_for_terminal(t->name),
                                    std::string(t->format->gguf_name),
                                    t->format->is_block_format() ? std::string(t->format->format_id) : "-",
                                    shape_to_string(t->onnx_shape()),
                                    std::to_string(t->element_count),
                                    std::to_string(t->byte_size),
                                    std::to_string(t->file_offset)};
    if (split) row.push_back(std::to_string(shard_number(model, *t)));
    table.add_row(std::move(row));
  }
  table.print(std::cout);
}

void add_list_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* cmd = app.add_subcommand("list", "List a GGUF file's tensors: type, format id, ONNX shape, size, offset");
  cmd->footer(
      "Any shard of a split model lists the tensors of all its shards (column 'shard'). When some shards are "
      "missing, those present are listed after a one-line warning on standard error.");
  add_gguf_file_argument(*cmd, opts->path);
  add_filter_option(*cmd, opts->filter);
  add_json_flag(*cmd, opts->json);
  cmd->callback([opts] { run_list(*opts); });
}

const CommandRegistration registration{"list", 30, &add_list_command};

}  // namespace
}  // namespace onnxq::cli

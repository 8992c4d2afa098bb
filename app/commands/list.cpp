// onnxq list: one row per tensor (text, JSON), or tensors grouped by layer with each group's
// elements, bytes and bits per weight (markdown, like gguf_dump.py --markdown).
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnxq/model/model_info.hpp"
#include "partial_model.hpp"
#include "report.hpp"
#include "tensor_selection.hpp"

namespace onnxq::cli {
namespace {

struct ListOptions {
  std::string path;
  std::string filter;
  bool json = false;
  bool markdown = false;
};

struct ListFacts {
  std::vector<const TensorInfo*> tensors;
  bool split = false;
};

std::string bits_text(const TensorTotals& totals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", totals.bits_per_weight());
  return buf;
}

void print_text(const GgufModel& model, const ListFacts& f) {
  using A = TextTable::Align;
  Table table{{"name", "type", "format", "shape", "elements", "bytes", "offset"},
              {A::Left, A::Left, A::Left, A::Left, A::Right, A::Right, A::Right},
              {}};
  if (f.split) {
    table.header.push_back("shard");
    table.align.push_back(A::Right);
  }
  for (const TensorInfo* t : f.tensors) {
    std::vector<Cell> row = {file_text(t->name),
                             plain(t->type_name()),
                             plain(t->format && t->format->is_block_format() ? std::string(t->format->format_id) : "-"),
                             plain(shape_to_string(t->onnx_shape())),
                             plain(std::to_string(t->element_count)),
                             plain(std::to_string(t->byte_size)),
                             plain(std::to_string(t->file_offset))};
    if (f.split) row.push_back(plain(std::to_string(shard_number(model, *t))));
    table.add(std::move(row));
  }
  print_table(std::cout, OutputFormat::Text, table);
}

void print_markdown(const ListFacts& f, const std::string& path) {
  using A = TextTable::Align;
  constexpr OutputFormat md = OutputFormat::Markdown;
  const std::vector<TensorGroup> groups = group_tensors_by_layer(f.tensors);
  TensorTotals all;
  for (const TensorInfo* t : f.tensors) all.add(*t);
  print_heading(std::cout, md, 1, path);
  print_paragraph(std::cout, md,
                  std::to_string(all.tensors) + " tensors, " + std::to_string(all.elements) + " elements, " +
                      std::to_string(all.bytes) + " bytes, " + bits_text(all) + " bits per weight.");
  Table overview{
      {"group", "tensors", "elements", "bytes", "bits/weight"}, {A::Left, A::Right, A::Right, A::Right, A::Right}, {}};
  for (const TensorGroup& g : groups)
    overview.add({g.name == "base" ? plain(g.name) : file_text(g.name), plain(std::to_string(g.totals.tensors)),
                  plain(std::to_string(g.totals.elements)), plain(std::to_string(g.totals.bytes)),
                  plain(bits_text(g.totals))});
  print_heading(std::cout, md, 2, "Groups");
  print_table(std::cout, md, overview);
  for (const TensorGroup& g : groups) {
    Table rows{{"name", "type", "shape", "elements", "bytes", "bits/weight"},
               {A::Left, A::Left, A::Left, A::Right, A::Right, A::Right},
               {}};
    for (const TensorInfo* t : g.tensors)
      rows.add({file_text(t->name), plain(t->type_name()), plain(shape_to_string(t->onnx_shape())),
                plain(std::to_string(t->element_count)), plain(std::to_string(t->byte_size)),
                plain(bits_text(TensorTotals{1, t->element_count, t->byte_size}))});
    print_heading(std::cout, md, 2, g.name);
    print_table(std::cout, md, rows);
    print_paragraph(std::cout, md,
                    std::to_string(g.totals.elements) + " elements, " + std::to_string(g.totals.bytes) + " bytes, " +
                        bits_text(g.totals) + " bits per weight.");
  }
}

void run_list(const ListOptions& opts) {
  const GgufModel model = open_present_shards(opts.path);
  ListFacts facts{select_tensors(model, {}, opts.filter, opts.filter.empty()), model.primary().split_number > 0};
  switch (output_format(opts.json, opts.markdown)) {
    case OutputFormat::Json: std::cout << tensor_list_json(model, facts.tensors) << '\n'; return;
    case OutputFormat::Markdown: return print_markdown(facts, opts.path);
    case OutputFormat::Text: return print_text(model, facts);
  }
}

void add_list_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* cmd = app.add_subcommand("list", "List a GGUF file's tensors: type, format id, ONNX shape, size, offset");
  cmd->footer(
      "Any shard of a split model lists the tensors of all its shards (column 'shard'). When some shards are "
      "missing, those present are listed after a one-line warning on standard error. --markdown groups the "
      "tensors by layer (blk.N; the others form the group 'base', as in gguf_dump.py) with each group's "
      "elements, bytes and bits per weight.");
  add_gguf_file_argument(*cmd, opts->path);
  add_filter_option(*cmd, opts->filter);
  add_json_flag(*cmd, opts->json);
  add_markdown_flag(*cmd, opts->markdown);
  cmd->callback([opts] { run_list(*opts); });
}

const CommandRegistration list_registration{"list", 30, &add_list_command};

}  // namespace
}  // namespace onnxq::cli

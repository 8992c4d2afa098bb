// Options that several commands take, each defined once here so that its name, help text,
// checks and documentation agree in every command. Commands call these instead of
// add_option/add_flag for FILE, --filter, --json and --threads.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq::cli {

// Declares that an option's value (or a positional) names a file or folder: the shell
// completions offer file names for exactly these options. Returns `option`, for chaining.
CLI::Option* names_path(CLI::Option* option);
bool option_names_path(const CLI::Option& option);

// Repeatable options take exactly one command-line word per occurrence, so that they never swallow
// the positional input that follows them (CLI11 lets a vector option eat every following word that
// is not an option; `--axes 0,2 x.npy` would read x.npy as an axis). repeatable_value: one value
// per use (--tensor A --tensor B). comma_list: each use is a comma-separated list, and the uses
// add up (--axes 0,2 == --axes 0 --axes 2). Both return `option`, for chaining.
CLI::Option* repeatable_value(CLI::Option* option);
CLI::Option* comma_list(CLI::Option* option);

// How many following command-line words one use of `option` may take, as CLI11 2.x parses it:
// 0 for a flag, 1 for an ordinary or repeatable option, -1 when unbounded (the option would
// swallow a positional). Only `--opt=V` is unaffected by this count.
int words_per_use(const CLI::Option& option);

enum class Presence { Required, Optional };

// FILE: the GGUF file to read (any shard of a split model).
CLI::Option* add_gguf_file_argument(CLI::App& cmd, std::string& path, Presence presence = Presence::Required);

// --filter GLOB: a shell glob (fnmatch) over tensor names or conformance case names.
enum class FilterOf { Tensors, Cases };
CLI::Option* add_filter_option(CLI::App& cmd, std::string& glob, FilterOf what = FilterOf::Tensors);

// --json: a flag; the command prints JSON on stdout instead of its text output. `detail`
// (optional) is appended to the help in parentheses.
CLI::Option* add_json_flag(CLI::App& cmd, bool& json, std::string_view detail = {});

// --markdown: a flag; the command prints GitHub markdown (headings and tables) instead of its text
// output. output_format (report.hpp) rejects it together with --json.
CLI::Option* add_markdown_flag(CLI::App& cmd, bool& markdown);

// --threads N: 0 (the default) means OMP_NUM_THREADS, else one per core (onnxq/core/parallel.hpp; see
// lib/src/stream/tensor_stream.cpp for writes); at most kMaxThreads; negative values are a usage error.
CLI::Option* add_threads_option(CLI::App& cmd, int& threads);

// --shape as the commands that take raw arrays spell it: sizes separated by commas ("2,32"), the
// option repeatable (its uses join with commas), "[]" or "" a scalar.
std::string join_with_commas(const std::vector<std::string>& words);
// Throws CLI::ValidationError(command, ...) for text that is not a list of sizes.
Shape parse_shape(const std::string& command, const std::string& text);

}  // namespace onnxq::cli

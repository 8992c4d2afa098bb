// onnxq unpack: Unpack-29 on a .npy or raw storage words, result as .npy.

#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "log.hpp"
#include "onnxq/ops/unpack.hpp"
#include "tensor_input.hpp"
#include "tensor_output.hpp"

namespace onnxq::cli {
namespace {

struct UnpackOptions {
  std::string input;
  std::string output;
  RawInputOptions raw;
  std::int64_t axis = -1;
  std::optional<std::int64_t> bits, radix, group_size, count;
};

void run_unpack(const UnpackOptions& opts) {
  if (!opts.bits && !opts.radix) throw CLI::RequiredError("give --bits B, or --radix R with --group-size G");
  const Tensor x = read_npy_or_raw_input(opts.input, opts.raw, DType::UInt8, {DType::UInt8, DType::UInt32});
  UnpackAttributes attrs;
  attrs.axis = opts.axis;
  attrs.bits = opts.bits;
  attrs.radix = opts.radix;
  attrs.group_size = opts.group_size;
  std::int64_t count = 0;
  if (opts.count) {
    count = *opts.count;
  } else {
    count = unpack_largest_count(x, attrs);
    log::info("no --count given: using {}, the largest count axis length allows", count);
  }
  const Tensor count_tensor = Tensor::from_bytes(DType::Int64, {}, std::as_bytes(std::span(&count, 1)));
  write_npy_output(unpack(x, count_tensor, attrs), opts.output);
}

void add_unpack_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<UnpackOptions>();
  CLI::App* cmd =
      app.add_subcommand("unpack", "Unpack-29: LSB-first bit codes or radix/group codes from UINT8/UINT32 words");
  add_input_argument(cmd, opts->input, "Storage words: a .npy (its dtype is the storage) or raw bytes");
  auto* bits = cmd->add_option("--bits", opts->bits, "Bits per code, 1..8");
  auto* radix = cmd->add_option("--radix", opts->radix, "Radix of grouped codes, 2..256 (needs --group-size)");
  auto* group = cmd->add_option("--group-size", opts->group_size, "Codes per group (needs --radix)");
  bits->excludes(radix)->excludes(group);
  radix->needs(group);
  group->needs(radix);
  cmd->add_option("--count", opts->count, "Codes per row (default: the largest the axis length allows; see -v)");
  cmd->add_option("--axis", opts->axis, "Axis of the packed rows; negative counts from the back")
      ->capture_default_str();
  cmd->add_option("--storage", opts->raw.storage, "Raw input: word type u8 or u32 (default u8)");
  comma_list(cmd->add_option("--shape", opts->raw.shape,
                             "Raw input: shape in words, e.g. 4,16 (default: 1-D; repeatable: the uses add up)"));
  add_npy_output_option(cmd, opts->output);
  cmd->callback([opts] { run_unpack(*opts); });
}

const CommandRegistration unpack_registration{"unpack", 70, &add_unpack_command};

}  // namespace
}  // namespace onnxq::cli

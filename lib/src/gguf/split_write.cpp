// gguf-split's split and merge over the GGUF writer: the planner fills shards greedily in tensor
// order, sizing each file as the writer will lay it out.
#include "onnxq/gguf/split_write.hpp"

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/layout.hpp"
#include "onnxq/gguf/split.hpp"
#include "onnxq/io/file_set.hpp"
#include "onnxq/io/same_file.hpp"

namespace onnxq {

namespace {

GgufMetadata without_split_keys(const GgufModel& model) {
  GgufMetadata md = GgufMetadata::from_records(model.metadata());
  md.remove(kGgufSplitNoKey);
  md.remove(kGgufSplitCountKey);
  md.remove(kGgufSplitTensorsCountKey);
  return md;
}

GgufWriteOptions write_options(const GgufModel& model) {
  GgufWriteOptions options;
  options.version = model.primary().version;
  options.big_endian = model.primary().big_endian;
  return options;
}

// One shard's tensors: [begin, end) of `all`.
struct Range {
  std::size_t begin = 0, end = 0;
};

std::uint64_t checked_total(std::optional<std::uint64_t> v) {
  if (!v) invalid_argument("a shard would exceed 64 bits");
  return *v;
}

}  // namespace

std::vector<GgufFilePlan> gguf_plan_split(const GgufModel& model, const std::string& prefix,
                                          const GgufSplitLimits& limits) {
  if (limits.max_bytes.has_value() == limits.max_tensors.has_value())
    invalid_argument("give one limit: a maximum size or a maximum tensor count");
  if ((limits.max_bytes && *limits.max_bytes == 0) || (limits.max_tensors && *limits.max_tensors == 0))
    invalid_argument("the shard limit must be positive");
  const GgufWriteOptions options = write_options(model);
  const GgufMetadata model_md = without_split_keys(model);
  std::vector<GgufWriterTensor> all;
  for (const TensorInfo& t : model.tensors()) all.push_back(gguf_writer_tensor(model, t));
  const std::uint64_t n_tensors = all.size();
  if (n_tensors > kGgufSplitMaxTensors)
    invalid_argument("split.tensors.count is an " + std::string(gguf_type_name(kGgufSplitTensorsCountType)) + ": " +
                     std::to_string(n_tensors) + " tensors do not fit");

  // The split.* keys, of split.hpp's types: their values' sizes do not depend on them, so a
  // placeholder sizes them.
  const auto with_keys = [&](GgufMetadata md, std::uint64_t no, std::uint64_t count) {
    md.set(kGgufSplitNoKey, GgufOwnedValue::scalar(kGgufSplitNoType, no));
    md.set(kGgufSplitCountKey, GgufOwnedValue::scalar(kGgufSplitCountType, count));
    md.set(kGgufSplitTensorsCountKey, GgufOwnedValue::scalar(kGgufSplitTensorsCountType, n_tensors));
    return md;
  };
  // Shards past the first keep only general.alignment, which decides their layout.
  GgufMetadata rest_md;
  if (const GgufOwnedValue* a = model_md.find("general.alignment")) rest_md.set("general.alignment", *a);
  const GgufLayoutPlan probe = gguf_plan(model_md, {}, options);  // checks general.alignment
  const std::uint64_t alignment = probe.alignment;
  // Each file's header size, as the writer's serializer counts it.
  const std::uint64_t first_base = gguf_metadata_bytes(with_keys(model_md, 0, 0));
  const std::uint64_t rest_base = gguf_metadata_bytes(with_keys(rest_md, 0, 0));

  std::vector<Range> ranges;
  Range current;
  std::uint64_t header = first_base, data = 0;
  const auto close = [&] {
    ranges.push_back(current);
    current = Range{current.end, current.end};
    header = rest_base;
    data = 0;
  };
  if (limits.no_tensor_first_split) close();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::uint64_t count = current.end - current.begin;
    const std::uint64_t next_header = checked_total(checked_add(header, gguf_tensor_info_bytes(all[i])));
    const std::uint64_t next_data =
        checked_total(checked_add(data, checked_total(gguf_padded(all[i].byte_size, alignment))));
    bool full = false;
    if (limits.max_tensors)
      full = count >= *limits.max_tensors;
    else if (count > 0)
      full =
          checked_total(checked_add(checked_total(gguf_padded(next_header, alignment)), next_data)) > *limits.max_bytes;
    if (full) {
      close();
      --i;
      continue;
    }
    header = next_header;
    data = next_data;
    current.end = i + 1;
  }
  if (current.end > current.begin || ranges.empty()) ranges.push_back(current);
  if (ranges.size() > kGgufSplitMaxShards)
    invalid_argument(std::to_string(ranges.size()) + " shards: split.count holds at most " +
                     std::to_string(kGgufSplitMaxShards));

  std::vector<GgufFilePlan> plans;
  const std::uint64_t n = ranges.size();
  for (std::uint64_t s = 0; s < n; ++s) {
    GgufFilePlan plan;
    plan.path = gguf_split_path(prefix, s + 1, n);
    refuse_output_onto_input(plan.path);
    plan.metadata = with_keys(s == 0 ? model_md : rest_md, s, n);
    plan.tensors.assign(all.begin() + static_cast<std::ptrdiff_t>(ranges[s].begin),
                        all.begin() + static_cast<std::ptrdiff_t>(ranges[s].end));
    plan.layout = gguf_plan(plan.metadata, plan.tensors, options);
    plans.push_back(std::move(plan));
  }
  return plans;
}

GgufFilePlan gguf_plan_merge(const GgufModel& model, const std::string& path) {
  // A shard's name as the output: the pattern a glob matches, never a merged file's name.
  if (parse_gguf_split_name(path))
    invalid_argument("refusing to write " + path + ": the name is a shard's (-NNNNN-of-NNNNN.gguf)");
  refuse_output_onto_input(path);
  GgufFilePlan plan;
  plan.path = path;
  plan.metadata = without_split_keys(model);
  for (const TensorInfo& t : model.tensors()) plan.tensors.push_back(gguf_writer_tensor(model, t));
  plan.layout = gguf_plan(plan.metadata, plan.tensors, write_options(model));
  return plan;
}

std::vector<std::string> gguf_write_files(const GgufModel& model, const std::vector<GgufFilePlan>& files,
                                          const GgufFileCreator& create) {
  const GgufWriteOptions options = write_options(model);
  // Every file is created before any is written: a refused target stops the whole set first.
  std::vector<AtomicFile> outputs;
  outputs.reserve(files.size());
  for (const GgufFilePlan& f : files) outputs.push_back(create ? create(f.path) : AtomicFile::create(f.path));
  FileSet set;
  for (std::size_t i = 0; i < files.size(); ++i) {
    gguf_write(outputs[i], files[i].layout, files[i].tensors, options);
    set.add(outputs[i]);
  }
  set.commit();
  std::vector<std::string> paths;
  for (const GgufFilePlan& f : files) paths.push_back(f.path);
  return paths;
}

}  // namespace onnxq

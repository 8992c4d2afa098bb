// check_gguf_bytes / check_gguf_file: check_file per file, then the split.* rules across shards.
#include <unordered_map>

#include "file_rules.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/gguf/split.hpp"
#include "onnxq/io/mapped_file.hpp"

namespace onnxq {
namespace {

using check_detail::find_key;
using check_detail::Report;

// A split.* integer as onnxq's reader takes it: nullopt when absent; a finding when not an integer.
std::optional<std::uint64_t> split_value(const GgufFile& facts, std::string_view key, Report& report) {
  const GgufKeyValue* kv = find_key(facts, key);
  if (!kv) return std::nullopt;
  if (!kv->value.is_integer()) {
    report.error("split-key-type", kv->offset, "is not an integer (onnxq's reader rejects it)").key = kv->key;
    return std::nullopt;
  }
  return kv->value.raw_bits();
}

struct Shard {
  std::string path;
  Report report;
  GgufFile facts;  // the records check_file read
};

// Each problem of the rule set as a finding at its key's record (or at no offset).
void add_findings(const std::vector<GgufSplitProblem>& problems, const GgufFile& facts, Report& report) {
  for (const GgufSplitProblem& p : problems) {
    const GgufKeyValue* kv = p.key.empty() ? nullptr : find_key(facts, p.key);
    const std::optional<std::uint64_t> offset = kv ? std::optional(kv->offset) : std::nullopt;
    Finding& f = p.warning ? report.warning(std::string(p.code), offset, p.finding)
                           : report.error(std::string(p.code), offset, p.finding);
    if (kv) f.key = kv->key;
  }
}

void split_rules(std::vector<Shard>& shards, int count) {
  std::vector<GgufSplitShard> set;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    Shard& s = shards[i];
    GgufSplitKeys keys;
    keys.no = split_value(s.facts, kGgufSplitNoKey, s.report);
    keys.count = split_value(s.facts, kGgufSplitCountKey, s.report);
    keys.tensors_count = split_value(s.facts, kGgufSplitTensorsCountKey, s.report);
    add_findings(gguf_split_shard_problems(keys, static_cast<int>(i) + 1, count), s.facts, s.report);
    set.push_back({keys, s.facts.tensors.size()});
  }
  std::vector<std::vector<GgufSplitProblem>> by_shard(shards.size());
  for (GgufSplitProblem& p : gguf_split_set_problems(set)) by_shard[p.shard].push_back(std::move(p));
  for (std::size_t i = 0; i < shards.size(); ++i) add_findings(by_shard[i], shards[i].facts, shards[i].report);
  // Last in each shard's findings (shard 0, the first, holds none).
  std::unordered_map<std::string_view, std::size_t> names;
  for (std::size_t i = 0; i < shards.size(); ++i)
    for (const auto& t : shards[i].facts.tensors) {
      auto [it, fresh] = names.try_emplace(t.name, i);
      if (!fresh && it->second != i)
        shards[i]
            .report
            .error("split-duplicate-tensor", t.info_offset, "also appears in shard " + std::to_string(it->second + 1))
            .tensor = t.name;
    }
}

}  // namespace

std::vector<Finding> check_gguf_bytes(std::span<const std::byte> bytes, const std::string& name) {
  Report report(name);
  GgufFile shard;
  check_detail::check_file(bytes, name, report, shard);
  return std::move(report.findings());
}

std::vector<Finding> check_gguf_file(const std::string& path) {
  const auto name = parse_gguf_split_name(path);
  const bool split_name = name && name->count > 1;
  std::vector<Shard> shards;
  std::vector<Finding> out;
  auto walk = [&](const std::string& p, const MappedFile& file) {
    shards.push_back({p, Report(p), {}});
    check_detail::check_file(file.bytes(), p, shards.back().report, shards.back().facts);
  };
  if (!split_name) {
    auto file = MappedFile::open(path);  // Error(Io) when it cannot be read
    walk(path, *file);
    Shard& s = shards.front();
    GgufSplitKeys keys;
    keys.count = split_value(s.facts, kGgufSplitCountKey, s.report);
    add_findings(gguf_unsplit_name_problems(keys), s.facts, s.report);
    return std::move(s.report.findings());
  }
  const int count = name->count;
  MappedFile::open(path);  // the named file itself must be readable
  Report set(path);
  for (const GgufSplitProblem& p : gguf_split_name_problems(name->number, count))
    set.error(std::string(p.code), std::nullopt, p.finding);
  std::vector<std::shared_ptr<const MappedFile>> files;  // the walk's views point into them
  bool complete = true;
  for (int i = 1; i <= count; ++i) {
    const std::string p = gguf_split_path(name->base, i, count);
    std::shared_ptr<const MappedFile> file;
    try {
      file = MappedFile::open(p);
    } catch (const std::exception&) {
      set.error("split-missing-shard", std::nullopt,
                "shard " + std::to_string(i) + " of " + std::to_string(count) + " cannot be read: " + p);
      complete = false;
      continue;
    }
    files.push_back(file);
    walk(p, *file);
  }
  if (complete) split_rules(shards, count);
  for (auto& f : set.findings()) out.push_back(std::move(f));
  for (auto& s : shards)
    for (auto& f : s.report.findings()) out.push_back(std::move(f));
  return out;
}

}  // namespace onnxq

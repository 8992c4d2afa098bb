// check_gguf_bytes / check_gguf_file: check_file per file, then the split.* rules across shards.
#include <cstdio>
#include <filesystem>
#include <regex>
#include <unordered_map>

#include "file_rules.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/mapped_file.hpp"

namespace onnxq {
namespace {

using check_detail::find_key;
using check_detail::Report;

// A split.* integer as onnxq's reader takes it: nullopt when absent; a finding when not an integer.
std::optional<std::uint64_t> split_value(const GgufShard& facts, std::string_view key, Report& report) {
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
  GgufShard facts;  // the records check_file read
};

void split_rules(std::vector<Shard>& shards, std::uint64_t count) {
  std::optional<std::uint64_t> first_total;
  std::uint64_t found = 0;
  std::unordered_map<std::string_view, std::size_t> names;
  std::size_t with_keys = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    Shard& s = shards[i];
    const auto no = split_value(s.facts, "split.no", s.report);
    const auto n = split_value(s.facts, "split.count", s.report);
    const auto total = split_value(s.facts, "split.tensors.count", s.report);
    with_keys += (no || n || total) ? 1 : 0;
    if (n && *n != count)
      s.report
          .error("split-count", find_key(s.facts, "split.count")->offset,
                 "says " + std::to_string(*n) + " shards, but the file name says " + std::to_string(count))
          .key = "split.count";
    if (no && *no != i)
      s.report
          .error(
              "split-no", find_key(s.facts, "split.no")->offset,
              "is " + std::to_string(*no) + ", expected " + std::to_string(i) + " for shard " + std::to_string(i + 1))
          .key = "split.no";
    if (i == 0) first_total = total;
    if (i > 0 && total && first_total && *total != *first_total)
      s.report
          .warning("split-keys-disagree", find_key(s.facts, "split.tensors.count")->offset,
                   "is " + std::to_string(*total) + " here but " + std::to_string(*first_total) + " in the first shard")
          .key = "split.tensors.count";
    found += s.facts.tensors.size();
    for (const auto& t : s.facts.tensors) {
      auto [it, fresh] = names.try_emplace(t.name, i);
      if (!fresh && it->second != i)
        s.report
            .error("split-duplicate-tensor", t.info_offset, "also appears in shard " + std::to_string(it->second + 1))
            .tensor = t.name;
    }
  }
  if (first_total && *first_total != found)
    shards[0]
        .report
        .error("split-tensor-count", find_key(shards[0].facts, "split.tensors.count")->offset,
               "says " + std::to_string(*first_total) + " tensors, but the shards hold " + std::to_string(found))
        .key = "split.tensors.count";
  if (with_keys != 0 && with_keys != shards.size())
    shards[0].report.warning("split-keys-disagree", std::nullopt,
                             std::to_string(shards.size() - with_keys) + " of " + std::to_string(shards.size()) +
                                 " shards have no split.* keys while the others have them");
}

}  // namespace

std::vector<Finding> check_gguf_bytes(std::span<const std::byte> bytes, const std::string& name) {
  Report report(name);
  GgufShard shard;
  check_detail::check_file(bytes, name, report, shard);
  return std::move(report.findings());
}

std::vector<Finding> check_gguf_file(const std::string& path) {
  static const std::regex pattern(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
  std::smatch m;
  const bool split_name = std::regex_match(path, m, pattern) && std::stoi(m[3].str()) > 1;
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
    const auto count = split_value(s.facts, "split.count", s.report);
    if (count && *count > 1)
      s.report
          .error("split-count", find_key(s.facts, "split.count")->offset,
                 "is " + std::to_string(*count) +
                     " but the file name does not follow <name>-00001-of-0000N.gguf, so its shards cannot be found")
          .key = "split.count";
    return std::move(s.report.findings());
  }
  const std::string base = m[1].str();
  const int index = std::stoi(m[2].str()), count = std::stoi(m[3].str());
  MappedFile::open(path);  // the named file itself must be readable
  Report set(path);
  if (index < 1 || index > count)
    set.error("split-index", std::nullopt,
              "shard number " + std::to_string(index) + " is outside 1.." + std::to_string(count));
  std::vector<std::shared_ptr<const MappedFile>> files;  // the walk's views point into them
  bool complete = true;
  for (int i = 1; i <= count; ++i) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d.gguf", i, count);
    const std::string p = base + suffix;
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
  if (complete) split_rules(shards, static_cast<std::uint64_t>(count));
  for (auto& f : set.findings()) out.push_back(std::move(f));
  for (auto& s : shards)
    for (auto& f : s.report.findings()) out.push_back(std::move(f));
  return out;
}

}  // namespace onnxq

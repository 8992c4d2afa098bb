// gguf-split's file names and the consistency rules of the split.* keys. Each rule is written
// once with both its messages: GgufModel::open's (the first problem is the error) and `onnxq
// check`'s (every problem is a finding).
#include "onnxq/gguf/split.hpp"

#include <cstdio>

namespace onnxq {

namespace {

std::string decimal(std::uint64_t v) { return std::to_string(v); }

int five_digits(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

// The suffix has a fixed length, so it is the last 20 characters. (Parsed by hand: compiling a
// std::regex cost more than the rest of `onnxq info`.)
std::optional<GgufSplitName> parse_gguf_split_name(std::string_view path) {
  constexpr std::string_view kShape = "-#####-of-#####.gguf";
  if (path.size() < kShape.size()) return std::nullopt;
  const std::string_view suffix = path.substr(path.size() - kShape.size());
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const bool ok = kShape[i] == '#' ? suffix[i] >= '0' && suffix[i] <= '9' : suffix[i] == kShape[i];
    if (!ok) return std::nullopt;
  }
  return GgufSplitName{std::string(path.substr(0, path.size() - kShape.size())), five_digits(suffix.substr(1, 5)),
                       five_digits(suffix.substr(10, 5))};
}

std::string split_shard_suffix(std::uint64_t number, std::uint64_t count) {
  char text[64];
  std::snprintf(text, sizeof text, "-%05llu-of-%05llu", static_cast<unsigned long long>(number),
                static_cast<unsigned long long>(count));
  return text;
}

std::string gguf_split_path(std::string_view base, std::uint64_t number, std::uint64_t count) {
  return std::string(base) + split_shard_suffix(number, count) + ".gguf";
}

std::vector<GgufSplitProblem> gguf_split_name_problems(int number, int count) {
  std::vector<GgufSplitProblem> out;
  if (number < 1 || number > count) {
    const std::string what = "shard number " + std::to_string(number) + " is outside 1.." + std::to_string(count);
    out.push_back({"split-index", 0, {}, false, what, what});
  }
  return out;
}

std::vector<GgufSplitProblem> gguf_split_shard_problems(const GgufSplitKeys& keys, int number, int count) {
  std::vector<GgufSplitProblem> out;
  const auto n = static_cast<std::uint64_t>(count);
  if (keys.count && *keys.count != n)
    out.push_back(
        {"split-count", 0, kGgufSplitCountKey, false,
         "metadata split.count = " + decimal(*keys.count) + ", but the file name says " + decimal(n) + " shards",
         "says " + decimal(*keys.count) + " shards, but the file name says " + decimal(n)});
  const auto index = static_cast<std::uint64_t>(number - 1);
  if (keys.no && *keys.no != index) {
    const std::string tail = ", expected " + decimal(index) + " for shard " + std::to_string(number);
    out.push_back({"split-no", 0, kGgufSplitNoKey, false, "metadata split.no = " + decimal(*keys.no) + tail,
                   "is " + decimal(*keys.no) + tail});
  }
  return out;
}

std::vector<GgufSplitProblem> gguf_unsplit_name_problems(const GgufSplitKeys& keys) {
  std::vector<GgufSplitProblem> out;
  if (keys.count && *keys.count > 1) {
    const std::string tail = "<name>-00001-of-0000N.gguf, so its shards cannot be found";
    out.push_back({"split-count", 0, kGgufSplitCountKey, false,
                   "metadata split.count = " + decimal(*keys.count) + " but the file name does not follow the " +
                       "<name>-00001-of-0000N.gguf pattern, so its shards cannot be found",
                   "is " + decimal(*keys.count) + " but the file name does not follow " + tail});
  }
  return out;
}

std::vector<GgufSplitProblem> gguf_split_set_problems(std::span<const GgufSplitShard> shards) {
  std::vector<GgufSplitProblem> out;
  if (shards.empty()) return out;
  const auto first_total = shards.front().keys.tensors_count;
  std::uint64_t found = 0;
  std::size_t with_keys = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const GgufSplitShard& s = shards[i];
    with_keys += s.keys.any() ? 1 : 0;
    found += s.tensor_count;
    const auto total = s.keys.tensors_count;
    if (i > 0 && total && first_total && *total != *first_total)
      out.push_back({"split-keys-disagree",
                     i,
                     kGgufSplitTensorsCountKey,
                     true,
                     {},
                     "is " + decimal(*total) + " here but " + decimal(*first_total) + " in the first shard"});
  }
  if (first_total && *first_total != found)
    out.push_back({"split-tensor-count", 0, kGgufSplitTensorsCountKey, false,
                   "metadata split.tensors.count = " + decimal(*first_total) + ", but the shards hold " +
                       decimal(found) + " tensors",
                   "says " + decimal(*first_total) + " tensors, but the shards hold " + decimal(found)});
  if (with_keys != 0 && with_keys != shards.size())
    out.push_back({"split-keys-disagree",
                   0,
                   {},
                   true,
                   {},
                   decimal(shards.size() - with_keys) + " of " + decimal(shards.size()) +
                       " shards have no split.* keys while the others have them"});
  return out;
}

}  // namespace onnxq

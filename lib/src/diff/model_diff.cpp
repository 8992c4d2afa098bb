#include "onnxq/diff/model_diff.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "onnxq/gguf/tensor_reader.hpp"

namespace onnxq {
namespace {

constexpr std::uint64_t kStepBytes = 256u << 10;  // compared a step at a time: never a whole tensor

// Whether two tensors of one known format hold the same bytes once both are little-endian; a few
// blocks at a time, so that big-endian data is never swapped whole.
bool same_little_endian_bytes(const GgufModel& a, const TensorInfo& ta, const GgufModel& b, const TensorInfo& tb) {
  if (ta.byte_size != tb.byte_size) return false;
  const std::uint64_t blocks = ta.byte_size / ta.format->block_bytes;
  const std::uint64_t step = std::max<std::uint64_t>(1, kStepBytes / ta.format->block_bytes);
  const TensorReader ra(a, ta), rb(b, tb);
  std::vector<std::byte> scratch_a, scratch_b;
  for (std::uint64_t first = 0; first < blocks; first += step) {
    const std::uint64_t n = std::min(step, blocks - first);
    bool same = false;
    ra.read_blocks(first, n, scratch_a, [&](std::span<const std::byte> x) {
      rb.read_blocks(first, n, scratch_b,
                     [&](std::span<const std::byte> y) { same = std::memcmp(x.data(), y.data(), x.size()) == 0; });
    });
    if (!same) return false;
  }
  return true;
}

// Whether two tensors of a type onnxq does not know hold the same stored bytes. Their byte order
// cannot be undone, so files of different byte orders never compare equal.
bool same_stored_bytes(const GgufModel& a, const TensorInfo& ta, const GgufModel& b, const TensorInfo& tb) {
  if (ta.byte_size != tb.byte_size || a.shards().at(ta.shard).big_endian != b.shards().at(tb.shard).big_endian)
    return false;
  const TensorReader ra(a, ta), rb(b, tb);
  std::vector<std::byte> scratch_a, scratch_b;
  for (std::uint64_t at = 0; at < ta.byte_size; at += kStepBytes) {
    const std::uint64_t n = std::min(kStepBytes, ta.byte_size - at);
    bool same = false;
    ra.read_stored(at, n, scratch_a, [&](std::span<const std::byte> x) {
      rb.read_stored(at, n, scratch_b,
                     [&](std::span<const std::byte> y) { same = std::memcmp(x.data(), y.data(), x.size()) == 0; });
    });
    if (!same) return false;
  }
  return true;
}

}  // namespace

std::size_t ModelDifference::changed() const {
  return static_cast<std::size_t>(
      std::count_if(tensors.begin(), tensors.end(), [](const TensorDifference& t) { return !t.same_bytes; }));
}

bool ModelDifference::differ() const { return !only_a.empty() || !only_b.empty() || changed() > 0; }

ModelDifference diff_models(const GgufModel& a, const GgufModel& b, const ModelDiffOptions& options) {
  const auto selected = [&](std::string_view name) { return !options.selected || options.selected(name); };
  const auto progress = [&](std::uint64_t n) {
    if (options.on_bytes) options.on_bytes(n);
  };
  ModelDifference d;
  std::vector<std::pair<const TensorInfo*, const TensorInfo*>> pairs;
  std::uint64_t total = 0;
  for (const TensorInfo& t : a.tensors()) {
    if (!selected(t.name)) continue;
    const TensorInfo* other = b.find_tensor(t.name);
    if (!other) {
      d.only_a.emplace_back(t.name);
      continue;
    }
    pairs.emplace_back(&t, other);
    if (t.ne == other->ne) total += t.byte_size;
  }
  for (const TensorInfo& t : b.tensors())
    if (selected(t.name) && !a.find_tensor(t.name)) d.only_b.emplace_back(t.name);
  if (options.on_total) options.on_total(total);

  for (const auto& [ta, tb] : pairs) {
    TensorDifference& p = d.tensors.emplace_back();
    p.name = ta->name;
    p.type_a = ta->type_name();
    p.type_b = tb->type_name();
    p.shape_a = ta->onnx_shape();
    p.shape_b = tb->onnx_shape();
    const bool known = ta->format && tb->format;
    p.same_bytes = ta->ggml_type == tb->ggml_type && ta->ne == tb->ne &&
                   (known ? same_little_endian_bytes(a, *ta, b, *tb) : same_stored_bytes(a, *ta, b, *tb));
    if (!known) progress(ta->ne == tb->ne ? ta->byte_size : 0);
    if (ta->ne != tb->ne || !known) continue;
    p.compared = true;
    if (p.same_bytes) {
      p.values.count = ta->element_count;  // identical blocks decode identically
      progress(ta->byte_size);
      continue;
    }
    if (options.on_tensor) options.on_tensor(p.name);
    const TensorReader ra(a, *ta), rb(b, *tb);
    p.values = compare_tensors(ra, rb, ta->element_count, options.threads, options.on_bytes);
    ra.check();
    rb.check();
  }
  return d;
}

}  // namespace onnxq

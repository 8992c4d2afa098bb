// ggml's rules for the data section, beyond onnxq's reader (which reads each tensor at its own
// offset): tensor i starts where tensor i-1 ends, padded to the alignment, and the file holds the
// whole padded section. Unused bytes should be zeros.
#include <algorithm>
#include <vector>

#include "file_rules.hpp"
#include "onnxq/gguf/layout.hpp"

namespace onnxq::check_detail {
void nonzero_padding(std::span<const std::byte> bytes, std::uint64_t from, std::uint64_t to, std::string_view what,
                     Report& report) {
  for (std::uint64_t i = from; i < to && i < bytes.size(); ++i)
    if (bytes[i] != std::byte{0}) {
      report.warning("nonzero-padding", i, "non-zero byte in " + std::string(what) + ": unused bytes that hold data");
      return;
    }
}

// Each departure from ggml's layout is reported for what it is: out of order, overlapping, or a gap.
void ggml_layout_rules(const GgufFile& shard, Report& report) {
  const auto& ts = shard.tensors;
  // With no tensors the data section is empty and ggml reads nothing from it, so the file may
  // end before its padded start (gguf-py's writer leaves vocab-only files so).
  if (ts.empty()) return;
  const std::uint64_t align = shard.alignment, data = shard.data_offset, size = shard.size;
  const std::size_t before = report.findings().size();
  for (std::size_t i = 1; i < ts.size(); ++i)
    if (ts[i].offset_in_data < ts[i - 1].offset_in_data)
      report
          .error("data-out-of-order", ts[i].info_offset,
                 "data at " + std::to_string(ts[i].offset_in_data) + " lies before that of the previous tensor (" +
                     std::to_string(ts[i - 1].offset_in_data) + "): ggml's reader requires tensor-info order")
          .tensor = ts[i].name;
  // Overlaps and gaps, in the order the bytes lie.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (ts[i].byte_size > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ts[a].offset_in_data < ts[b].offset_in_data; });
  std::uint64_t end = 0;     // padded end of the data so far
  std::uint64_t reach = 0;   // unpadded end of the data so far
  std::size_t furthest = 0;  // the tensor that reaches `reach`
  bool first = true;
  for (std::size_t i : order) {
    const TensorInfo& t = ts[i];
    if (!first && t.offset_in_data < reach)
      report
          .error("data-overlap", t.info_offset,
                 "data [" + std::to_string(t.offset_in_data) + ", +" + std::to_string(t.byte_size) +
                     ") overlaps that of tensor #" + std::to_string(furthest) +
                     " in tensor-info order: ggml's reader refuses it")
          .tensor = t.name;
    else if (t.offset_in_data > end)
      report
          .error("data-gap", t.info_offset,
                 std::to_string(t.offset_in_data - end) +
                     " unused bytes before this tensor's data: ggml's reader refuses gaps")
          .tensor = t.name;
    const std::uint64_t t_end = t.offset_in_data + t.byte_size;
    if (first || t_end > reach) {
      reach = t_end;
      furthest = i;
    }
    first = false;
    const std::uint64_t padded_end = gguf_padded(t_end, align).value_or(t_end);
    if (padded_end > end) {
      nonzero_padding(shard.bytes, data + std::max(end, t_end), data + std::min(padded_end, size - data),
                      "the padding after a tensor's data", report);
      end = padded_end;
    }
  }
  // The exact chain ggml computes.
  std::vector<std::uint64_t> sizes;
  sizes.reserve(ts.size());
  for (const TensorInfo& t : ts) sizes.push_back(t.byte_size);
  const std::vector<std::uint64_t> chain_offsets = gguf_tensor_offsets(sizes, align);
  bool chain = true;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const TensorInfo& t = ts[i];
    const std::uint64_t expected = chain_offsets[i];
    if (t.offset_in_data != expected || i + 1 >= chain_offsets.size()) {
      if (report.findings().size() == before)
        report
            .error("data-misplaced", t.info_offset,
                   "data offset " + std::to_string(t.offset_in_data) + ", but ggml's reader expects " +
                       std::to_string(expected) + " (the previous tensors' padded sizes)")
            .tensor = t.name;
      chain = false;
      break;
    }
  }
  // ggml reads the whole padded data section, to the padded end of the last tensor.
  const std::uint64_t section_end = data + (chain ? chain_offsets.back() : end);
  if (chain && section_end > size)
    report.error("data-section-truncated", size,
                 "the file ends " + std::to_string(section_end - size) +
                     " bytes before the padded end of the data section: ggml's reader refuses it when it loads "
                     "the data (as llama-gguf-hash does); llama.cpp's mmap loader accepts it");
  else if (section_end < size)
    report.warning(
        "trailing-bytes", section_end,
        std::to_string(size - section_end) + " bytes after the padded end of the data section belong to no tensor");
}

}  // namespace onnxq::check_detail

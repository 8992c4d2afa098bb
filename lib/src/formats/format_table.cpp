// The run-time face of the format rows (formats/format_rows.hpp): look-ups by ggml type and name.
#include <algorithm>
#include <cctype>
#include <string>

#include "formats/format_rows.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

using formats::kBlockFormatCount;
using formats::kFormatRows;

constexpr bool rows_are_in_order() {
  for (std::size_t i = 0; i < kFormatRows.size(); ++i)
    if (kFormatRows[i].index != i || kFormatRows[i].is_block_format() != (i < kBlockFormatCount)) return false;
  return true;
}
static_assert(rows_are_in_order(), "block formats first, then the plain types, each at its own index");

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::span<const BlockFormat> all_formats() { return kFormatRows; }
std::span<const BlockFormat> block_formats() {
  return std::span<const BlockFormat>(kFormatRows).first(kBlockFormatCount);
}

const BlockFormat* find_format_by_ggml_type(std::uint32_t ggml_type) {
  for (const auto& f : kFormatRows)
    if (f.ggml_type == ggml_type) return &f;
  return nullptr;
}

const BlockFormat* find_format(std::string_view name) {
  std::string wanted = lower(name);
  if (wanted.starts_with("gguf:")) wanted.erase(0, 5);
  for (const auto& f : kFormatRows)
    if (wanted == lower(f.ggml_name)) return &f;
  return nullptr;
}

bool is_removed_ggml_type(std::uint32_t ggml_type) {
#define ONNXQ_REMOVED_TYPE(type, name) \
  if (ggml_type == (type)) return true;
#include "formats/format_rows.def"
  return false;
}

}  // namespace onnxq

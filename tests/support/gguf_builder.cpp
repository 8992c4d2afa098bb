#include "gguf_builder.hpp"

#include <map>
#include <stdexcept>

namespace onnxq::testing {

std::uint64_t test_tensor_bytes(std::uint32_t type, const std::vector<std::uint64_t>& ne) {
  // {elements per block, bytes per block}, from the decoding spec §1 and GGUF's plain types.
  static const std::map<std::uint32_t, std::pair<int, int>> sizes = {
      {0, {1, 4}},      {1, {1, 2}},      {2, {32, 18}},   {3, {32, 20}},    {6, {32, 22}},    {7, {32, 24}},
      {8, {32, 34}},    {9, {32, 36}},    {10, {256, 84}}, {11, {256, 110}}, {12, {256, 144}}, {13, {256, 176}},
      {14, {256, 210}}, {15, {256, 292}}, {16, {256, 66}}, {17, {256, 74}},  {18, {256, 98}},  {19, {256, 50}},
      {20, {32, 18}},   {21, {256, 110}}, {22, {256, 82}}, {23, {256, 136}}, {24, {1, 1}},     {25, {1, 2}},
      {26, {1, 4}},     {27, {1, 8}},     {28, {1, 8}},    {29, {256, 56}},  {30, {1, 2}},     {34, {256, 54}},
      {35, {256, 66}},  {39, {32, 17}},   {40, {64, 36}},  {41, {128, 18}},  {42, {64, 18}}};
  auto it = sizes.find(type);
  if (it == sizes.end()) return 0;
  std::uint64_t n = 1;
  for (auto d : ne)
    if (__builtin_mul_overflow(n, d, &n)) return UINT64_MAX;
  std::uint64_t bytes;
  if (__builtin_mul_overflow(n / it->second.first, static_cast<std::uint64_t>(it->second.second), &bytes))
    return UINT64_MAX;
  return bytes;
}

namespace {

std::vector<std::uint8_t> tensor_data(const BuilderTensor& t) {
  if (!t.data.empty() || !t.auto_data) return t.data;
  const std::uint64_t n = test_tensor_bytes(t.type, t.ne);
  if (n > (1u << 20)) return {};
  return std::vector<std::uint8_t>(n, 0);
}

}  // namespace

std::vector<std::uint8_t> GgufBuilder::build() const {
  GgufBytes out(big_endian);
  out.raw(magic);
  out.u32(version);
  out.u64(n_tensors_override.value_or(tensors_.size()));
  out.u64(n_kv_override.value_or(kvs_.size()));
  for (const Kv& kv : kvs_) {
    out.str(kv.key);
    out.u32(kv.type);
    out.raw(kv.payload);
  }
  std::vector<std::uint64_t> offsets;
  std::vector<std::vector<std::uint8_t>> datas;
  std::uint64_t next = 0;
  for (const BuilderTensor& t : tensors_) {
    datas.push_back(tensor_data(t));
    const std::uint64_t off = t.offset.value_or(next);
    offsets.push_back(off);
    next = ((off + datas.back().size() + alignment - 1) / alignment) * alignment;
  }
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    const BuilderTensor& t = tensors_[i];
    out.str(t.name);
    out.u32(static_cast<std::uint32_t>(t.ne.size()));
    for (auto d : t.ne) out.u64(d);
    out.u32(t.type);
    out.u64(offsets[i]);
  }
  auto& bytes = out.bytes();
  const std::uint64_t data_start = ((bytes.size() + alignment - 1) / alignment) * alignment;
  bytes.resize(data_start, 0);
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    const auto& data = datas[i];
    if (data.empty()) continue;
    std::uint64_t at;
    // Offsets that point far away (broken-file tests) get no data written.
    if (__builtin_add_overflow(data_start, offsets[i], &at) || at > (1u << 24)) continue;
    if (at + data.size() > bytes.size()) bytes.resize(at + data.size(), 0);
    std::copy(data.begin(), data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
  }
  // Pad the end to the alignment, as ggml's writer does.
  bytes.resize(((bytes.size() + alignment - 1) / alignment) * alignment, 0);
  return bytes;
}

GgufModel parse_gguf(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  return GgufModel::parse({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, name);
}

}  // namespace onnxq::testing

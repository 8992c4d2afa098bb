// Importance matrices: llama-imatrix's GGUF and .dat formats, every size checked before use.
#include "onnxq/convert/importance_matrix.hpp"

#include <cmath>
#include <cstring>

#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_decode.hpp"
#include "onnxq/io/mapped_file.hpp"

namespace onnxq {
namespace {

constexpr std::string_view kSumsSuffix = ".in_sum2";
constexpr std::string_view kCountsSuffix = ".counts";

void check_finite_weights(const std::string& file, const std::string& entry, const std::vector<float>& weights) {
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (!std::isfinite(weights[i]))
      invalid_input(file + ": entry '" + entry + "': weight " + std::to_string(i) + " is not finite (" +
                    std::to_string(weights[i]) + ")");
}

// The .dat format: little-endian int32 sizes, checked against the bytes left before each read.
class DatCursor {
 public:
  DatCursor(std::span<const std::byte> bytes, const std::string& file) : bytes_(bytes), file_(file) {}
  std::int32_t i32(const std::string& what) {
    need(4, what);
    std::int32_t v;
    std::memcpy(&v, bytes_.data() + pos_, 4);
    pos_ += 4;
    return v;
  }
  std::span<const std::byte> take(std::uint64_t n, const std::string& what) {
    need(n, what);
    const auto s = bytes_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::uint64_t offset() const { return pos_; }
  std::uint64_t left() const { return bytes_.size() - pos_; }
  [[noreturn]] void fail_here(const std::string& message) const {
    invalid_input(file_ + ": offset " + std::to_string(pos_) + ": " + message);
  }

 private:
  void need(std::uint64_t n, const std::string& what) const {
    if (n > left()) fail_here(what + " needs " + std::to_string(n) + " bytes, " + std::to_string(left()) + " remain");
  }
  std::span<const std::byte> bytes_;
  std::string file_;
  std::uint64_t pos_ = 0;
};

ImportanceMatrix parse_dat(std::span<const std::byte> bytes, const std::string& file) {
  ImportanceMatrix m;
  m.path = file;
  m.legacy = true;
  DatCursor in(bytes, file);
  const std::int32_t count = in.i32("the entry count");
  if (count < 1)
    invalid_input(file + ": offset 0: the entry count is " + std::to_string(count) + "; expected at least 1");
  for (std::int32_t e = 0; e < count; ++e) {
    const std::string entry = "entry " + std::to_string(e + 1);
    const std::int32_t length = in.i32(entry + "'s name length");
    if (length < 1) in.fail_here(entry + ": a name length of " + std::to_string(length) + "; expected at least 1");
    const auto name_bytes = in.take(static_cast<std::uint64_t>(length), entry + "'s name");
    std::string name(reinterpret_cast<const char*>(name_bytes.data()), name_bytes.size());
    const std::int32_t ncall = in.i32(entry + " ('" + name + "')'s call count");
    const std::int32_t nval = in.i32(entry + " ('" + name + "')'s value count");
    if (nval < 1) in.fail_here(entry + " ('" + name + "'): " + std::to_string(nval) + " values; expected at least 1");
    const auto values =
        in.take(std::uint64_t{4} * static_cast<std::uint64_t>(nval), entry + " ('" + name + "')'s values");
    std::vector<float> weights(static_cast<std::size_t>(nval));
    std::memcpy(weights.data(), values.data(), values.size());
    // llama-quantize divides each float by the call count converted to float.
    if (ncall > 0)
      for (float& w : weights) w /= static_cast<float>(ncall);
    check_finite_weights(file, name, weights);
    if (!m.entries.emplace(name, std::move(weights)).second)
      invalid_input(file + ": " + entry + ": '" + name + "' is listed twice");
  }
  // The newest .dat files end with the last chunk and the dataset's name.
  if (in.left() > 0) {
    in.i32("the last chunk number");
    const std::int32_t length = in.i32("the dataset name length");
    if (length < 0) in.fail_here("a dataset name length of " + std::to_string(length));
    in.take(static_cast<std::uint64_t>(length), "the dataset name");
    if (in.left() > 0)
      in.fail_here(std::to_string(in.left()) + " bytes after the dataset name; expected the end of the file");
  }
  return m;
}

ImportanceMatrix parse_gguf_imatrix(std::span<const std::byte> bytes, const std::string& file) {
  const GgufModel model = GgufModel::parse(bytes, file);
  for (const char* key : {"imatrix.datasets", "imatrix.chunk_count", "imatrix.chunk_size"})
    if (model.find_metadata(key) == nullptr)
      invalid_input(file + ": no " + std::string(key) + " key; llama-imatrix's GGUF files have one");
  ImportanceMatrix m;
  m.path = file;
  std::map<std::string, std::pair<const TensorInfo*, const TensorInfo*>> pairs;  // sums, counts
  for (const TensorInfo& t : model.tensors()) {
    const std::string_view name = t.name;
    if (name.ends_with(kSumsSuffix))
      pairs[std::string(name.substr(0, name.size() - kSumsSuffix.size()))].first = &t;
    else if (name.ends_with(kCountsSuffix))
      pairs[std::string(name.substr(0, name.size() - kCountsSuffix.size()))].second = &t;
  }
  if (pairs.empty()) invalid_input(file + ": no <tensor>.in_sum2 tensor; expected at least one entry");
  for (const auto& [name, pair] : pairs) {
    const auto [sums, counts] = pair;
    if (sums == nullptr || counts == nullptr)
      invalid_input(file + ": tensor '" + name + std::string(sums ? kSumsSuffix : kCountsSuffix) + "' has no '" + name +
                    std::string(sums ? kCountsSuffix : kSumsSuffix) + "' beside it");
    for (const TensorInfo* t : {sums, counts})
      if (t->ggml_type != 0)
        invalid_input(file + ": tensor '" + std::string(t->name) + "' is " + t->type_name() + "; expected F32");
    if (sums->ne.size() > 2)
      invalid_input(file + ": tensor '" + std::string(sums->name) + "' has " + std::to_string(sums->ne.size()) +
                    " dimensions; expected [columns, matrices]");
    const std::uint64_t columns = sums->ne[0];
    const std::uint64_t matrices = sums->ne.size() > 1 ? sums->ne[1] : 1;
    if (counts->element_count != matrices)
      invalid_input(file + ": tensor '" + std::string(counts->name) + "' has " + std::to_string(counts->element_count) +
                    " counts; '" + std::string(sums->name) + "' holds " + std::to_string(matrices) + " matrices");
    std::vector<float> sum_values(sums->element_count), count_values(counts->element_count);
    decode_tensor_blocks(model, *sums, 0, sums->element_count, DType::Float, sum_values.data(), 1);
    decode_tensor_blocks(model, *counts, 0, counts->element_count, DType::Float, count_values.data(), 1);
    std::vector<float> weights(sum_values.size());
    for (std::uint64_t j = 0; j < matrices; ++j) {
      const float count = count_values[j];
      for (std::uint64_t i = 0; i < columns; ++i)
        weights[j * columns + i] = count > 0.0f ? sum_values[j * columns + i] / count : 1.0f;
    }
    check_finite_weights(file, name, weights);
    m.entries.emplace(name, std::move(weights));
  }
  return m;
}

}  // namespace

const std::vector<float>* ImportanceMatrix::find(std::string_view tensor_name) const {
  const auto it = entries.find(std::string(tensor_name));
  return it == entries.end() ? nullptr : &it->second;
}

ImportanceMatrix parse_importance_matrix(std::span<const std::byte> bytes, const std::string& name) {
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0) return parse_gguf_imatrix(bytes, name);
  return parse_dat(bytes, name);
}

ImportanceMatrix read_importance_matrix(const std::string& path) {
  const std::shared_ptr<const MappedFile> file = MappedFile::open(path);
  return parse_importance_matrix(file->bytes(), path);
}

}  // namespace onnxq

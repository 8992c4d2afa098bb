// quantize_rows over a whole tensor: checks, runs of rows and the source dtypes an array may hold.
#include <algorithm>
#include <cstring>
#include <string>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/quantize_rows.hpp"

namespace onnxq {

std::uint64_t quantize_row_length(const Tensor& rows, const BlockFormat& format, std::string_view source) {
  const std::string where(source);
  const DType dtype = rows.dtype();
  if (dtype != DType::Float && dtype != DType::Float16 && dtype != DType::Double)
    invalid_input(where + ": a " + std::string(dtype_info(dtype).short_name) +
                  " array; quantize takes float32, float16 or float64");
  if (rows.rank() == 0) invalid_input(where + ": a scalar; quantize takes rows (at least one dimension)");
  const auto n_per_row = static_cast<std::uint64_t>(rows.shape().back());
  if (n_per_row == 0 || n_per_row % format.block_elements != 0)
    invalid_input(where + ": the last dimension is " + std::to_string(n_per_row) + ", not a multiple of " +
                  std::to_string(format.block_elements) + " (one " + std::string(format.gguf_name) + " block)");
  return n_per_row;
}

void quantize_tensor_rows(const Tensor& input, const BlockFormat& format, std::span<const float> importance,
                          int threads, std::string_view source,
                          const std::function<void(std::span<const std::byte>)>& write) {
  const std::uint64_t n_per_row = quantize_row_length(input, format, source);
  const std::uint64_t rows = input.element_count() / n_per_row;
  const std::uint64_t row_bytes = quantized_row_bytes(format, n_per_row);
  const std::size_t value_bytes = dtype_info(input.dtype()).bits / 8;
  // Runs of rows worth about 16 MiB of float32 input.
  const std::uint64_t batch = std::max<std::uint64_t>(1, (std::uint64_t{4} << 20) / n_per_row);
  std::vector<float> widened;
  std::vector<std::byte> packed;
  for (std::uint64_t first = 0; first < rows; first += batch) {
    const std::uint64_t count = std::min(batch, rows - first);
    const std::uint64_t first_value = first * n_per_row, values = count * n_per_row;
    QuantizeRequest request{&format, input.dtype(), nullptr, count, n_per_row, importance, nullptr, first};
    const std::byte* src = input.bytes().data() + first_value * value_bytes;
    if (input.dtype() == DType::Double) {  // float64 rounds to the nearest float32 first
      widened.resize(values);
      for (std::uint64_t i = 0; i < values; ++i) widened[i] = static_cast<float>(input.at<double>(first_value + i));
      request.src_dtype = DType::Float;
      request.src = widened.data();
    } else if (reinterpret_cast<std::uintptr_t>(src) % 4 != 0) {  // a view at an odd offset: copy it aligned
      widened.resize(values * value_bytes / 4 + 1);
      std::memcpy(widened.data(), src, values * value_bytes);
      request.src = widened.data();
    } else {
      request.src = src;
    }
    packed.resize(count * row_bytes);
    request.dst = packed.data();
    try {
      quantize_rows(request, threads);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::InvalidInput) throw;
      invalid_input(std::string(source) + ": " + e.what());
    }
    write(packed);
  }
}

std::vector<float> importance_weights(const Tensor& t, std::uint64_t n_per_row, std::string_view source) {
  const std::string where(source);
  if (t.rank() != 1 || t.element_count() != n_per_row)
    invalid_input(where + ": the importance matrix has shape " + shape_to_string(t.shape()) + "; it must be [" +
                  std::to_string(n_per_row) + "], one weight per column");
  if (n_per_row > 0 && t.dtype() != DType::Float && t.dtype() != DType::Double)
    invalid_input(where + ": the importance matrix must be float32 or float64");
  std::vector<float> w(n_per_row);
  for (std::uint64_t i = 0; i < n_per_row; ++i)
    w[i] = t.dtype() == DType::Float ? t.at<float>(i) : static_cast<float>(t.at<double>(i));
  return w;
}

}  // namespace onnxq

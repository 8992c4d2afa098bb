#include "quantize.hpp"

#include <pybind11/numpy.h>

#include <span>
#include <string>

#include "arrays.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace onnxq::python {
namespace {

// C-contiguous float32 rows (the last axis a row) to a new uint8 array of the same leading shape and
// the packed row's bytes; imatrix None or one float32 weight per column. The GIL is released while
// the rows are quantized.
py::array quantize_ggml(const py::array_t<float, py::array::c_style>& data, std::uint32_t ggml_type,
                        const py::object& imatrix, const py::object& threads) {
  const BlockFormat* format = find_format_by_ggml_type(ggml_type);
  if (format == nullptr || !format->is_block_format())
    throw py::value_error("no GGML block format has type " + std::to_string(ggml_type));
  if (data.ndim() == 0) throw py::value_error("the data must have at least one axis, got a 0-d array");
  const auto n_per_row = static_cast<std::uint64_t>(data.shape(data.ndim() - 1));
  const std::uint64_t rows = n_per_row == 0 ? 0 : static_cast<std::uint64_t>(data.size()) / n_per_row;
  py::array_t<float, py::array::c_style | py::array::forcecast> weights;
  std::span<const float> importance;
  if (!imatrix.is_none()) {
    weights = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(imatrix);
    if (!weights || weights.ndim() != 1) throw py::value_error("imatrix must be a 1-D array of one weight per column");
    importance = {weights.data(), static_cast<std::size_t>(weights.size())};
  }
  Shape shape(data.shape(), data.shape() + data.ndim());
  shape.back() =
      static_cast<std::int64_t>(n_per_row % format->block_elements == 0 ? quantized_row_bytes(*format, n_per_row) : 0);
  py::array result = empty_array(DType::UInt8, shape);
  const int n = threads_arg(threads);
  QuantizeRequest request{format, DType::Float, data.data(), rows, n_per_row, importance, result.mutable_data()};
  {
    py::gil_scoped_release release;
    quantize_rows(request, n);
  }
  return result;
}

}  // namespace

void bind_quantize(py::module_& m) {
  m.def("_quantize_ggml", &quantize_ggml, "data"_a, "ggml_type"_a, "imatrix"_a = py::none(), "threads"_a = py::none(),
        "quants.quantize's kernel: C-contiguous float32 rows to a new uint8 array of packed rows.");
}

}  // namespace onnxq::python

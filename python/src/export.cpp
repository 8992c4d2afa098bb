// onnxq.export_onnx over the library's GGUF -> ONNX export (onnxq/onnx/gguf_export.hpp), the
// same call `onnxq export model.gguf -o model.onnx` makes.
#include "export.hpp"

#include <pybind11/stl.h>

#include "arrays.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_selection.hpp"
#include "onnxq/io/io_options.hpp"
#include "onnxq/onnx/gguf_export.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace onnxq::python {
namespace {

std::string os_path(const py::object& path) {
  return py::module_::import("os").attr("fsencode")(path).cast<std::string>();
}

std::uint64_t export_onnx_file(const py::object& path, const py::object& onnx_path,
                               const std::optional<std::vector<std::string>>& tensors,
                               const std::optional<std::string>& filter, const py::object& dtype) {
  const std::string src = os_path(path);
  const std::string dst = os_path(onnx_path);
  std::optional<DType> float_dtype;
  if (!dtype.is_none()) float_dtype = dtype_arg(dtype, "dtype");
  py::gil_scoped_release release;
  const GgufModel model = GgufModel::open(src, ShardPolicy::All, IoOptions::from_environment());
  // Neither names nor a filter: an empty choice, which export_onnx takes as every tensor.
  std::vector<const TensorInfo*> chosen;
  if (tensors || filter)
    chosen = select_tensors(model, tensors.value_or(std::vector<std::string>{}), filter.value_or(""), false);
  return export_onnx(model, chosen, dst, float_dtype);
}

}  // namespace

void bind_export(py::module_& m) {
  m.def("export_onnx", &export_onnx_file, "path"_a, "onnx_path"_a, py::kw_only(), "tensors"_a = py::none(),
        "filter"_a = py::none(), "dtype"_a = py::none(), R"doc(
Write onnx_path: an ONNX graph over the GGUF model at path (any shard of a split model) whose
weights stay in the .gguf. Each tensor's bytes are an initializer stored as external data pointing
into its shard (which must lie in the folder of onnx_path or below it), decoded by a
DequantizePacked node (Identity or Cast for a plain tensor) into a graph output named after it.
tensors: names; filter: a shell glob; neither: every tensor. dtype: the float output type
(float32 by default; float16, bfloat16). Returns the size of the .onnx in bytes; the file is
complete or absent. The GIL is released while the model is read and the graph written.)doc");
}

}  // namespace onnxq::python

#include "hash.hpp"

#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "arrays.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/hash/hash_report.hpp"
#include "onnxq/hash/model_hash.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq::python {
namespace {

namespace py = pybind11;
using namespace pybind11::literals;

// A tensor name as str: bytes that are not UTF-8 kept as escapes, as Tensor.name does.
py::object tensor_name(const std::optional<std::string>& tensor) {
  if (!tensor) return py::none();
  return py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(tensor->data(), static_cast<Py_ssize_t>(tensor->size()), "backslashreplace"));
}

HashSelection selection_arg(const py::iterable& types) {
  if (py::isinstance<py::str>(types)) throw py::type_error("types must be a sequence of names, such as ('xxh64',)");
  HashSelection selection;
  for (const py::handle& item : types) {
    const std::string name = py::cast<std::string>(item);
    HashType type;
    if (!parse_hash_type(name, type))
      throw py::value_error("unknown hash type '" + name + "' (known: xxh64, xxh3, sha1, sha256, uuid)");
    selection[type] = true;
  }
  if (!selection.any()) throw py::value_error("types is empty: name at least one hash type");
  return selection;
}

// Rows as (type, hash, tensor name or None); onnxq/__init__.py makes them HashRow tuples.
py::list hash_rows(const py::object& path, const py::iterable& types, bool model_only, const py::object& threads) {
  const HashSelection selection = selection_arg(types);
  const int n = threads_arg(threads);
  const IoOptions options = IoOptions::from_environment();  // $ONNXQ_TIMEOUT, as the CLI reads it
  const std::string name = py::module_::import("os").attr("fsencode")(path).cast<std::string>();
  std::vector<std::tuple<std::string, std::string, std::optional<std::string>>> rows;
  {
    py::gil_scoped_release release;  // reading and hashing every byte of the model
    const GgufModel model = GgufModel::open(name, ShardPolicy::All, options);
    for (const HashRow& row : hash_model(model, selection, model_only, n)) {
      std::optional<std::string> tensor;
      if (row.tensor) tensor = std::string(row.tensor->name);
      rows.emplace_back(std::string(hash_type_name(row.type)), row.hex, std::move(tensor));
    }
  }
  py::list out;
  for (auto& [type, hex, tensor] : rows) out.append(py::make_tuple(type, hex, tensor_name(tensor)));
  return out;
}

// onnxq.hash(..., check=MANIFEST): rows as (type, hash, tensor or None, verdict), the manifest's
// entries named FILE:TENSOR with FILE = `file`, the model's name as the caller gave it.
py::list check_rows(const py::object& path, const std::string& file, const py::object& manifest_path,
                    const py::object& types, bool model_only, const py::object& threads) {
  const HashSelection requested = types.is_none() ? HashSelection{} : selection_arg(types);
  const int n = threads_arg(threads);
  const IoOptions options = IoOptions::from_environment();
  const std::string name = py::module_::import("os").attr("fsencode")(path).cast<std::string>();
  const std::string manifest_name = py::module_::import("os").attr("fsencode")(manifest_path).cast<std::string>();
  std::vector<std::tuple<std::string, std::string, std::optional<std::string>, ManifestVerdict>> rows;
  {
    py::gil_scoped_release release;
    const HashManifest manifest = HashManifest::read(manifest_name);
    const HashSelection selection = manifest_check_types(manifest, manifest_name, requested);
    const GgufModel model = GgufModel::open(name, ShardPolicy::All, options);
    for (const HashRow& row : hash_model(model, selection, model_only, n)) {
      std::optional<std::string> tensor;
      if (row.tensor) tensor = std::string(row.tensor->name);
      rows.emplace_back(std::string(hash_type_name(row.type)), row.hex, std::move(tensor),
                        manifest_verdict(manifest, file, row));
    }
  }
  py::list out;
  for (auto& [type, hex, tensor, verdict] : rows)
    out.append(py::make_tuple(type, hex, tensor_name(tensor), manifest_verdict_name(verdict)));
  return out;
}

}  // namespace

void bind_hash(py::module_& module) {
  module.def("_hash_rows", &hash_rows, "path"_a, "types"_a, "model_only"_a, "threads"_a,
             "The rows of onnxq.hash, as tuples; use onnxq.hash.");
  module.def("_hash_check_rows", &check_rows, "path"_a, "file"_a, "manifest"_a, "types"_a, "model_only"_a, "threads"_a,
             "The rows of onnxq.hash(..., check=), as tuples; use onnxq.hash.");
}

}  // namespace onnxq::python

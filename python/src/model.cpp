// onnxq.open, onnxq.Model, onnxq.TensorInfo and onnxq.Tensor: a GgufModel and its tensors, decoded
// by the library straight into arrays that numpy allocates, with the GIL released meanwhile.
#include "model.hpp"

#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "metadata.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/rules.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/io/io_options.hpp"
#include "onnxq/io/remote_file.hpp"
#include "onnxq/stream/tensor_stream.hpp"
#include "out_arg.hpp"

namespace onnxq::python {
namespace {

using namespace pybind11::literals;

// What a Model and its Tensors share. Each call takes its own reference to the file before it
// lets go of the GIL, so close() during a decode on another thread frees nothing in use.
struct ModelState {
  std::shared_ptr<const GgufModel> file;  // null once closed
  std::string path;

  std::shared_ptr<const GgufModel> open_file() const {
    if (!file) throw py::value_error(path + ": the model is closed");
    return file;
  }
};

// A tensor's descriptor, copied out of the file so it stays readable after close().
struct TensorDescriptor {
  std::string name;
  std::string type;                   // "Q4_K", "F16" ...
  std::optional<std::string> format;  // "gguf:q4_k"; none for the plain types
  std::uint32_t ggml_type = 0;
  Shape shape;                    // ONNX order
  std::vector<std::uint64_t> ne;  // GGUF order
  std::uint64_t n_elements = 0;
  std::uint64_t nbytes = 0;
  std::uint64_t offset = 0;  // in its shard's file
  std::size_t shard = 0;
};

struct TensorHandle : TensorDescriptor {
  std::shared_ptr<ModelState> model;
  std::size_t index = 0;  // in GgufModel::tensors()
};

struct Model {
  std::shared_ptr<ModelState> state;
  py::tuple tensors;                 // of TensorHandle, made at open
  py::dict by_name;                  // name -> the same TensorHandle objects: O(1) lookup
  py::object metadata = py::none();  // the dict, made on first use
};

TensorHandle make_handle(const std::shared_ptr<ModelState>& state, std::size_t index) {
  const TensorInfo& t = state->file->tensors()[index];
  TensorHandle h;
  h.name = std::string(t.name);
  h.type = t.type_name();
  if (t.format && !t.format->format_id.empty()) h.format = std::string(t.format->format_id);
  h.ggml_type = t.ggml_type;
  h.shape = t.onnx_shape();
  h.ne = t.ne;
  h.n_elements = t.element_count;
  h.nbytes = t.byte_size;
  h.offset = t.file_offset;
  h.shard = t.shard;
  h.model = state;
  h.index = index;
  return h;
}

ShardPolicy shard_policy(const std::string& shards) {
  if (shards == "all") return ShardPolicy::All;
  if (shards == "allow_missing") return ShardPolicy::AllowMissing;
  if (shards == "only_this_file") return ShardPolicy::OnlyThisFile;
  throw py::value_error("shards must be 'all', 'allow_missing' or 'only_this_file', got '" + shards + "'");
}

Model open_model(const py::object& path, const std::string& shards) {
  const ShardPolicy policy = shard_policy(shards);
  const IoOptions options = IoOptions::from_environment();  // $ONNXQ_TIMEOUT, as the CLI reads it
  // os.fsencode: str, bytes and os.PathLike, with undecodable file-name bytes kept.
  const std::string name = py::module_::import("os").attr("fsencode")(path).cast<std::string>();
  auto state = std::make_shared<ModelState>();
  state->path = name;
  {
    py::gil_scoped_release release;  // parsing, and for a remote file the network
    state->file = std::make_shared<const GgufModel>(GgufModel::open(name, policy, options));
  }
  Model model;
  model.state = state;
  py::list handles;
  for (std::size_t i = 0; i < state->file->tensors().size(); ++i) {
    const py::object h = py::cast(make_handle(state, i));
    handles.append(h);
    const py::str name(std::string(state->file->tensors()[i].name));
    if (!model.by_name.contains(name)) model.by_name[name] = h;
  }
  model.tensors = py::tuple(handles);
  return model;
}

const TensorInfo& info_of(const GgufModel& file, const TensorHandle& t) { return file.tensors().at(t.index); }

// A valid GGUF tensor may have no elements and dimensions that numpy cannot hold: say so plainly.
void check_numpy_can_hold(const TensorHandle& t, const Shape& shape, std::size_t element_bytes) {
  if (!numpy_can_hold(shape, element_bytes))
    invalid_input(t.model->path + ": tensor '" + t.name + "' has shape " + shape_to_string(shape) +
                  ", which numpy cannot make an array of (its dimensions multiply past the largest array size)");
}

py::object decode(const TensorHandle& t, const py::object& dtype, const py::object& threads, const py::object& out) {
  const auto file = t.model->open_file();
  const TensorInfo& info = info_of(*file, t);
  const int n = threads_arg(threads);
  if (!out.is_none()) {
    const OutArg dst = out_arg(out, dtype, known_format(info), info.element_count, "the tensor");
    {
      py::gil_scoped_release release;
      decode_into(TensorReader(*file, info), dst.dtype, dst.bytes, StreamOptions{n, {}});
    }
    return dst.given;  // with the GIL: copying it counts a reference
  }
  const DType as = dtype.is_none() ? default_decode_dtype(known_format(info)) : dtype_arg(dtype, "dtype");
  check_numpy_can_hold(t, info.onnx_shape(), dtype_info(as).bits / 8);
  py::array result = empty_array(as, info.onnx_shape());
  const std::span<std::byte> dst(static_cast<std::byte*>(result.mutable_data()),
                                 static_cast<std::size_t>(result.nbytes()));
  {
    py::gil_scoped_release release;
    decode_into(TensorReader(*file, info), as, dst, StreamOptions{n, {}});
  }
  return result;
}

// The packed bytes with one row per tensor row: the last axis holds a row's blocks, so
// quants.dequantize(t.raw(), t.ggml_type) has the tensor's shape, as with gguf-py's reader.
std::vector<py::ssize_t> raw_dims(const TensorInfo& info) {
  const Shape shape = info.onnx_shape();
  // A type onnxq does not know has no rows it can tell apart: its bytes are one flat array.
  if (shape.empty() || !info.format) return {static_cast<py::ssize_t>(info.byte_size)};
  std::vector<py::ssize_t> dims(shape.begin(), shape.end() - 1);
  // One row's bytes, as the rule book sizes a tensor of shape [ne0] (the parser checked it fits).
  dims.push_back(static_cast<py::ssize_t>(*gguf_blocks_bytes(*info.format, std::span(info.ne).first(1))));
  return dims;
}

py::array raw(const TensorHandle& t) {
  const auto file = t.model->open_file();
  const TensorInfo& info = info_of(*file, t);
  const py::dtype u8("uint8");
  const std::vector<py::ssize_t> dims = raw_dims(info);
  check_numpy_can_hold(t, Shape(dims.begin(), dims.end()), 1);
  if (info.byte_size == 0) return py::array(u8, dims);
  // A view of the mapping where the reader gives one, else the bytes it read, owned by the array.
  const TensorReader reader(*file, info);
  auto storage = std::make_unique<std::vector<std::byte>>();
  std::span<const std::byte> bytes;
  if (const auto view = reader.stored_view()) {
    bytes = *view;
  } else {
    py::gil_scoped_release release;
    bytes = reader.stored(0, info.byte_size, *storage);
  }
  if (bytes.data() == storage->data()) {
    auto* owned = storage.release();
    py::capsule base(owned, [](void* p) { delete static_cast<std::vector<std::byte>*>(p); });
    return py::array(u8, dims, owned->data(), base);
  }
  // The base holds the mapping, not the Model, so close() cannot free it.
  auto* keep = new std::shared_ptr<const void>(reader.keep_alive());
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
  py::array view(u8, dims, bytes.data(), base);
  view.attr("setflags")("write"_a = false);  // the mapping is read-only
  return view;
}

py::tuple to_tuple(const Shape& shape) {
  py::list l;
  for (auto d : shape) l.append(d);
  return py::tuple(l);
}

py::tuple to_tuple(const std::vector<std::uint64_t>& ne) {
  py::list l;
  for (auto d : ne) l.append(d);
  return py::tuple(l);
}

std::string tensor_repr(const TensorDescriptor& t) {
  return "<onnxq.Tensor '" + t.name + "' " + t.type + " shape=" + py::repr(to_tuple(t.shape)).cast<std::string>() + ">";
}

py::object find(const Model& m, const std::string& name) {
  const py::str key(name);
  if (m.by_name.contains(key)) return m.by_name[key];
  throw py::key_error(m.state->path + ": no tensor named '" + name + "'");
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<TensorDescriptor>(m, "TensorInfo", R"doc(
A tensor's descriptor in a GGUF model (see Model.tensors).

Attributes:
  name: the tensor's name, e.g. "blk.0.attn_q.weight".
  type: its GGML type as GGUF spells it: "Q4_K", "F16", "I32" ...
  ggml_type: the GGML type number the file stores (gguf-py's GGMLQuantizationType value).
  format: the DequantizePacked format id ("gguf:q4_k"), or None for the plain types.
  shape: the ONNX/numpy shape (slowest axis first), the shape numpy() returns.
  ne: the GGUF dimensions, ne[0] the row length (shape reversed).
  n_elements: the number of elements.
  nbytes: the size of the packed data in bytes.
  offset: where the data starts in its shard's file, in bytes.
  shard: the index of that file in Model.shards.
)doc")
      .def_readonly("name", &TensorDescriptor::name, "The tensor's name.")
      .def_readonly("type", &TensorDescriptor::type, "The GGML type as GGUF spells it: 'Q4_K', 'F16' ...")
      .def_readonly("ggml_type", &TensorDescriptor::ggml_type, "The GGML type number the file stores.")
      .def_readonly("format", &TensorDescriptor::format,
                    "The DequantizePacked format id ('gguf:q4_k'), or None for a plain type.")
      .def_property_readonly(
          "shape", [](const TensorDescriptor& t) { return to_tuple(t.shape); },
          "The ONNX/numpy shape, slowest axis first (what numpy() returns).")
      .def_property_readonly(
          "ne", [](const TensorDescriptor& t) { return to_tuple(t.ne); },
          "The GGUF dimensions: ne[0] is the row length.")
      .def_readonly("n_elements", &TensorDescriptor::n_elements, "The number of elements.")
      .def_readonly("nbytes", &TensorDescriptor::nbytes, "The size of the packed data in bytes.")
      .def_readonly("offset", &TensorDescriptor::offset, "Where the data starts in its shard's file, in bytes.")
      .def_readonly("shard", &TensorDescriptor::shard, "The index of the tensor's file in Model.shards.")
      .def("__repr__", &tensor_repr);

  py::class_<TensorHandle, TensorDescriptor>(m, "Tensor", R"doc(
A tensor of an open Model: its descriptor (see TensorInfo) and its data.
)doc")
      .def("numpy", &decode, "dtype"_a = py::none(), "threads"_a = py::none(), py::kw_only(), "out"_a = py::none(),
           R"doc(
Decodes the tensor into a new numpy array of its shape, or into `out`.

dtype: "float32" (the default for the block formats and the float types), "float16",
  "bfloat16" or "float64", as a name or a numpy dtype; an integer tensor (I8 ... I64) comes back
  in its own dtype by default and may also be decoded to the float dtypes. "bfloat16" returns an
  ml_dtypes.bfloat16 array when the ml_dtypes package is importable, otherwise a uint16 array of
  the bfloat16 bit patterns.
threads: OpenMP threads for the decode; None is the library's default (OMP_NUM_THREADS, else
  every CPU this process may use).
out: a writable C-contiguous array or buffer of exactly n_elements elements (any shape) to decode
  into, e.g. one reused across tensors so that its pages are not faulted in again; the call
  returns out itself. Without dtype its dtype is out's; with dtype, the two must agree.

The values are bit for bit ggml's. The GIL is released while decoding and while a remote file's
bytes are read. Raises ValueError for a dtype the tensor cannot be decoded to, for an out of the
wrong dtype, element count or layout or a read-only one, and when the model is closed; OSError
when a remote read fails or the file changed size while it was read.
)doc")
      .def("raw", &raw, R"doc(
The tensor's packed bytes as a uint8 array of shape shape[:-1] + (bytes per row,), as stored in
the file (a big-endian file's numbers stay big-endian).

For a local file this is a read-only view of the file's mapping, no copy: the array's base keeps
the mapping alive, after Model.close() too. If the file shrinks while such a view exists, the bytes
past its new end read as zeros (the process is not killed); Tensor.numpy() raises OSError for
that case instead. A remote file's bytes are read (GIL released) into
memory the array owns. quants.dequantize(t.raw(), t.ggml_type) decodes it as gguf-py would.
)doc");

  py::class_<Model>(m, "Model", R"doc(
A GGUF model opened by onnxq.open(): one file or all shards of a split model.

A mapping of tensor names to Tensors (m["blk.0.attn_q.weight"], `name in m`, len(m), iteration
over the names), with the model's metadata and tensor list. Use it as a context manager, or call
close(); arrays that raw() returned stay valid after close().
)doc")
      .def_property_readonly(
          "metadata",
          [](Model& self) {
            if (self.metadata.is_none()) self.metadata = metadata_dict(*self.state->open_file());
            return self.metadata;
          },
          R"doc(
The metadata of the model's first shard as a dict in file order: key -> value. Integers are int,
floats float, bools bool, strings str (bytes that are not UTF-8 as surrogate escapes); numeric
and bool arrays are 1-D numpy arrays of their element type (uint8 ... float64, bool); arrays of
strings or of arrays are lists. Read on first use, then kept.
)doc")
      .def_property_readonly(
          "tensors", [](const Model& self) { return py::list(self.tensors); },
          "The tensors of all shards in file order, as a list of Tensor (each a TensorInfo).")
      .def_property_readonly(
          "path",
          [](const Model& self) { return py::module_::import("os").attr("fsdecode")(py::bytes(self.state->path)); },
          "The path or URL given to open().")
      .def_property_readonly(
          "shards",
          [](const Model& self) {
            py::list paths;
            for (const GgufFile& s : self.state->open_file()->shards())
              paths.append(py::module_::import("os").attr("fsdecode")(py::bytes(s.path)));
            return py::tuple(paths);
          },
          "The paths (or URLs) of the shards that were read, in shard order.")
      .def_property_readonly(
          "missing_shards",
          [](const Model& self) {
            py::list numbers;
            for (const MissingShard& s : self.state->open_file()->missing_shards()) numbers.append(s.split_number);
            return py::tuple(numbers);
          },
          "The 1-based numbers of the shards whose files are absent (open(..., shards='allow_missing')).")
      .def("__getitem__", &find, "name"_a, "The Tensor of that name; KeyError when there is none.")
      .def("__contains__",
           [](const Model& self, const py::object& name) {
             return py::isinstance<py::str>(name) && self.by_name.contains(name);
           })
      .def("__len__", [](const Model& self) { return self.tensors.size(); })
      .def("__iter__",
           [](const Model& self) {
             py::list names;
             for (const py::handle h : self.tensors) names.append(h.cast<const TensorHandle&>().name);
             return py::iter(names);
           })
      .def(
          "keys",
          [](const Model& self) {
            py::list names;
            for (const py::handle h : self.tensors) names.append(h.cast<const TensorHandle&>().name);
            return names;
          },
          "The tensor names in file order.")
      .def(
          "close", [](Model& self) { self.state->file.reset(); }, R"doc(
Releases the model's files. Tensors of a closed model can no longer be decoded; arrays already
returned (raw() views too) stay valid.
)doc")
      .def_property_readonly(
          "closed", [](const Model& self) { return !self.state->file; }, "True once close() has been called.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](Model& self, const py::args&) { self.state->file.reset(); })
      .def("__repr__", [](const Model& self) {
        return "<onnxq.Model " +
               py::repr(py::module_::import("os").attr("fsdecode")(py::bytes(self.state->path))).cast<std::string>() +
               ", " + std::to_string(self.tensors.size()) + " tensors" + (self.state->file ? "" : ", closed") + ">";
      });

  m.def("open", &open_model, "path"_a, "shards"_a = "all", R"doc(
Opens a GGUF model and reads its header: metadata and tensor descriptors (tensor data is read
when a tensor is decoded).

path: a file (str, bytes or os.PathLike), an http:// or https:// URL (read with range requests),
  or hf://OWNER/REPO[@REVISION]/PATH on the Hugging Face Hub (HF_ENDPOINT and HF_TOKEN are
  honoured, and ONNXQ_TIMEOUT: the seconds a transfer may stall, 30 by default). A file named <name>-0000K-of-0000N.gguf opens all N shards as one model.
shards: "all" (the default; a missing shard is an error), "allow_missing" (the shards present;
  see Model.missing_shards) or "only_this_file" (the named shard alone, as a model of its own).

Returns a Model (a context manager). The GIL is released while parsing and while waiting on the
network. Raises FileNotFoundError (or another OSError) when a file or URL cannot be read, and
onnxq.InvalidInputError (a ValueError) naming the file, the offset or field and what was expected
when a file breaks the GGUF format.
)doc");
}

}  // namespace onnxq::python

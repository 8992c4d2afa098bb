// onnxq.edit, onnxq.convert_endian, onnxq.split and onnxq.merge over the library's GGUF writer. Values given in Python
// go to the library's edit plan, which types them as `onnxq edit --set-json` does its JSON.
#include "writer.hpp"

#include <pybind11/stl.h>

#include <bit>
#include <limits>

#include "onnxq/core/error.hpp"
#include "onnxq/gguf/metadata_edit.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/split_write.hpp"
#include "onnxq/gguf/writer.hpp"
#include "onnxq/io/io_options.hpp"
#include "onnxq/io/read_all.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace onnxq::python {
namespace {

std::string fs_path(const py::object& path) {
  return py::module_::import("os").attr("fsencode")(path).cast<std::string>();
}

// A Python value as the library's edit plan takes it; the plan gives it its GGUF type.
MetadataLooseValue loose(const std::string& key, const py::handle& v) {
  MetadataLooseValue out;
  if (py::isinstance<py::bool_>(v)) {
    out.kind = MetadataLooseValue::Bool;
    out.boolean = v.cast<bool>();
  } else if (py::isinstance<py::int_>(v)) {
    const py::int_ i = py::reinterpret_borrow<py::int_>(v);
    if (i >= py::int_(0) && i > py::int_(std::numeric_limits<std::int64_t>::max())) {
      if (i > py::int_(std::numeric_limits<std::uint64_t>::max()))
        throw py::value_error("set " + key + ": " + std::string(py::str(v)) + " does not fit 64 bits");
      out.kind = MetadataLooseValue::UInt;
      out.unsigned_integer = i.cast<std::uint64_t>();
    } else {
      if (i < py::int_(std::numeric_limits<std::int64_t>::min()))
        throw py::value_error("set " + key + ": " + std::string(py::str(v)) + " does not fit 64 bits");
      out.integer = i.cast<std::int64_t>();
    }
  } else if (py::isinstance<py::float_>(v)) {
    out.kind = MetadataLooseValue::Float;
    out.number = v.cast<double>();
  } else if (py::isinstance<py::str>(v)) {
    out.kind = MetadataLooseValue::String;
    out.text = v.cast<std::string>();
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    out.kind = MetadataLooseValue::List;
    for (const auto& e : v) out.list.push_back(loose(key, e));
  } else {
    throw py::type_error("set " + key + ": a " + std::string(py::str(v.get_type().attr("__name__"))) +
                         " has no GGUF type");
  }
  return out;
}

// {key: value} or {key: (TYPE, value)}, TYPE as "u32" or "arr:f32".
MetadataValueEdit value_edit(const std::string& key, const py::handle& v) {
  if (py::isinstance<py::tuple>(v) && py::len(v) == 2 && py::isinstance<py::str>(v.cast<py::tuple>()[0]))
    return {key, v.cast<py::tuple>()[0].cast<std::string>(), loose(key, v.cast<py::tuple>()[1])};
  return {key, {}, loose(key, v)};
}

struct Destination {
  std::string path;
  bool in_place;
};

// Writes the model's one file with `md` to `dst` (None: over the source, durably).
void write(const GgufModel& model, const GgufMetadata& md, const GgufWriteOptions& options, const Destination& dst) {
  gguf_rewrite_file(model, model.primary(), md, options, dst.in_place ? std::string() : dst.path);
}

Destination destination(const std::string& src, const py::object& dst) {
  if (dst.is_none()) {
    if (src.find("://") != std::string::npos) throw py::value_error("a remote file cannot be replaced; give dst");
    return {src, true};
  }
  return {fs_path(dst), false};
}

// The library's edit plan, its errors naming the keyword arguments.
MetadataEdits plan() {
  MetadataEdits edits;
  edits.names = {"remove", "rename", "set", "set_json", "special_tokens"};
  return edits;
}

// The changes as (kind, key, detail) tuples: ("set", key, "OLD -> NEW"), ("add", key, "TYPE VALUE"),
// ("remove", key, old value), ("rename", key, new name), as `onnxq edit --dry-run` lists them.
py::list change_tuples(const std::vector<MetadataChange>& changes) {
  static constexpr const char* kKinds[] = {"add", "set", "remove", "rename"};
  py::list out;
  for (const MetadataChange& c : changes) out.append(py::make_tuple(kKinds[c.kind], c.key, c.detail));
  return out;
}

py::list edit(const py::object& src, const py::object& dst, const py::object& set,
              const std::vector<std::string>& remove, const std::map<std::string, std::string>& rename,
              const std::optional<std::string>& chat_template, const std::map<std::string, std::string>& set_json,
              const std::map<std::string, py::object>& special_tokens, const py::object& chat_template_file,
              bool dry_run) {
  if (chat_template && !chat_template_file.is_none())
    throw py::value_error("give chat_template or chat_template_file, not both");
  const std::string path = fs_path(src);
  const Destination to = dry_run ? Destination{} : destination(path, dst);
  std::shared_ptr<const GgufModel> model;
  {
    py::gil_scoped_release release;
    model = std::make_shared<const GgufModel>(
        GgufModel::open(path, ShardPolicy::OnlyThisFile, IoOptions::from_environment()));
  }
  GgufMetadata md = GgufMetadata::from_records(model->metadata());
  std::vector<MetadataChange> changes;
  for (const std::string& pattern : remove) {  // keys or shell globs; one that matches nothing is a KeyError
    MetadataEdits removal = plan();
    removal.remove = {pattern};
    try {
      for (MetadataChange& c : apply_metadata_edits(md, removal)) changes.push_back(std::move(c));
    } catch (const Error& e) {
      throw py::key_error(e.what());
    }
  }
  for (const auto& [from, name] : rename) {
    md.rename(from, name);
    changes.push_back({MetadataChange::Rename, from, name});
  }
  // The rest as `onnxq edit` does it: values, JSON values, the chat template, special tokens.
  MetadataEdits rest = plan();
  if (!set.is_none())
    for (const auto& [k, v] : set.cast<py::dict>()) rest.set_values.push_back(value_edit(k.cast<std::string>(), v));
  for (const auto& [key, json] : set_json) rest.set_json.push_back(key + "=" + json);
  rest.chat_template_given = chat_template.has_value() || !chat_template_file.is_none();
  if (chat_template) rest.chat_template = *chat_template;
  if (!chat_template_file.is_none()) rest.chat_template = read_text_file(fs_path(chat_template_file));
  for (const auto& [name, token] : special_tokens)
    rest.special_tokens.push_back(name + "=" +
                                  (py::isinstance<py::int_>(token) && !py::isinstance<py::bool_>(token)
                                       ? "#" + std::string(py::str(token))
                                       : token.cast<std::string>()));
  for (MetadataChange& c : apply_metadata_edits(md, rest)) changes.push_back(std::move(c));
  const GgufWriteOptions options = gguf_edit_options(model->primary());
  if (dry_run) {
    gguf_plan_rewrite(*model, model->primary(), md, options);  // refuses what the write would refuse
    return change_tuples(changes);
  }
  {
    py::gil_scoped_release release;  // the copy
    write(*model, md, options, to);
  }
  return change_tuples(changes);
}

void convert_endian(const py::object& src, const py::object& dst, const std::string& to_order) {
  bool big = std::endian::native == std::endian::big;
  if (to_order == "big")
    big = true;
  else if (to_order == "little")
    big = false;
  else if (to_order != "native")
    throw py::value_error("to must be 'big', 'little' or 'native', got '" + to_order + "'");
  const std::string path = fs_path(src);
  const Destination dest = destination(path, dst);
  py::gil_scoped_release release;
  const GgufModel model = GgufModel::open(path, ShardPolicy::OnlyThisFile, IoOptions::from_environment());
  GgufWriteOptions options;
  options.version = model.primary().version;
  options.big_endian = big;
  write(model, GgufMetadata::from_records(model.metadata()), options, dest);
}

std::vector<std::string> split(const py::object& src, const py::object& prefix, std::optional<std::uint64_t> max_size,
                               std::optional<std::uint64_t> max_tensors, bool no_tensor_first_split) {
  GgufSplitLimits limits;
  limits.max_bytes = max_size;
  limits.max_tensors = max_tensors;
  limits.no_tensor_first_split = no_tensor_first_split;
  const std::string path = fs_path(src);
  const std::string base = fs_path(prefix);
  py::gil_scoped_release release;
  const GgufModel model = GgufModel::open(path, ShardPolicy::All, IoOptions::from_environment());
  return gguf_write_files(model, gguf_plan_split(model, base, limits));
}

std::string merge(const py::object& shard, const py::object& dst) {
  const std::string path = fs_path(shard);
  const std::string out = fs_path(dst);
  py::gil_scoped_release release;
  const GgufModel model = GgufModel::open(path, ShardPolicy::All, IoOptions::from_environment());
  return gguf_write_files(model, {gguf_plan_merge(model, out)}).front();
}

}  // namespace

void bind_writer(py::module_& m) {
  m.def("edit", &edit, "src"_a, "dst"_a, py::kw_only(), "set"_a = py::none(), "remove"_a = std::vector<std::string>{},
        "rename"_a = std::map<std::string, std::string>{}, "chat_template"_a = py::none(),
        "set_json"_a = std::map<std::string, std::string>{}, "special_tokens"_a = std::map<std::string, py::object>{},
        "chat_template_file"_a = py::none(), "dry_run"_a = false, R"doc(
Write src with changed metadata to dst (None: replace src, flushed to disk first); tensors are copied
byte for byte. set: {key: value}, a value in the key's own type, or for a new key in the type the
Python value implies as set_json's JSON does (bool, int: i32/i64/u64, float: f32, str, list: array),
or given as (TYPE, value) such as ("u32", 5) or ("arr:f32", [1, 2]); ValueError when the type cannot
hold the value. remove: keys or shell globs (KeyError when one matches
nothing); rename: {old: new}. set_json: {key: JSON text}, as `onnxq edit --set-json` takes it
("[1, 2]", or "f32:[1, 2]" with the elements' type). special_tokens: {bos|eos|pad|unk|sep|cls|mask:
token text, or its id as an int}. chat_template: the text; chat_template_file: a file holding it.
Removals come first, then renames, set, set_json, the chat template and the special tokens; the
library's writer then refuses what a GGUF reader would (ValueError naming the key). Returns the
changes made, as `onnxq edit --dry-run` lists them: (kind, key, detail) tuples, kind "remove",
"rename", "set" or "add"; dry_run=True returns them and writes nothing, refusing what the write
would refuse. Keys must be ASCII (the GGUF specification's rule): a file with another key is read,
and mended by removing or renaming that key. The GIL is released while
reading and copying.)doc");
  m.def("convert_endian", &convert_endian, "src"_a, "dst"_a, py::kw_only(), "to"_a, R"doc(
Write src in the byte order `to` ('big', 'little' or 'native') to dst (None: replace src): the header,
the metadata and every tensor, decoding to the same values. The GIL is released throughout.)doc");
  m.def("split", &split, "src"_a, "prefix"_a, py::kw_only(), "max_size"_a = py::none(), "max_tensors"_a = py::none(),
        "no_tensor_first_split"_a = false, R"doc(
Split src into shards PREFIX-00001-of-0000N.gguf, ... as llama-gguf-split does, and return their
paths. Give one of max_size (bytes of a whole shard file: header, metadata, infos, padding and data;
a shard holds at least one tensor) and max_tensors. no_tensor_first_split: the first shard holds the
metadata only. All shards are named together once all are complete. The GIL is released throughout.)doc");
  m.def("merge", &merge, "shard"_a, "dst"_a, R"doc(
Merge the split model that shard belongs to (any of its shards) into one file dst, without the
split.* keys, and return dst. A dst that is one of the shards or is named like a shard is refused
before anything is written. The GIL is released throughout.)doc");
}

}  // namespace onnxq::python

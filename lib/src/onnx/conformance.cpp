// Backend node-test cases: discovery, and running every data set into a CaseResult.
#include "onnxq/onnx/conformance.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "onnxq/core/error.hpp"
#include "onnxq/io/mapped_file.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace fs = std::filesystem;

namespace onnxq {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; });
}

bool is_case_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "model.onnx", ec);
}

// Symlinked folders are not followed, so a link loop cannot make the walk endless.
void collect_cases(const fs::path& dir, std::vector<std::string>& out) {
  if (is_case_folder(dir)) {
    out.push_back(dir.string());
    return;
  }
  std::error_code ec;
  std::vector<fs::path> children;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    if (it->symlink_status(sec).type() == fs::file_type::directory) children.push_back(it->path());
  }
  if (ec) fail(ErrorKind::Io, "cannot list " + dir.string() + ": " + ec.message());
  std::sort(children.begin(), children.end());
  for (const auto& child : children) collect_cases(child, out);
}

// "input_12.pb" -> 12 for prefix "input_"; nullopt for anything else.
std::optional<std::uint64_t> numbered_file_index(const std::string& file, const std::string& prefix) {
  if (file.size() <= prefix.size() + 3 || file.compare(0, prefix.size(), prefix) != 0 ||
      file.compare(file.size() - 3, 3, ".pb") != 0)
    return std::nullopt;
  const std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - 3);
  if (digits.size() > 9 || !all_digits(digits)) return std::nullopt;
  return std::stoull(digits);
}

// Sorts test_data_set_2 before test_data_set_10.
bool data_set_less(const std::string& a, const std::string& b) {
  const std::size_t p = std::string("test_data_set_").size();
  const std::string na = a.substr(p), nb = b.substr(p);
  if (all_digits(na) && all_digits(nb) && na.size() != nb.size()) return na.size() < nb.size();
  return a < b;
}

std::vector<std::string> list_data_sets(const fs::path& case_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(case_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code sec;
    if (name.rfind("test_data_set_", 0) == 0 && it->is_directory(sec)) names.push_back(name);
  }
  if (ec) fail(ErrorKind::Io, "cannot list " + case_dir.string() + ": " + ec.message());
  std::sort(names.begin(), names.end(), data_set_less);
  return names;
}

// input_0.pb ... input_{n-1}.pb (or output_*), numbered without gaps, as the ONNX runner reads them.
std::vector<NamedTensor> load_numbered_tensors(const fs::path& dir, const std::string& data_set,
                                               const std::string& prefix) {
  std::map<std::uint64_t, std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (auto index = numbered_file_index(name, prefix)) files[*index] = name;
  }
  if (ec) fail(ErrorKind::Io, "cannot list " + dir.string() + ": " + ec.message());
  std::vector<NamedTensor> tensors;
  std::uint64_t expected_index = 0;
  for (const auto& [index, name] : files) {
    if (index != expected_index)
      invalid_input(data_set + ": " + prefix + std::to_string(expected_index) + ".pb is missing (found " + name + ")");
    ++expected_index;
    auto file = MappedFile::open((dir / name).string());
    tensors.push_back(decode_tensor_proto(file->bytes(), data_set + "/" + name));
  }
  return tensors;
}

DataSetResult run_data_set(const OnnxModel& model, const fs::path& case_dir, const std::string& data_set,
                           const ConformanceOptions& options) {
  DataSetResult r;
  r.name = data_set;
  const fs::path dir = case_dir / data_set;
  std::vector<NamedTensor> inputs = load_numbered_tensors(dir, data_set, "input_");
  std::vector<NamedTensor> expected = load_numbered_tensors(dir, data_set, "output_");
  if (inputs.size() != model.inputs.size())
    invalid_input(data_set + " has " + std::to_string(inputs.size()) + " input_*.pb files, the model has " +
                  std::to_string(model.inputs.size()) + " graph inputs");
  if (expected.size() != model.outputs.size())
    invalid_input(data_set + " has " + std::to_string(expected.size()) + " output_*.pb files, the model has " +
                  std::to_string(model.outputs.size()) + " graph outputs");
  std::vector<Tensor> input_tensors;
  for (auto& t : inputs) input_tensors.push_back(std::move(t.tensor));
  const std::vector<Tensor> actual = run_model(model, input_tensors);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    if (auto mismatch = find_mismatch(expected[k].tensor, actual.at(k), options.tolerance)) {
      r.status = CaseStatus::Fail;
      r.reason = "output " + std::to_string(k) + " " + *mismatch;
      return r;
    }
  }
  return r;
}

// Runs `body`, turning any exception into a FAIL reason.
template <class Body>
std::optional<std::string> failure_of(Body&& body) {
  try {
    body();
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    return std::string("out of memory");
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

}  // namespace

std::vector<std::string> find_case_folders(const std::string& path) {
  std::error_code ec;
  const fs::path root(path);
  if (!fs::exists(root, ec)) fail(ErrorKind::Io, "cannot open " + path + ": no such file or directory");
  // A model.onnx given directly stands for its case folder.
  if (root.filename() == "model.onnx" && fs::is_regular_file(root, ec))
    return {root.has_parent_path() ? root.parent_path().string() : std::string(".")};
  if (!fs::is_directory(root, ec))
    fail(ErrorKind::Io, path + " is not a directory (expected a case folder or a folder of cases)");
  std::vector<std::string> out;
  collect_cases(root, out);
  return out;
}

bool case_name_matches(const std::string& name, const std::string& glob) {
  return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

CaseResult run_conformance_case(const std::string& case_folder, const ConformanceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  const fs::path dir(case_folder);
  r.path = case_folder;
  r.name = dir.filename().string();
  if (r.name.empty()) r.name = dir.parent_path().filename().string();  // "cases/foo/"

  OnnxModel model;
  std::vector<std::string> data_sets;
  std::optional<std::string> unsupported;  // the first node onnxq cannot run
  auto load_error = failure_of([&] {
    auto file = MappedFile::open((dir / "model.onnx").string());
    model = decode_onnx_model(file->bytes(), "model.onnx", dir.string());
    // A case is named by its first node (node tests have one).
    if (!model.nodes.empty()) {
      r.op_type = model.nodes.front().op_type;
      r.domain = model.nodes.front().domain;
      r.opset = model.opset_for(model.nodes.front());
    }
    for (const OnnxNode& node : model.nodes)
      if (!unsupported) unsupported = unsupported_reason(node, model.opset_for(node));
  });
  if (load_error) {
    r.status = CaseStatus::Fail;
    r.reason = *load_error;
  } else if (unsupported) {
    r.status = CaseStatus::Skip;
    r.reason = *unsupported;
  } else if (auto list_error = failure_of([&] { data_sets = list_data_sets(dir); })) {
    r.status = CaseStatus::Fail;
    r.reason = *list_error;
  } else if (data_sets.empty()) {
    r.status = CaseStatus::Fail;
    r.reason = "no test_data_set_* folder";
  } else {
    for (const std::string& ds : data_sets) {
      DataSetResult ds_result;
      auto error = failure_of([&] { ds_result = run_data_set(model, dir, ds, options); });
      if (error) {
        ds_result.name = ds;
        ds_result.status = CaseStatus::Fail;
        ds_result.reason = *error;
      }
      if (ds_result.status == CaseStatus::Fail && r.status != CaseStatus::Fail) {
        r.status = CaseStatus::Fail;
        // With several data sets the reason says which one failed first.
        r.reason = data_sets.size() > 1 && ds_result.reason.rfind(ds, 0) != 0 ? ds + ": " + ds_result.reason
                                                                              : ds_result.reason;
      }
      r.data_sets.push_back(std::move(ds_result));
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<std::string> find_case_folders(const std::vector<std::string>& paths) {
  std::vector<std::string> cases;
  std::set<fs::path> seen;  // overlapping paths give each case once
  for (const std::string& path : paths) {
    std::vector<std::string> found = find_case_folders(path);
    if (found.empty()) invalid_input("no test cases (folders with model.onnx) under " + path);
    for (auto& folder : found) {
      std::error_code ec;
      const fs::path canonical = fs::weakly_canonical(folder, ec);
      if (seen.insert(ec ? fs::path(folder) : canonical).second) cases.push_back(std::move(folder));
    }
  }
  return cases;
}

std::vector<std::string> write_case_folder(const std::string& dir, const OnnxModel& model,
                                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                           TensorProtoEncoding encoding, const CaseFileCreator& create) {
  std::vector<std::string> stale;
  std::error_code list_ec;
  for (fs::directory_iterator it(dir, list_ec), end; !list_ec && it != end; it.increment(list_ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.starts_with("test_data_set_") && entry != "test_data_set_0") stale.push_back(entry);
  }
  std::sort(stale.begin(), stale.end());
  const fs::path data_dir = fs::path(dir) / "test_data_set_0";
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec) fail(ErrorKind::Io, "cannot create " + data_dir.string() + ": " + ec.message());
  auto write = [&](const fs::path& path, const std::string& bytes) {
    AtomicFile file = create ? create(path.string()) : AtomicFile::create(path.string());
    file.write(bytes.data(), bytes.size());
    file.commit();
  };
  for (std::size_t k = 0; k < inputs.size(); ++k)
    write(data_dir / ("input_" + std::to_string(k) + ".pb"),
          encode_tensor_proto(inputs[k], model.inputs[k].name, encoding));
  for (std::size_t j = 0; j < outputs.size(); ++j)
    write(data_dir / ("output_" + std::to_string(j) + ".pb"),
          encode_tensor_proto(outputs[j], model.outputs[j].name, encoding));
  write(fs::path(dir) / "model.onnx", encode_model(model));
  return stale;
}

}  // namespace onnxq

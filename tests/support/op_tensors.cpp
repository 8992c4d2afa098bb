#include "op_tensors.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "expected_npy.hpp"
#include "onnxq/npy/reader.hpp"

namespace onnxq::testing {

Tensor uint8_tensor(Shape shape, const std::vector<std::uint8_t>& values) {
  return typed_tensor(DType::UInt8, std::move(shape), values);
}

std::vector<std::uint8_t> uint8_values(const Tensor& t) {
  const auto b = t.bytes();
  return std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(b.data()),
                                   reinterpret_cast<const std::uint8_t*>(b.data()) + b.size());
}

Tensor load_case_tensor(const std::string& case_name, const std::string& file) {
  return read_npy_file(testdata_path("ops/" + case_name + "/" + file));
}

std::vector<std::string> case_names(const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(testdata_path("ops"))) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string case_json(const std::string& case_name) {
  std::ifstream in(testdata_path("ops/" + case_name + "/case.json"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

::testing::AssertionResult same_tensor(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != actual.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_info(expected.dtype()).onnx_name << " expected, got "
                                         << dtype_info(actual.dtype()).onnx_name;
  if (expected.shape() != actual.shape())
    return ::testing::AssertionFailure() << "shape " << shape_to_string(expected.shape()) << " expected, got "
                                         << shape_to_string(actual.shape());
  if (expected.is_string()) {
    for (std::size_t i = 0; i < expected.strings().size(); ++i)
      if (expected.strings()[i] != actual.strings().at(i))
        return ::testing::AssertionFailure()
               << "string " << i << ": '" << expected.strings()[i] << "' expected, got '" << actual.strings()[i] << "'";
    return ::testing::AssertionSuccess();
  }
  const auto e = expected.bytes(), a = actual.bytes();
  if (e.size() != a.size()) return ::testing::AssertionFailure() << e.size() << " bytes expected, got " << a.size();
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e[i] != a[i])
      return ::testing::AssertionFailure()
             << "byte " << i << ": " << std::to_integer<int>(e[i]) << " expected, got " << std::to_integer<int>(a[i]);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult throws_error(ErrorKind kind, const std::string& fragment, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    if (e.kind() != kind)
      return ::testing::AssertionFailure() << "error kind " << static_cast<int>(e.kind()) << " instead of "
                                           << static_cast<int>(kind) << ": " << e.what();
    if (std::string(e.what()).find(fragment) == std::string::npos)
      return ::testing::AssertionFailure() << "message lacks '" << fragment << "': " << e.what();
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no error thrown (expected one containing '" << fragment << "')";
}

}  // namespace onnxq::testing

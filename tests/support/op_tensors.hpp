// Small helpers for the operator and .npy tests: typed tensors from vectors, the exported
// conformance cases in testdata/ops/, and checks that a call throws the expected error kind.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/tensor.hpp"

namespace onnxq::testing {

template <class T>
Tensor typed_tensor(DType dtype, Shape shape, const std::vector<T>& values) {
  return Tensor::from_bytes(
      dtype, std::move(shape),
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(values.data()), values.size() * sizeof(T)));
}

// Inline, as the decoding tests (built alone for AArch64, without the .npy reader) use it too.
inline Tensor int64_scalar(std::int64_t v) { return typed_tensor<std::int64_t>(DType::Int64, {}, {v}); }
Tensor uint8_tensor(Shape shape, const std::vector<std::uint8_t>& values);
std::vector<std::uint8_t> uint8_values(const Tensor& t);

// testdata/ops/<case>/<file>, read with the library's .npy reader.
Tensor load_case_tensor(const std::string& case_name, const std::string& file);
// The case names under testdata/ops/ that start with `prefix`, sorted.
std::vector<std::string> case_names(const std::string& prefix);
// testdata/ops/<case>/case.json as text.
std::string case_json(const std::string& case_name);

// Same dtype, shape and element bytes (or strings); a message describing the first difference otherwise.
::testing::AssertionResult same_tensor(const Tensor& expected, const Tensor& actual);

// Runs fn, expecting an onnxq::Error of `kind` whose message contains `fragment`.
::testing::AssertionResult throws_error(ErrorKind kind, const std::string& fragment, const std::function<void()>& fn);

}  // namespace onnxq::testing

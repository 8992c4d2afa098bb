// Fuzz target: .npy preamble, header dict and data, through both the copying and
// the zero-copy reader; the tensor must hold exactly what the header promised.
#include <memory>

#include "fuzz_check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/npy/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes = fuzz_bytes(data, size);
  try {
    const onnxq::NpyArrayInfo info = onnxq::parse_npy_header(bytes, "fuzz.npy");
    FUZZ_CHECK(info.data_offset <= size);
    const onnxq::Tensor owned = onnxq::read_npy(bytes, "fuzz.npy");
    FUZZ_CHECK(owned.dtype() == info.dtype);
    FUZZ_CHECK(owned.shape() == info.shape);
    const std::uint64_t count = owned.element_count();
    if (owned.is_string()) {
      FUZZ_CHECK(owned.strings().size() == count);
    } else {
      FUZZ_CHECK(owned.bytes().size() == onnxq::dtype_storage_bytes(owned.dtype(), count));
      FUZZ_CHECK(count * info.item_bytes == size - info.data_offset);
    }
    // The zero-copy path must give the same values.
    auto keep = std::make_shared<int>(0);
    const onnxq::Tensor view = onnxq::read_npy(bytes, keep, "fuzz.npy");
    FUZZ_CHECK(view.shape() == owned.shape());
    if (owned.is_string()) {
      FUZZ_CHECK(view.strings() == owned.strings());
    } else {
      FUZZ_CHECK(view.bytes().size() == owned.bytes().size());
      FUZZ_CHECK(std::equal(view.bytes().begin(), view.bytes().end(), owned.bytes().begin()));
    }
  } catch (const onnxq::Error&) {
  }
  return 0;
}

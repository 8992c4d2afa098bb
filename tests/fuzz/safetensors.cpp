// Fuzz target: a safetensors file's header. Whatever is accepted describes tensors that lie inside
// the file, whose spans are their shapes' sizes, and whose bytes can all be read.
#include <memory>
#include <vector>

#include "fuzz_check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/memory_source.hpp"
#include "onnxq/npy/safetensors_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const onnxq::SafetensorsModel m = onnxq::SafetensorsModel::from_source(
        std::make_shared<onnxq::MemorySource>(fuzz_bytes(data, size), "fuzz.safetensors"));
    std::vector<std::byte> buffer;
    for (const onnxq::SafetensorsTensorInfo& t : m.tensors()) {
      FUZZ_CHECK(t.file_offset <= size && t.byte_size <= size - t.file_offset);
      FUZZ_CHECK(t.byte_size == t.element_count * (onnxq::dtype_info(t.dtype).bits / 8));
      FUZZ_CHECK(!t.gguf_ne().empty());
      buffer.resize(t.byte_size);
      m.read(t, 0, buffer);
    }
  } catch (const onnxq::Error&) {
  }
  return 0;
}

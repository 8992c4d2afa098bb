// Streams a packed tensor, decoded, into an output sink: the input stays in the mapping
// and the output goes out in chunks of whole blocks through one reused buffer, so memory
// stays bounded for any tensor size.
#pragma once

#include <span>

#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/file.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {

struct DecodedStream {
  const BlockFormat* format;
  std::span<const std::byte> bytes;  // whole blocks
  Shape shape;                       // ONNX order, for the .npy header
  DType dtype;                       // output element type
  bool npy = true;                   // .npy header first, else raw little-endian elements
  int threads = 0;
  Progress* progress = nullptr;  // advanced by input bytes decoded
  // For a GGUF tensor: its model, which reads the blocks of each chunk (from the mapping, or in
  // ranges from a remote file) and byte-swaps big-endian plain data. `bytes` is unused then.
  const GgufFile* model = nullptr;
  const TensorInfo* tensor = nullptr;
};

// Writes the stream to `sink` (header, then data); does not commit.
void write_decoded(OutputSink& sink, const DecodedStream& stream);

}  // namespace onnxq::cli

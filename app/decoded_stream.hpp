// A decoded tensor written to an output: the .npy header (when asked for), then the library's
// streaming decoder (onnxq/stream/tensor_stream.hpp) into the sink.
#pragma once

#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/block_source.hpp"
#include "onnxq/stream/tensor_stream.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {

struct DecodedStream {
  const BlockSource* source;  // the packed blocks: a GGUF tensor's reader, or bytes in memory
  Shape shape;                // ONNX order, for the .npy header
  DType dtype;                // output element type
  bool npy = true;            // .npy header first, else raw little-endian elements
  int threads = 0;
  Progress* progress = nullptr;      // advanced by input bytes decoded
  StreamBuffers* buffers = nullptr;  // reused by a command that writes many tensors; null: the write's own
};

// Writes the stream to `sink` (header, then data); does not commit.
void write_decoded(OutputSink& sink, const DecodedStream& stream);

}  // namespace onnxq::cli

#include "decoded_stream.hpp"

#include <algorithm>
#include <vector>

#include "onnxq/dequantize.hpp"
#include "onnxq/npy_writer.hpp"
#include "onnxq/tensor_decode.hpp"

namespace onnxq::cli {

// ~4 MiB of output per chunk: big enough for every thread to get several
// 256 KiB runs, small enough to stay out of the way.
constexpr std::size_t kChunkOutputBytes = 4u << 20;

void write_decoded(OutputSink& sink, const DecodedStream& s) {
  if (s.npy) {
    const std::string header = npy_header(s.dtype, s.shape);
    sink.write(header.data(), header.size());
  }
  const std::uint64_t blocks = s.bytes.size() / s.format->block_bytes;
  const std::size_t block_out = std::size_t{s.format->block_elements} * (dtype_info(s.dtype).bits / 8);
  const std::size_t chunk_blocks = std::max<std::size_t>(1, kChunkOutputBytes / block_out);
  // uint64 storage keeps the buffer aligned for every output type.
  std::vector<std::uint64_t> buffer((std::min<std::uint64_t>(chunk_blocks, blocks) * block_out + 7) / 8);
  for (std::uint64_t first = 0; first < blocks; first += chunk_blocks) {
    const std::uint64_t n = std::min<std::uint64_t>(chunk_blocks, blocks - first);
    if (s.model)
      decode_tensor_blocks(*s.model, *s.tensor, first, n, s.dtype, buffer.data(), s.threads);
    else
      decode_blocks(*s.format, s.bytes, first, n, s.dtype, buffer.data(), s.threads);
    sink.write(buffer.data(), n * block_out);
    if (s.progress) s.progress->add(n * s.format->block_bytes);
  }
}

}  // namespace onnxq::cli

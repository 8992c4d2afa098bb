#include "decoded_stream.hpp"

#include <string>

#include "log.hpp"
#include "onnxq/npy/writer.hpp"
#include "onnxq/stream/tensor_stream.hpp"

namespace onnxq::cli {

void write_decoded(OutputSink& sink, const DecodedStream& s) {
  if (s.npy) {
    const std::string header = npy_header(s.dtype, s.shape);
    sink.write(header.data(), header.size());
  }
  StreamOptions options;
  options.threads = s.threads;
  options.buffers = s.buffers;
  if (s.progress) options.on_progress = [p = s.progress](std::uint64_t bytes) { p->add(bytes); };
  const StreamPlan plan = onnxq::write_decoded(sink, *s.source, s.dtype, options);
  if (plan.probed)
    log::debug(
        "write: a chunk took at least {} us to read, {} us to decode and {} us to write; {} chunks left; "
        "other runnable threads: {}; {}",
        plan.probe_read.count(), plan.probe_decode.count(), plan.probe_write.count(), plan.chunks_left,
        plan.other_runnable_threads, plan.threads > 1 ? std::to_string(plan.threads) + " threads" : "one thread");
}

}  // namespace onnxq::cli

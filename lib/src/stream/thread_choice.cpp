#include "stream/thread_choice.hpp"

#include "onnxq/core/parallel.hpp"

namespace onnxq {
namespace {

// More threads join when reading and decoding a chunk, the work they can share (reads of a file
// run side by side), take at least this share of the time of writing it, which they cannot (the
// kernel copies one write at a time into a file or a pipe),
constexpr double kThreadsPayOff = 1.0;
// and when at least this much output is left after the probe: handing chunks between threads
// has a cost that only a long tensor's hidden work repays (doc/design.md, "When the streaming
// decoder adds threads", has the figures behind these constants).
constexpr std::uint64_t kMinParallelBytes = std::uint64_t{32} << 20;

}  // namespace

bool more_threads_pay_off(const ThreadChoiceInput& in) {
  const ChunkTimes& t = in.probe;
  const bool shared_work_counts = t.read + t.decode >= t.write * kThreadsPayOff;
  // On CPUs taken by other runnable threads a second thread only waits for one, and one
  // preempted while it holds the file's lock holds up the writer.
  const bool cpus_free = threads_if_cpus_free(in.threads, in.other_runnable) > 1;
  return shared_work_counts && cpus_free && in.bytes_left >= kMinParallelBytes;
}

}  // namespace onnxq

// Whether the streaming decoder, on the default thread count, adds threads after its probe: the
// rule apart from the timing, so that it can be tested with any figures.
#pragma once

#include <chrono>
#include <cstdint>

namespace onnxq {

// What the probe measured: per chunk, the least time of each kind over the timed chunks.
struct ChunkTimes {
  std::chrono::steady_clock::duration read{}, decode{}, write{};
};

struct ThreadChoiceInput {
  ChunkTimes probe;
  std::uint64_t bytes_left = 0;  // output still to write after the probe
  unsigned other_runnable = 0;   // other threads ready to run (core/parallel.hpp's other_runnable_threads())
  unsigned threads = 1;          // the CPUs the default may use
};

// True when more threads are expected to finish the rest sooner than the calling thread alone.
bool more_threads_pay_off(const ThreadChoiceInput& in);

}  // namespace onnxq

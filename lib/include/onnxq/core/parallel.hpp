// The library's parallel loops run on one process-wide pool of worker threads. The threads start
// on first use and then wait for work until the process ends, so a call pays a wake-up, not a
// thread start or an OpenMP team (whose wake-ups cost more than a short decode, issue 13).
#pragma once

#include <cstdint>
#include <functional>

namespace onnxq {

// The threads a call asking for 0 (the default) uses: OMP_NUM_THREADS when it holds a positive
// number, else the CPUs this process may run on (its affinity mask).
unsigned default_thread_count();
// `threads` when positive, else default_thread_count().
unsigned resolve_threads(int threads);

// Calls body(worker, chunk) for every chunk in [0, chunks) on min(threads, chunks) threads. The
// calling thread is worker 0; each thread takes the next chunk in order when it has finished its
// last, so `worker` (< threads) can index per-thread scratch. Returns when every started chunk is
// done and rethrows the first exception; once a chunk has thrown, no further chunk starts. A call
// made while the pool is busy (from inside a body, or from another thread) runs its chunks in
// order on the calling thread, as worker 0.
void parallel_chunks(unsigned threads, std::uint64_t chunks,
                     const std::function<void(unsigned worker, std::uint64_t chunk)>& body);

}  // namespace onnxq

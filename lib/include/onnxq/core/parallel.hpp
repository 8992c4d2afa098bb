// The library's parallel loops. They are OpenMP loops (schedule(dynamic) over chunks of whole
// blocks); a front end never starts threads of its own.
#pragma once

#include <cstdint>
#include <functional>

namespace onnxq {

// The library's one unit of work: every chunked loop (decoding, streaming, statistics, diff) takes
// runs of whole blocks worth this many values, 256 KiB as float32. That keeps a chunk's input and
// output in L2 between decoding and use, and makes scheduling negligible (a chunk decodes in tens
// of microseconds). It is fixed, not tuned per call, so statistics merged in chunk order do not
// depend on the thread count; every block size divides it.
inline constexpr std::uint64_t kChunkElements = std::uint64_t{1} << 16;

// No call uses more threads than this, whatever --threads or OMP_NUM_THREADS asks for: more
// cannot outrun memory bandwidth on any machine this targets, and each thread costs a stack.
inline constexpr unsigned kMaxThreads = 256;

// The threads a call asking for 0 (the default) uses: OMP_NUM_THREADS when it holds a positive
// number, else the CPUs this process may run on (its affinity mask); at most kMaxThreads.
unsigned default_thread_count();
// `threads` when positive (at most kMaxThreads), else default_thread_count().
unsigned resolve_threads(int threads);

// Other threads ready to run on this machine right now: the kernel's count of runnable threads
// (the fourth field of /proc/loadavg, "running/total"), less this one; 0 when unknown.
unsigned other_runnable_threads();
// The thread count for work whose threads wait on each other in turn, where one thread waiting for
// another that other processes keep from its CPU loses more than the second thread gains:
// `threads` while `other_runnable` threads leave this thread and at least one more a CPU each,
// else 1.
unsigned threads_if_cpus_free(unsigned threads, unsigned other_runnable);
// threads_if_cpus_free(default_thread_count(), other_runnable_threads()).
unsigned default_threads_if_cpus_free();

// Calls body(worker, chunk) for every chunk in [0, chunks) on min(threads, chunks) threads. The
// calling thread is worker 0; each thread takes the next chunk in order when it has finished its
// last, so `worker` (< threads) can index per-thread scratch. Returns when every started chunk is
// done and rethrows the first exception; once a chunk has thrown, no further chunk starts. A call
// made from inside a parallel loop runs its chunks in order on the calling thread, as worker 0.
void parallel_chunks(unsigned threads, std::uint64_t chunks,
                     const std::function<void(unsigned worker, std::uint64_t chunk)>& body);

// As parallel_chunks, and then in_order(worker, chunk) for each chunk in chunk order, on the
// thread that ran body for it: body of later chunks runs meanwhile on the other threads. A thread
// whose chunk's turn has not come sleeps (after the OpenMP runtime's short spin), it does not
// poll. Once a call has thrown, no further body or in_order starts.
void parallel_chunks_ordered(unsigned threads, std::uint64_t chunks,
                             const std::function<void(unsigned worker, std::uint64_t chunk)>& body,
                             const std::function<void(unsigned worker, std::uint64_t chunk)>& in_order);

}  // namespace onnxq

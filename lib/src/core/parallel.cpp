#include "onnxq/core/parallel.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <mutex>

namespace onnxq {
namespace {

unsigned affinity_cpu_count() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return static_cast<unsigned>(std::max(1, omp_get_num_procs()));
}

unsigned team_size(unsigned threads, std::uint64_t chunks) {
  if (omp_in_parallel()) return 1;  // nested: this thread's team already holds the CPUs
  return static_cast<unsigned>(std::clamp<std::uint64_t>(chunks, 1, std::clamp(threads, 1u, kMaxThreads)));
}

// The first exception of a loop; once set, no further chunk starts. OpenMP lets no exception
// leave a parallel region, so each chunk's is caught here and rethrown after the loop.
class FirstFailure {
 public:
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  template <class F>
  void run(F&& f) {
    if (failed()) return;
    try {
      f();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_.store(true);
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr error_;
};

}  // namespace

unsigned default_thread_count() {
  static const unsigned count = [] {
    if (const char* env = std::getenv("OMP_NUM_THREADS")) {
      // OpenMP's form: a positive number, optionally followed by a comma list for nested levels.
      char* end = nullptr;
      const long n = std::strtol(env, &end, 10);
      if (end != env && n > 0 && (*end == '\0' || *end == ','))
        return static_cast<unsigned>(std::min<long>(n, kMaxThreads));
    }
    return std::min(affinity_cpu_count(), kMaxThreads);
  }();
  return count;
}

unsigned resolve_threads(int threads) {
  return threads > 0 ? std::min(static_cast<unsigned>(threads), kMaxThreads) : default_thread_count();
}

unsigned other_runnable_threads() {
  std::ifstream in("/proc/loadavg");
  double load[3];
  unsigned running = 0;
  char slash = 0;
  if (!(in >> load[0] >> load[1] >> load[2] >> running >> slash) || slash != '/' || running == 0) return 0;
  return running - 1;
}

unsigned threads_if_cpus_free(unsigned threads, unsigned other_runnable) {
  return other_runnable + 2 <= threads ? threads : 1;
}

unsigned default_threads_if_cpus_free() {
  const unsigned threads = default_thread_count();
  return threads < 2 ? 1 : threads_if_cpus_free(threads, other_runnable_threads());
}

void parallel_chunks(unsigned threads, std::uint64_t chunks,
                     const std::function<void(unsigned worker, std::uint64_t chunk)>& body) {
  const unsigned team = team_size(threads, chunks);
  if (team <= 1) {
    for (std::uint64_t c = 0; c < chunks; ++c) body(0, c);
    return;
  }
  FirstFailure failure;
  const auto n = static_cast<std::int64_t>(chunks);
#pragma omp parallel for schedule(dynamic) num_threads(team)
  for (std::int64_t c = 0; c < n; ++c)
    failure.run([&] { body(static_cast<unsigned>(omp_get_thread_num()), static_cast<std::uint64_t>(c)); });
  failure.rethrow();
}

void parallel_chunks_ordered(unsigned threads, std::uint64_t chunks,
                             const std::function<void(unsigned worker, std::uint64_t chunk)>& body,
                             const std::function<void(unsigned worker, std::uint64_t chunk)>& in_order) {
  const unsigned team = team_size(threads, chunks);
  if (team <= 1) {
    for (std::uint64_t c = 0; c < chunks; ++c) {
      body(0, c);
      in_order(0, c);
    }
    return;
  }
  FirstFailure failure;
  const auto n = static_cast<std::int64_t>(chunks);
#pragma omp parallel for ordered schedule(dynamic) num_threads(team)
  for (std::int64_t c = 0; c < n; ++c) {
    const auto worker = static_cast<unsigned>(omp_get_thread_num());
    const auto chunk = static_cast<std::uint64_t>(c);
    failure.run([&] { body(worker, chunk); });
#pragma omp ordered
    failure.run([&] { in_order(worker, chunk); });
  }
  failure.rethrow();
}

}  // namespace onnxq

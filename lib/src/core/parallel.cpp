#include "onnxq/core/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace onnxq {
namespace {

// Workers 1..n-1 of the current job; worker 0 is the caller. Never destroyed: its threads wait
// for work until the process exits.
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool* pool = new WorkerPool;
    return *pool;
  }

  // False when another job holds the pool (a nested or concurrent call): run it serially then.
  bool try_acquire() { return !busy_.exchange(true, std::memory_order_acquire); }
  void release() { busy_.store(false, std::memory_order_release); }

  // Runs job(0) here and job(1..n-1) on workers; returns when all have returned.
  void run(unsigned n, const std::function<void(unsigned)>& job) {
    {
      std::lock_guard lock(mutex_);
      while (threads_started_ + 1 < n) {
        std::thread([this, k = threads_started_ + 1] { work(k); }).detach();
        ++threads_started_;
      }
      job_ = &job;
      wanted_ = n;
      remaining_ = n - 1;
      ++generation_;
    }
    wake_.notify_all();
    job(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return remaining_ == 0; });
    job_ = nullptr;
  }

 private:
  void work(unsigned k) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (k >= wanted_) continue;
      const auto* job = job_;
      lock.unlock();
      (*job)(k);  // never throws: parallel_chunks catches inside
      lock.lock();
      if (--remaining_ == 0) done_.notify_all();
    }
  }

  std::atomic<bool> busy_{false};
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  unsigned threads_started_ = 0;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned wanted_ = 0;
  unsigned remaining_ = 0;
  std::uint64_t generation_ = 0;
};

unsigned affinity_cpu_count() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

unsigned default_thread_count() {
  static const unsigned count = [] {
    if (const char* env = std::getenv("OMP_NUM_THREADS")) {
      // OpenMP's form: a positive number, optionally followed by a comma list for nested levels.
      char* end = nullptr;
      const long n = std::strtol(env, &end, 10);
      if (end != env && n > 0 && (*end == '\0' || *end == ',')) return static_cast<unsigned>(std::min(n, 1024L));
    }
    return affinity_cpu_count();
  }();
  return count;
}

unsigned resolve_threads(int threads) { return threads > 0 ? static_cast<unsigned>(threads) : default_thread_count(); }

void parallel_chunks(unsigned threads, std::uint64_t chunks,
                     const std::function<void(unsigned worker, std::uint64_t chunk)>& body) {
  const unsigned team = static_cast<unsigned>(std::clamp<std::uint64_t>(chunks, 1, std::max(1u, threads)));
  WorkerPool& pool = WorkerPool::instance();
  if (team <= 1 || !pool.try_acquire()) {
    for (std::uint64_t c = 0; c < chunks; ++c) body(0, c);
    return;
  }
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  pool.run(team, [&](unsigned worker) {
    try {
      for (std::uint64_t c; !failed.load(std::memory_order_relaxed) && (c = next.fetch_add(1)) < chunks;)
        body(worker, c);
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed.store(true);
    }
  });
  pool.release();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace onnxq

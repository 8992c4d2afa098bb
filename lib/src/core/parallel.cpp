#include "onnxq/core/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace onnxq {
namespace {

// How long an idle thread spins (yielding now and then) before it sleeps: back-to-back short
// calls (a 256 KiB decode takes about 10 us) then find their workers awake, where a futex wake
// of a sleeping thread alone takes longer than the work.
constexpr auto kSpinTime = std::chrono::microseconds(100);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until ready() or kSpinTime has passed, giving the CPU to other runnable threads every
// 1024 turns (some 20 us; yielding more often cost a quarter of the 2-thread speed of 10 us
// calls); returns ready().
template <class Ready>
bool spin_until(Ready ready) {
  const auto give_up = std::chrono::steady_clock::now() + kSpinTime;
  for (unsigned turn = 1;; ++turn) {
    if (ready()) return true;
    if (turn % 1024 == 0) {
      if (std::chrono::steady_clock::now() > give_up) return ready();
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
  }
}

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
      remaining_.store(n - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    job(0);
    auto all_done = [&] { return remaining_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(all_done)) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, all_done);
    }
  }

 private:
  void work(unsigned k) {
    std::uint64_t seen = 0;
    for (;;) {
      auto new_job = [&] { return generation_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(new_job)) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, new_job);
      }
      const std::function<void(unsigned)>* job = nullptr;
      {
        // The job and its size are read with the generation they belong to: a worker that is
        // not part of this job does not hold it up, so the next run() may already be changing them.
        std::lock_guard lock(mutex_);
        seen = generation_.load(std::memory_order_relaxed);
        if (k < wanted_) job = job_;
      }
      if (!job) continue;
      (*job)(k);  // never throws: parallel_chunks catches inside
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mutex_);  // the caller either sees 0 or is already waiting
        done_.notify_all();
      }
    }
  }

  std::atomic<bool> busy_{false};
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  unsigned threads_started_ = 0;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned wanted_ = 0;
  std::atomic<unsigned> remaining_{0};
  std::atomic<std::uint64_t> generation_{0};
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

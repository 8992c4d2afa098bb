#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>

#include "core/chunk_buffers.hpp"
#include "onnxq/core/pipeline.hpp"

namespace onnxq {
namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The turn: the number of chunks consumed so far, modulo 2^32 (a 32-bit atomic waits on a futex
// directly). A thread compares it with its own chunk modulo 2^32, which is exact because at most
// `threads` chunks are ever in flight. kStopped after a failure.
class Turn {
 public:
  static constexpr std::chrono::microseconds kSpin{100};
  static constexpr std::uint32_t kStopped = 0xFFFFFFFF;
  static std::uint32_t of(std::uint64_t chunk) { return static_cast<std::uint32_t>(chunk % kStopped); }

  // Waits until chunk `chunk` may be consumed; false once stopped. The wait is usually shorter
  // than consuming one chunk, and a sleep and wake-up through the kernel costs more than that on a
  // virtual machine, so it spins for a while before it sleeps.
  bool wait_for(std::uint64_t chunk) {
    const std::uint32_t mine = of(chunk);
    std::uint32_t now = value_.load(std::memory_order_acquire);
    const auto spin_until = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 1; now != mine && now != kStopped; ++i) {
      if (i % 64 == 0 && std::chrono::steady_clock::now() > spin_until) break;
      cpu_relax();
      now = value_.load(std::memory_order_acquire);
    }
    for (; now != mine; now = value_.load(std::memory_order_acquire)) {
      if (now == kStopped) return false;
      value_.wait(now, std::memory_order_acquire);
    }
    return true;
  }
  void pass(std::uint64_t consumed) {
    value_.store(of(consumed + 1), std::memory_order_release);
    value_.notify_all();
  }
  void stop() {
    value_.store(kStopped, std::memory_order_release);
    value_.notify_all();
  }
  bool stopped() const { return value_.load(std::memory_order_acquire) == kStopped; }

 private:
  std::atomic<std::uint32_t> value_{0};
};

}  // namespace

void relay_pipeline(unsigned threads, std::uint64_t chunks, const PipelineFill& fill, const RelayConsume& consume) {
  if (chunks == 0) return;
  // Inside a parallel region this thread's team already holds the CPUs.
  const auto team =
      static_cast<unsigned>(omp_in_parallel() ? 1 : std::min<std::uint64_t>(chunks, std::max(threads, 1u)));
  const ChunkBuffers buffers(team, kPipelineChunkBytes);
  if (team < 2) {
    for (std::uint64_t c = 0; c < chunks; ++c) consume(c, fill(c, buffers[0]));
    return;
  }
  Turn turn;
  std::atomic<std::uint64_t> next{0};  // the next chunk to fill
  std::mutex error_mutex;
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast <int>(team))
  {
    // However many threads the runtime gives (OMP_THREAD_LIMIT), every chunk is taken by one of them.
    const auto worker = static_cast<unsigned>(omp_get_thread_num());
    try {
      // Chunks are taken in order as threads come free rather than dealt out in advance: a thread
      // that starts late (waking an idle CPU can take milliseconds) holds up no chunk meanwhile.
      for (std::uint64_t c = next.fetch_add(1); c < chunks && !turn.stopped(); c = next.fetch_add(1)) {
        const std::span<const std::byte> bytes = fill(c, buffers[worker]);
        if (!turn.wait_for(c)) break;
        consume(c, bytes);
        turn.pass(c);
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      turn.stop();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace onnxq

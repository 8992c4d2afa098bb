#include "onnxq/core/pipeline.hpp"

#include <omp.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>

namespace onnxq {
namespace {

void run_in_order(std::uint64_t chunks, unsigned consumers, const PipelineFill& fill, const PipelineConsume& consume) {
  std::vector<std::byte> scratch;
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::span<const std::byte> bytes = fill(c, scratch);
    for (unsigned k = 0; k < consumers; ++k) consume(k, c, bytes);
  }
}

// The ring's bookkeeping: how far the filler and each consumer have come, and the first failure.
class Ring {
 public:
  explicit Ring(unsigned consumers) : consumed_(consumers, 0) {}

  // The filler may reuse chunk c's slot once every consumer has finished chunk c - kPipelineSlots.
  bool wait_slot_free(std::uint64_t c) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return failed_ || c < kPipelineSlots + slowest(); });
    return !failed_;
  }
  void filled(std::uint64_t c, std::span<const std::byte> bytes) {
    std::lock_guard lock(mutex_);
    views_[c % kPipelineSlots] = bytes;
    filled_ = c + 1;
    changed_.notify_all();
  }
  // Chunk c's bytes once filled; false after a failure.
  bool wait_filled(std::uint64_t c, std::span<const std::byte>& bytes) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return failed_ || c < filled_; });
    bytes = views_[c % kPipelineSlots];
    return !failed_;
  }
  void consumed(unsigned k, std::uint64_t c) {
    std::lock_guard lock(mutex_);
    consumed_[k] = c + 1;
    changed_.notify_all();
  }
  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!failed_) error_ = e;
    failed_ = true;
    changed_.notify_all();
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::uint64_t slowest() const { return *std::min_element(consumed_.begin(), consumed_.end()); }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t filled_ = 0;
  std::vector<std::uint64_t> consumed_;
  std::span<const std::byte> views_[kPipelineSlots];
  bool failed_ = false;
  std::exception_ptr error_;
};

}  // namespace

void parallel_pipeline(unsigned threads, std::uint64_t chunks, unsigned consumers, const PipelineFill& fill,
                       const PipelineConsume& consume) {
  if (chunks == 0 || consumers == 0) return;
  const int team = static_cast<int>(consumers) + 1;
  if (threads < 2 || omp_in_parallel()) return run_in_order(chunks, consumers, fill, consume);
  Ring ring(consumers);
  std::vector<std::vector<std::byte>> slots(kPipelineSlots);
  bool short_team = false;
#pragma omp parallel num_threads(team)
  {
    const int me = omp_get_thread_num();
    if (omp_get_num_threads() < team) {
      // The runtime gave fewer threads (OMP_THREAD_LIMIT, nesting): the stages would wait on
      // each other forever, so the caller's thread runs them in order below.
      if (me == 0) short_team = true;
    } else if (me == 0) {
      try {
        for (std::uint64_t c = 0; c < chunks && ring.wait_slot_free(c); ++c)
          ring.filled(c, fill(c, slots[c % kPipelineSlots]));
      } catch (...) {
        ring.fail(std::current_exception());
      }
    } else {
      const auto k = static_cast<unsigned>(me - 1);
      try {
        std::span<const std::byte> bytes;
        for (std::uint64_t c = 0; c < chunks && ring.wait_filled(c, bytes); ++c) {
          consume(k, c, bytes);
          ring.consumed(k, c);
        }
      } catch (...) {
        ring.fail(std::current_exception());
      }
    }
  }
  if (short_team) return run_in_order(chunks, consumers, fill, consume);
  ring.rethrow();
}

}  // namespace onnxq

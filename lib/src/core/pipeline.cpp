#include "onnxq/core/pipeline.hpp"

#include <omp.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "core/chunk_buffers.hpp"

namespace onnxq {
namespace {

void run_in_order(std::uint64_t chunks, unsigned consumers, const PipelineFill& fill, const PipelineConsume& consume) {
  const ChunkBuffers buffer(1, kPipelineChunkBytes);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::span<const std::byte> bytes = fill(c, buffer[0]);
    for (unsigned k = 0; k < consumers; ++k) consume(k, c, bytes);
  }
}

// Chunks a waiting stage lets pile up before it is woken: every wake-up is a context switch
// (about as dear as hashing a chunk when the stages share a CPU), so each wake-up serves
// several chunks. Half the ring keeps the other half in flight.
constexpr std::uint64_t kWakeBatch = kPipelineSlots / 2;

// The ring's bookkeeping: how far the filler and each consumer have come, and the first failure.
// A stage that has to wait says what it waits for, and is woken only once that holds.
class Ring {
 public:
  Ring(unsigned consumers, std::uint64_t chunks)
      : chunks_(chunks), consumed_(consumers, 0), consumer_needs_(consumers, 0) {}

  // The filler may reuse chunk c's slot once every consumer has finished chunk c - kPipelineSlots;
  // when it has to wait, it waits for the slots of a batch.
  bool wait_slot_free(std::uint64_t c) {
    std::unique_lock lock(mutex_);
    if (!failed_ && c >= kPipelineSlots + slowest()) {
      filler_needs_ = c + kWakeBatch - kPipelineSlots;  // slowest() at least this
      filler_cv_.wait(lock, [&] { return failed_ || slowest() >= filler_needs_; });
      filler_needs_ = 0;
    }
    return !failed_;
  }
  void filled(std::uint64_t c, std::span<const std::byte> bytes) {
    std::lock_guard lock(mutex_);
    views_[c % kPipelineSlots] = bytes;
    filled_ = c + 1;
    for (std::uint64_t need : consumer_needs_)
      if (need != 0 && filled_ >= need) {
        consumer_cv_.notify_all();
        break;
      }
  }
  // Chunk c's bytes once filled; false after a failure. A consumer that has to wait waits for a
  // batch of chunks (or the last one).
  bool wait_filled(unsigned k, std::uint64_t c, std::span<const std::byte>& bytes) {
    std::unique_lock lock(mutex_);
    if (!failed_ && c >= filled_) {
      consumer_needs_[k] = std::min(c + kWakeBatch, chunks_);
      consumer_cv_.wait(lock, [&] { return failed_ || filled_ >= consumer_needs_[k]; });
      consumer_needs_[k] = 0;
    }
    bytes = views_[c % kPipelineSlots];
    return !failed_;
  }
  void consumed(unsigned k, std::uint64_t c) {
    std::lock_guard lock(mutex_);
    consumed_[k] = c + 1;
    if (filler_needs_ != 0 && slowest() >= filler_needs_) filler_cv_.notify_one();
  }
  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!failed_) error_ = e;
    failed_ = true;
    filler_cv_.notify_all();
    consumer_cv_.notify_all();
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::uint64_t slowest() const { return *std::min_element(consumed_.begin(), consumed_.end()); }

  std::mutex mutex_;
  std::condition_variable filler_cv_, consumer_cv_;
  const std::uint64_t chunks_;
  std::uint64_t filled_ = 0;
  std::vector<std::uint64_t> consumed_;
  std::uint64_t filler_needs_ = 0;             // 0: the stage is not waiting
  std::vector<std::uint64_t> consumer_needs_;  // per consumer, likewise
  std::span<const std::byte> views_[kPipelineSlots];
  bool failed_ = false;
  std::exception_ptr error_;
};

}  // namespace

void parallel_pipeline(unsigned threads, std::uint64_t chunks, unsigned consumers, const PipelineFill& fill,
                       const PipelineConsume& consume) {
  if (chunks == 0 || consumers == 0) return;
  // With a thread for every stage the filler only fills. With one fewer, it runs consumer 0 itself
  // on the chunk it just read, still in its L2, rather than leave one stage's thread to share a
  // CPU (each hand-over to a thread that is not running is a context switch).
  if (threads < 2 || threads < consumers || omp_in_parallel()) return run_in_order(chunks, consumers, fill, consume);
  const bool filler_consumes = threads <= consumers;
  const int team = static_cast<int>(filler_consumes ? consumers : consumers + 1);
  const unsigned first = filler_consumes ? 1 : 0;  // the first consumer with a thread of its own
  Ring ring(consumers, chunks);
  const ChunkBuffers slots(kPipelineSlots, kPipelineChunkBytes);
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
        for (std::uint64_t c = 0; c < chunks && ring.wait_slot_free(c); ++c) {
          const std::span<const std::byte> bytes = fill(c, slots[c % kPipelineSlots]);
          ring.filled(c, bytes);
          if (filler_consumes) {
            consume(0, c, bytes);
            ring.consumed(0, c);
          }
        }
      } catch (...) {
        ring.fail(std::current_exception());
      }
    } else {
      const auto k = static_cast<unsigned>(me - 1) + first;
      try {
        std::span<const std::byte> bytes;
        for (std::uint64_t c = 0; c < chunks && ring.wait_filled(k, c, bytes); ++c) {
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

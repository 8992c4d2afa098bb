// parallel_pipeline (onnxq/core/pipeline.hpp): every consumer sees every chunk once, in order and
// with the bytes filled for it, never more than the ring ahead; a failure in any stage comes
// back to the caller and nothing hangs. relay_pipeline: the consumer sees every chunk once, in
// order, never two at once, on the thread that filled it; a failure comes back, and no chunk
// after it is consumed.
#include "onnxq/core/pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace onnxq {
namespace {

// Chunk c holds a few bytes that say c, so a consumer can tell which chunk it got.
std::span<const std::byte> fill_with_index(std::uint64_t c, std::span<std::byte> buffer) {
  const std::span<std::byte> bytes = buffer.first(1 + c % 5);
  std::fill(bytes.begin(), bytes.end(), static_cast<std::byte>(c * 7 + 1));
  return bytes;
}

TEST(ParallelPipeline, EveryConsumerSeesEveryChunkInOrderWithItsBytes) {
  for (unsigned threads : {1u, 2u, 8u})
    for (unsigned consumers : {1u, 2u, 3u})
      for (std::uint64_t chunks : {0ull, 1ull, 3ull, 4ull, 5ull, 1000ull}) {
        std::vector<std::vector<std::uint64_t>> seen(consumers);
        std::atomic<bool> bad_bytes{false};
        parallel_pipeline(threads, chunks, consumers, fill_with_index,
                          [&](unsigned k, std::uint64_t c, std::span<const std::byte> bytes) {
                            if (bytes.size() != 1 + c % 5 || bytes[0] != static_cast<std::byte>(c * 7 + 1) ||
                                bytes.back() != bytes[0])
                              bad_bytes = true;
                            seen[k].push_back(c);  // each consumer on one thread: no lock needed
                          });
        EXPECT_FALSE(bad_bytes) << threads << " " << consumers << " " << chunks;
        for (unsigned k = 0; k < consumers; ++k) {
          ASSERT_EQ(seen[k].size(), chunks) << threads << " " << consumers << " " << k;
          for (std::uint64_t c = 0; c < chunks; ++c) ASSERT_EQ(seen[k][c], c) << threads << " " << k;
        }
      }
}

TEST(ParallelPipeline, TheFillerStaysWithinTheRingOfTheSlowestConsumer) {
  std::atomic<std::uint64_t> slowest_done{0};  // chunks the slow consumer has finished
  std::atomic<bool> too_far{false};
  parallel_pipeline(
      2, 200, 2,
      [&](std::uint64_t c, std::span<std::byte> buffer) {
        if (c >= slowest_done.load() + kPipelineSlots) too_far = true;  // its slot is still being read
        return fill_with_index(c, buffer);
      },
      [&](unsigned k, std::uint64_t c, std::span<const std::byte>) {
        if (k == 1) {
          std::this_thread::sleep_for(std::chrono::microseconds(20));
          slowest_done = c + 1;
        }
      });
  EXPECT_FALSE(too_far);
}

TEST(ParallelPipeline, AFailureInAnyStageComesBackAndNothingHangs) {
  for (unsigned threads : {1u, 2u})
    for (int stage : {-1, 0, 1}) {  // -1: the filler; else that consumer
      for (std::uint64_t at : {0ull, 3ull, 499ull}) {
        std::atomic<std::uint64_t> after{0};  // chunks started after the failing one, by the failing stage
        try {
          parallel_pipeline(
              threads, 500, 2,
              [&](std::uint64_t c, std::span<std::byte> buffer) {
                if (stage == -1 && c == at) throw std::runtime_error("fill " + std::to_string(c));
                if (stage == -1 && c > at) ++after;
                return fill_with_index(c, buffer);
              },
              [&](unsigned k, std::uint64_t c, std::span<const std::byte>) {
                if (static_cast<int>(k) == stage && c == at) throw std::runtime_error("consume " + std::to_string(c));
                if (static_cast<int>(k) == stage && c > at) ++after;
              });
          ADD_FAILURE() << "no exception: threads " << threads << ", stage " << stage << ", at " << at;
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(std::string(e.what()), (stage == -1 ? "fill " : "consume ") + std::to_string(at));
        }
        EXPECT_EQ(after.load(), 0u) << threads << " " << stage << " " << at;
      }
    }
}

TEST(RelayPipeline, TheConsumerSeesEveryChunkInOrderWithItsBytesOneAtATime) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::uint64_t chunks : {0ull, 1ull, 2ull, 3ull, 1000ull}) {
      std::vector<std::uint64_t> seen;
      std::atomic<int> inside{0};
      std::atomic<bool> bad_bytes{false}, overlapped{false};
      relay_pipeline(
          threads, chunks,
          [&](std::uint64_t c, std::span<std::byte> buffer) {
            if (c % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // fills finish out of order
            return fill_with_index(c, buffer);
          },
          [&](std::uint64_t c, std::span<const std::byte> bytes) {
            if (inside.fetch_add(1) != 0) overlapped = true;
            if (bytes.size() != 1 + c % 5 || bytes[0] != static_cast<std::byte>(c * 7 + 1) || bytes.back() != bytes[0])
              bad_bytes = true;
            seen.push_back(c);
            inside.fetch_sub(1);
          });
      EXPECT_FALSE(bad_bytes) << threads << " " << chunks;
      EXPECT_FALSE(overlapped) << threads << " " << chunks;
      ASSERT_EQ(seen.size(), chunks) << threads;
      for (std::uint64_t c = 0; c < chunks; ++c) ASSERT_EQ(seen[c], c) << threads;
    }
}

TEST(RelayPipeline, EachChunkIsConsumedOnTheThreadThatFilledIt) {
  std::vector<std::thread::id> filled_by(400);
  std::atomic<bool> second_filled{false}, moved{false};
  relay_pipeline(
      2, filled_by.size(),
      [&](std::uint64_t c, std::span<std::byte> buffer) {
        filled_by[c] = std::this_thread::get_id();
        if (c == 1) second_filled = true;
        // Chunk 0's thread holds it until the other thread has filled chunk 1 (for 60 s at most: a
        // loaded machine may start the second thread late), so that both threads take part.
        for (int i = 0; c == 0 && !second_filled && i < 60000; ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return fill_with_index(c, buffer);
      },
      [&](std::uint64_t c, std::span<const std::byte>) {
        if (filled_by[c] != std::this_thread::get_id()) moved = true;
      });
  EXPECT_NE(filled_by[0], filled_by[1]);
  EXPECT_FALSE(moved);
}

TEST(RelayPipeline, EachThreadFillsABufferOfItsOwnOfAChunksSize) {
  std::mutex mutex;
  std::map<std::thread::id, std::set<const std::byte*>> buffers;  // per thread, the buffers it was given
  relay_pipeline(
      2, 400,
      [&](std::uint64_t c, std::span<std::byte> buffer) {
        EXPECT_EQ(buffer.size(), kPipelineChunkBytes);
        {
          std::lock_guard lock(mutex);
          buffers[std::this_thread::get_id()].insert(buffer.data());
        }
        if (c % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(20));
        return fill_with_index(c, buffer);
      },
      [](std::uint64_t, std::span<const std::byte>) {});
  std::set<const std::byte*> all;
  for (const auto& [thread, given] : buffers) {
    EXPECT_EQ(given.size(), 1u) << "a thread was given several buffers";
    all.insert(given.begin(), given.end());
  }
  EXPECT_EQ(all.size(), buffers.size()) << "two threads shared a buffer";
}

TEST(RelayPipeline, AFailureComesBackAndNoLaterChunkIsConsumed) {
  for (unsigned threads : {1u, 2u, 4u})
    for (bool in_fill : {true, false})
      for (std::uint64_t at : {0ull, 3ull, 499ull}) {
        std::atomic<std::uint64_t> consumed_after{0};
        try {
          relay_pipeline(
              threads, 500,
              [&](std::uint64_t c, std::span<std::byte> buffer) {
                if (in_fill && c == at) throw std::runtime_error("fill " + std::to_string(c));
                return fill_with_index(c, buffer);
              },
              [&](std::uint64_t c, std::span<const std::byte>) {
                if (!in_fill && c == at) throw std::runtime_error("consume " + std::to_string(c));
                if (c >= at) ++consumed_after;
              });
          ADD_FAILURE() << "no exception: threads " << threads << ", at " << at;
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(std::string(e.what()), (in_fill ? "fill " : "consume ") + std::to_string(at));
        }
        EXPECT_EQ(consumed_after.load(), 0u) << threads << " " << in_fill << " " << at;
      }
}

}  // namespace
}  // namespace onnxq

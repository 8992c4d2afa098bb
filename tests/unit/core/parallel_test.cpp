// The library's parallel loops (onnxq/core/parallel.hpp, OpenMP): every chunk runs exactly once, worker
// numbers index per-thread scratch, the first exception comes back, and nested or concurrent
// calls neither deadlock nor lose chunks.
#include "onnxq/core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace onnxq {
namespace {

TEST(ParallelChunks, EveryChunkRunsOnceOnAWorkerBelowTheTeamSize) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (std::uint64_t chunks : {0ull, 1ull, 2ull, 7ull, 1000ull}) {
      std::vector<std::atomic<int>> runs(chunks);
      std::atomic<unsigned> highest_worker{0};
      parallel_chunks(threads, chunks, [&](unsigned worker, std::uint64_t c) {
        ++runs[c];
        unsigned seen = highest_worker.load();
        while (worker > seen && !highest_worker.compare_exchange_weak(seen, worker)) {
        }
      });
      for (std::uint64_t c = 0; c < chunks; ++c) ASSERT_EQ(runs[c].load(), 1) << threads << " " << chunks << " " << c;
      EXPECT_LT(highest_worker.load(), std::max(1u, threads));
    }
  }
}

TEST(ParallelChunks, MoreThanOneThreadTakesPartWhenAsked) {
  // Chunks wait (up to 60 s in all: a loaded machine may start the second thread late) until a
  // second thread has been seen, so a pool that ran everything on the caller would fail.
  std::set<std::thread::id> ids;
  std::mutex mutex;
  std::atomic<bool> two{false};
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  parallel_chunks(2, 64, [&](unsigned, std::uint64_t) {
    {
      std::lock_guard lock(mutex);
      ids.insert(std::this_thread::get_id());
      if (ids.size() > 1) two = true;
    }
    while (!two && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ParallelChunks, TheFirstExceptionComesBackAndLaterChunksDoNotStart) {
  // Chunk 3 throws; each chunk takes 1 ms. The other thread stops taking chunks once the failure
  // is recorded (after the exception is caught), so only a few more start, far from all 20000
  // (which would take 10 s or more: room for a thread the scheduler leaves waiting).
  std::atomic<int> started{0};
  EXPECT_THROW(parallel_chunks(2, 20000,
                               [&](unsigned, std::uint64_t c) {
                                 ++started;
                                 if (c == 3) throw std::runtime_error("chunk 3");
                                 std::this_thread::sleep_for(std::chrono::milliseconds(1));
                               }),
               std::runtime_error);
  EXPECT_LT(started.load(), 10000);
  // The pool is usable afterwards.
  std::atomic<int> after{0};
  parallel_chunks(2, 10, [&](unsigned, std::uint64_t) { ++after; });
  EXPECT_EQ(after.load(), 10);
}

TEST(ParallelChunks, NestedAndConcurrentCallsComplete) {
  std::atomic<int> inner{0};
  parallel_chunks(2, 4, [&](unsigned, std::uint64_t) {
    parallel_chunks(2, 5, [&](unsigned worker, std::uint64_t) {
      EXPECT_EQ(worker, 0u);  // the pool is busy: the nested call runs serially
      ++inner;
    });
  });
  EXPECT_EQ(inner.load(), 20);

  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int k = 0; k < 4; ++k)
    callers.emplace_back([&] {
      for (int r = 0; r < 50; ++r) parallel_chunks(2, 9, [&](unsigned, std::uint64_t) { ++total; });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 50 * 9);
}

TEST(ParallelChunksOrdered, InOrderRunsInChunkOrderWhileBodiesRunOnSeveralThreads) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::vector<std::uint64_t> order;
    std::vector<std::atomic<int>> bodies(300);
    std::set<std::thread::id> ids;
    std::mutex mutex;
    // With more than one thread, each body waits (60 s at most) until a second thread has run one:
    // the check below then does not depend on how soon the scheduler starts the second thread.
    std::atomic<bool> two{threads == 1};
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    parallel_chunks_ordered(
        threads, 300,
        [&](unsigned, std::uint64_t c) {
          ++bodies[c];
          {
            std::lock_guard lock(mutex);
            ids.insert(std::this_thread::get_id());
            if (ids.size() > 1) two = true;
          }
          while (!two && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        },
        [&](unsigned, std::uint64_t c) {
          ASSERT_EQ(bodies[c].load(), 1) << "in_order after its body";
          order.push_back(c);  // in_order calls never overlap
          std::this_thread::sleep_for(std::chrono::microseconds(20));
        });
    ASSERT_EQ(order.size(), 300u);
    for (std::uint64_t c = 0; c < 300; ++c) ASSERT_EQ(order[c], c) << threads;
    if (threads > 1) {
      EXPECT_GT(ids.size(), 1u) << "while one chunk waits for its turn, others decode";
    }
  }
}

TEST(ParallelChunksOrdered, TheFirstExceptionComesBack) {
  std::atomic<int> written{0};
  EXPECT_THROW(parallel_chunks_ordered(
                   2, 20000,
                   [&](unsigned, std::uint64_t c) {
                     if (c == 5) throw std::runtime_error("chunk 5");
                   },
                   [&](unsigned, std::uint64_t) {
                     ++written;
                     std::this_thread::sleep_for(std::chrono::microseconds(50));
                   }),
               std::runtime_error);
  EXPECT_LE(written.load(), 10);
}

TEST(ParallelChunks, ResolveThreads) {
  EXPECT_EQ(resolve_threads(3), 3u);
  EXPECT_EQ(resolve_threads(100000), kMaxThreads) << "--threads is capped";
  EXPECT_LE(default_thread_count(), kMaxThreads);
  EXPECT_EQ(resolve_threads(0), default_thread_count());
  EXPECT_EQ(resolve_threads(-1), default_thread_count());
  EXPECT_GE(default_thread_count(), 1u);
}

TEST(ThreadsIfCpusFree, AllThreadsOnlyWhileThisOneAndAnotherHaveACpuEach) {
  EXPECT_EQ(threads_if_cpus_free(2, 0), 2u);
  EXPECT_EQ(threads_if_cpus_free(2, 1), 1u);  // another process runs: the second thread would wait
  EXPECT_EQ(threads_if_cpus_free(8, 6), 8u);
  EXPECT_EQ(threads_if_cpus_free(8, 7), 1u);
  EXPECT_EQ(threads_if_cpus_free(1, 0), 1u);
  EXPECT_GE(default_threads_if_cpus_free(), 1u);
}

}  // namespace
}  // namespace onnxq

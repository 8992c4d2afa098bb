// Two ways to read a file once in chunks for sequential consumers (the model hash and the
// per-tensor hashes):
// - parallel_pipeline: one stage fills chunks in order into a small ring of reused buffers while
//   consumer stages, each on its own thread, take every chunk in the same order. For consumers
//   slower than the reads (SHA-256).
// - relay_pipeline: every thread fills chunks of its own and consumes them itself, in turn, so the
//   reads run side by side and each chunk is consumed by the core that read it, still in its L2.
//   For one consumer about as fast as the reads (XXH64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace onnxq {

// The ring: enough chunks in flight to hide a read behind the consumers, each small enough to
// stay in L2 between the read that copies it and the consumers that use it.
inline constexpr unsigned kPipelineSlots = 4;
inline constexpr std::size_t kPipelineChunkBytes = 512 * 1024;

// Bytes of chunk `chunk`: read into `buffer` (kPipelineChunkBytes bytes of the pipeline's, reused
// for later chunks), or a view of memory that stays valid until the pipeline returns.
using PipelineFill = std::function<std::span<const std::byte>(std::uint64_t chunk, std::span<std::byte> buffer)>;
// Consumer `consumer` (< consumers) given chunk `chunk`'s bytes; each consumer sees the chunks in
// order [0, chunks).
using PipelineConsume = std::function<void(unsigned consumer, std::uint64_t chunk, std::span<const std::byte> bytes)>;

// Fills every chunk once and hands it to every consumer. With `threads` > consumers the filling
// stage and each consumer run on threads of their own; with `threads` == consumers (at least 2)
// the filling thread also runs consumer 0; the filler is at most kPipelineSlots chunks ahead of the
// slowest consumer. Otherwise (fewer threads, or inside a parallel region) the calling thread
// fills each chunk and runs the consumers on it in order. The first exception of any stage stops
// every stage and is rethrown here; the stage that threw starts no further chunk.
void parallel_pipeline(unsigned threads, std::uint64_t chunks, unsigned consumers, const PipelineFill& fill,
                       const PipelineConsume& consume);

// The consumer of relay_pipeline: given chunk `chunk`'s bytes, chunks in order [0, chunks), one
// call at a time (from any of the threads).
using RelayConsume = std::function<void(std::uint64_t chunk, std::span<const std::byte> bytes)>;

// Each of `threads` threads takes the next chunk not yet taken, fills it into a buffer of its own,
// and consumes it once chunk - 1 has been consumed. A thread waiting for its turn spins briefly
// (the turn usually comes within one chunk's consuming), then sleeps: unlike an OpenMP ordered
// loop, whose long spin takes the CPU from the thread it waits for when other processes keep the
// CPUs busy. With fewer than 2 threads (or inside a parallel region) the calling thread fills and
// consumes each chunk in order. The first exception stops every thread and is rethrown here; no
// chunk after the failed one is consumed.
void relay_pipeline(unsigned threads, std::uint64_t chunks, const PipelineFill& fill, const RelayConsume& consume);

}  // namespace onnxq

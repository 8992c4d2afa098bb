#include "decoded_stream.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "log.hpp"
#include "onnxq/core/mapping_guard.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/tensor_decode.hpp"
#include "onnxq/npy/writer.hpp"

namespace onnxq::cli {
namespace {

// 1 MiB of output per chunk: the reused buffer stays cache-resident between the decoder
// writing it and write() copying it into the page cache.
constexpr std::size_t kChunkOutputBytes = 1u << 20;
// More decoders than this cannot outrun write(); the cap also bounds the buffers (2 per decoder).
constexpr unsigned kMaxDecoders = 8;
// Chunks written by the calling thread alone, timed, before more threads may join: the first
// faults its buffer in, the second's times decide.
constexpr std::uint64_t kProbeChunks = 2;
// More threads join when a chunk's decoding takes at least this share of its write time,
constexpr double kThreadsPayOff = 0.05;
// and when at least this many chunks are left after the probe: handing chunks between threads
// has a cost that only a long tensor's hidden decoding repays (measured on tmpfs, 2 threads
// against one, 40 interleaved runs: 4-7 % slower at 4-16 MiB of output, 1-3 % faster at 64).
constexpr std::uint64_t kMinParallelChunks = 32;

// Other threads ready to run on this machine right now: the kernel's count of runnable threads
// (the fourth field of /proc/loadavg, "running/total"), less this one; 0 when unknown.
unsigned other_runnable_threads() {
  std::ifstream in("/proc/loadavg");
  double load[3];
  unsigned running = 0;
  char slash = 0;
  if (!(in >> load[0] >> load[1] >> load[2] >> running >> slash) || slash != '/' || running == 0) return 0;
  return running - 1;
}

struct Chunking {
  std::uint64_t blocks;      // in the tensor
  std::size_t block_out;     // output bytes per block
  std::size_t chunk_blocks;  // blocks per chunk
  std::uint64_t chunks;
};

Chunking chunking(const DecodedStream& s) {
  Chunking c{};
  c.blocks = (s.tensor ? s.tensor->byte_size : s.bytes.size()) / s.format->block_bytes;
  c.block_out = std::size_t{s.format->block_elements} * (dtype_info(s.dtype).bits / 8);
  c.chunk_blocks = std::max<std::size_t>(1, kChunkOutputBytes / c.block_out);
  c.chunks = (c.blocks + c.chunk_blocks - 1) / c.chunk_blocks;
  return c;
}

// Decodes chunk `index` into `buffer` with one thread; returns its output bytes.
std::size_t decode_chunk(const DecodedStream& s, const Chunking& c, std::uint64_t index, void* buffer) {
  const std::uint64_t first = index * c.chunk_blocks;
  const std::uint64_t n = std::min<std::uint64_t>(c.chunk_blocks, c.blocks - first);
  if (s.model)
    decode_tensor_blocks(*s.model, *s.tensor, first, n, s.dtype, buffer, 1);
  else
    decode_blocks(*s.format, s.bytes, first, n, s.dtype, buffer, 1);
  throw_if_mapped_file_changed();  // the input shrank: the chunk holds zeros read past its end
  return n * c.block_out;
}

// A chunk buffer: never zeroed (the decoder overwrites it), uint64 storage aligned for every type.
using Buffer = std::unique_ptr<std::uint64_t[]>;
Buffer new_buffer(std::size_t bytes) { return Buffer(new std::uint64_t[(bytes + 7) / 8]); }

// One chunk buffer per thread, kept for the whole process: a command that writes many tensors
// (export, dequant --all) faults each buffer's pages in once, not once per tensor.
// (A chunk is at most 1 MiB, or one block when a block's output is larger.)
std::uint64_t* thread_buffer(unsigned index, std::size_t bytes) {
  static std::mutex mutex;
  static std::vector<std::pair<Buffer, std::size_t>> buffers;
  std::lock_guard lock(mutex);
  if (buffers.size() <= index) buffers.resize(index + 1);
  auto& [buffer, size] = buffers[index];
  if (size < bytes) {
    size = std::max(bytes, kChunkOutputBytes);
    buffer = new_buffer(size);
  }
  return buffer.get();
}

// The time one chunk spent decoding and writing.
struct ChunkTimes {
  std::chrono::steady_clock::duration decode{}, write{};
};

// Chunks [first, end) on this thread; returns the times of the last one.
ChunkTimes write_serial(OutputSink& sink, const DecodedStream& s, const Chunking& c, std::uint64_t first,
                        std::uint64_t end) {
  using Clock = std::chrono::steady_clock;
  std::uint64_t* buffer = thread_buffer(0, c.chunk_blocks * c.block_out);
  ChunkTimes last;
  for (std::uint64_t i = first; i < end; ++i) {
    const auto t0 = Clock::now();
    const std::size_t bytes = decode_chunk(s, c, i, buffer);
    const auto t1 = Clock::now();
    sink.write(buffer, bytes);
    last = {t1 - t0, Clock::now() - t1};
    if (s.progress) s.progress->add(bytes / c.block_out * s.format->block_bytes);
  }
  return last;
}

// A regular file: every thread takes the next chunk, decodes it into its own buffer and writes
// it at its final offset. The kernel copies one write at a time into the file (the inode lock),
// while the other threads decode theirs, so the copying never waits for decoding and each copy
// reads a buffer that is still in its own core's cache. A thread that the scheduler holds up
// delays only its current chunk: the others go on taking chunks.
void write_positional(OutputSink& sink, const DecodedStream& s, const Chunking& c, std::uint64_t first,
                      unsigned threads) {
  std::vector<std::uint64_t*> buffers;
  for (unsigned k = 0; k < threads; ++k) buffers.push_back(thread_buffer(k, c.chunk_blocks * c.block_out));
  const std::uint64_t chunk_bytes = std::uint64_t{c.chunk_blocks} * c.block_out;
  parallel_chunks(threads, c.chunks - first, [&](unsigned k, std::uint64_t n) {
    const std::size_t bytes = decode_chunk(s, c, first + n, buffers[k]);
    sink.write_at(n * chunk_bytes, buffers[k], bytes);
    if (s.progress) s.progress->add(bytes / c.block_out * s.format->block_bytes);
  });
  sink.advance((c.blocks - first * c.chunk_blocks) * c.block_out);
}

// Decoder threads fill a ring of chunk buffers ahead while this thread writes them out in
// order. Writing is serial anyway, so this overlaps decoding with write() instead of
// starting a parallel region per chunk (whose thread wake-ups cost more than the decode).
void write_pipelined(OutputSink& sink, const DecodedStream& s, const Chunking& c, std::uint64_t first,
                     unsigned decoders) {
  const std::size_t slots = 2 * decoders;
  std::vector<Buffer> buffers;
  for (std::size_t k = 0; k < slots; ++k) buffers.push_back(new_buffer(c.chunk_blocks * c.block_out));
  std::vector<std::size_t> sizes(slots, 0);
  // filled[k] holds the chunk number + 1 that slot k carries, 0 when the slot is free.
  std::vector<std::atomic<std::uint64_t>> filled(slots);
  std::atomic<bool> stop{false};
  std::exception_ptr decoder_error;
  std::atomic<bool> has_error{false};

  auto decoder = [&](unsigned d) {
    try {
      for (std::uint64_t i = first + d; i < c.chunks && !stop.load(); i += decoders) {
        const std::size_t k = (i - first) % slots;
        while (filled[k].load(std::memory_order_acquire) != 0 && !stop.load()) std::this_thread::yield();
        if (stop.load()) return;
        sizes[k] = decode_chunk(s, c, i, buffers[k].get());
        filled[k].store(i + 1, std::memory_order_release);
      }
    } catch (...) {
      if (!has_error.exchange(true)) decoder_error = std::current_exception();
      stop.store(true);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned d = 0; d < decoders; ++d) threads.emplace_back(decoder, d);
  auto join_all = [&] {
    stop.store(true);
    for (auto& t : threads) t.join();
  };
  try {
    for (std::uint64_t i = first; i < c.chunks; ++i) {
      const std::size_t k = (i - first) % slots;
      while (filled[k].load(std::memory_order_acquire) != i + 1) {
        if (has_error.load()) break;
        std::this_thread::yield();
      }
      if (has_error.load()) break;
      sink.write(buffers[k].get(), sizes[k]);
      if (s.progress) s.progress->add(sizes[k] / c.block_out * s.format->block_bytes);
      filled[k].store(0, std::memory_order_release);
    }
  } catch (...) {
    join_all();
    throw;
  }
  join_all();
  if (decoder_error) std::rethrow_exception(decoder_error);
}

}  // namespace

void write_decoded(OutputSink& sink, const DecodedStream& s) {
  if (s.npy) {
    const std::string header = npy_header(s.dtype, s.shape);
    sink.write(header.data(), header.size());
  }
  const Chunking c = chunking(s);
  sink.reserve(c.blocks * c.block_out);
  const unsigned threads = resolve_threads(s.threads);
  if (threads <= 1 || c.chunks <= kProbeChunks) {
    write_serial(sink, s, c, 0, c.chunks);
    return;
  }
  // The first chunks go out from this thread, timed. With the default threads (0), the others
  // join only when
  // - decoding took at least kThreadsPayOff of the time writing took: the kernel copies one
  //   write at a time into a file or pipe, so more threads can only hide the decoding, and
  //   handing the output between threads has a cost. (Measured here, the output allocated ahead:
  //   f32 into the page cache decodes in 5-20 % of the write time with SIMD.) A pipe whose reader
  //   is slow, or a plain copy, decodes in far less;
  // - at least kMinParallelChunks chunks are left;
  // - the CPUs are not already taken by other runnable threads: there a second thread only waits
  //   for a CPU, and one holding the file's lock when it is preempted holds up the writer
  //   (measured with a busy loop per CPU: 2 threads up to 11 % slower than one). The runnable
  //   count is a snapshot: read before and after the probe, a passing kernel thread is seldom in
  //   both, and a busy machine's threads are.
  // An explicit --threads N always uses N.
  const unsigned others_before = other_runnable_threads();
  const ChunkTimes probe = write_serial(sink, s, c, 0, kProbeChunks);
  const bool pays_off = probe.decode >= probe.write * kThreadsPayOff;
  const unsigned others = std::min(others_before, other_runnable_threads());
  const bool cpus_free = others + 2 <= threads;
  const std::uint64_t rest = c.chunks - kProbeChunks;
  const bool more_threads = s.threads > 0 || (pays_off && cpus_free && rest >= kMinParallelChunks);
  log::debug("write: a chunk took {} us to decode and {} us to write; {} chunks left; other runnable threads: {}; {}",
             std::chrono::duration_cast<std::chrono::microseconds>(probe.decode).count(),
             std::chrono::duration_cast<std::chrono::microseconds>(probe.write).count(), rest, others,
             more_threads ? std::to_string(threads) + " threads" : "one thread");
  if (!more_threads) {
    write_serial(sink, s, c, kProbeChunks, c.chunks);
    return;
  }
  if (sink.positional())
    write_positional(sink, s, c, kProbeChunks,
                     static_cast<unsigned>(std::min<std::uint64_t>({threads, rest, kMaxDecoders})));
  else
    write_pipelined(sink, s, c, kProbeChunks,
                    static_cast<unsigned>(std::min<std::uint64_t>({threads - 1, rest, kMaxDecoders})));
}

}  // namespace onnxq::cli

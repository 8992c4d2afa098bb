#include "onnxq/stream/tensor_stream.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "stream/thread_choice.hpp"

namespace onnxq {

void StreamSink::write_at(std::uint64_t, const void*, std::size_t) {
  fail(ErrorKind::Unsupported, "internal: this output takes no positional writes");
}
void StreamSink::advance(std::uint64_t) {
  fail(ErrorKind::Unsupported, "internal: this output takes no positional writes");
}

namespace {

// More decoders than this cannot outrun write(); the cap also bounds the buffers (one each).
constexpr unsigned kMaxDecoders = 8;
// Chunks written by the calling thread alone, timed, before more threads may join: the first
// faults its buffer in, the others' times decide (the least of each kind: a chunk takes tens of
// microseconds, so that one interrupt or preemption would otherwise decide).
constexpr std::uint64_t kProbeChunks = 4;
struct Chunking {
  std::uint64_t blocks;      // in the source
  std::size_t block_out;     // output bytes per block
  std::size_t chunk_blocks;  // blocks per chunk
  std::uint64_t chunks;
};

Chunking chunking(const BlockSource& source, DType dtype) {
  const BlockFormat& format = source.format();
  Chunking c{};
  c.blocks = source.block_count();
  c.block_out = std::size_t{format.block_elements} * (dtype_info(dtype).bits / 8);
  c.chunk_blocks = std::max<std::uint64_t>(1, kChunkElements / format.block_elements);
  c.chunks = (c.blocks + c.chunk_blocks - 1) / c.chunk_blocks;
  return c;
}

}  // namespace

struct StreamBuffers::Pool {
  // A chunk buffer: never zeroed (the decoder overwrites it), uint64 storage aligned for every
  // type, and the scratch its source reads into when it hands out no view.
  struct Chunk {
    std::unique_ptr<std::uint64_t[]> out;
    std::size_t size = 0;
    std::vector<std::byte> scratch;
  };
  std::vector<std::unique_ptr<Chunk>> chunks;  // by thread index
  std::atomic<bool> in_use{false};

  // Thread `index`'s buffer, at least `bytes` long. Called by one thread, before the others start.
  Chunk& buffer(unsigned index, std::size_t bytes) {
    if (chunks.size() <= index) chunks.resize(index + 1);
    if (!chunks[index]) chunks[index] = std::make_unique<Chunk>();
    Chunk& b = *chunks[index];
    if (b.size < bytes) {
      b.out.reset(new std::uint64_t[(bytes + 7) / 8]);
      b.size = bytes;
    }
    return b;
  }
};

StreamBuffers::StreamBuffers() : pool_(std::make_unique<Pool>()) {}
StreamBuffers::~StreamBuffers() = default;

namespace {

using ChunkBuffer = StreamBuffers::Pool::Chunk;

// The buffers of one call: the caller's, claimed for the call, or its own.
class CallBuffers {
 public:
  explicit CallBuffers(StreamBuffers* shared) : pool_(shared ? shared->pool() : own_.emplace().pool()) {
    if (pool_.in_use.exchange(true))
      invalid_argument("internal: two write_decoded() calls at once with the same StreamBuffers");
  }
  ~CallBuffers() { pool_.in_use = false; }
  CallBuffers(const CallBuffers&) = delete;
  CallBuffers& operator=(const CallBuffers&) = delete;
  ChunkBuffer& buffer(unsigned index, std::size_t bytes) { return pool_.buffer(index, bytes); }

 private:
  std::optional<StreamBuffers> own_;  // when the caller passed none
  StreamBuffers::Pool& pool_;
};

class Stream {
 public:
  Stream(StreamSink& sink, const BlockSource& source, DType dtype, const StreamOptions& options)
      : sink_(sink),
        source_(source),
        dtype_(dtype),
        options_(options),
        c_(chunking(source, dtype)),
        buffers_(options.buffers) {}

  StreamPlan run();

 private:
  using Clock = std::chrono::steady_clock;
  // Reads chunk `index` and decodes it into `buffer` with one thread; returns its output bytes.
  // `times`, when given, gets the read and the decoding apart, for the thread choice and the log.
  std::size_t decode_chunk(std::uint64_t index, ChunkBuffer& buffer, ChunkTimes* times = nullptr) const {
    const std::uint64_t first = index * c_.chunk_blocks;
    const std::uint64_t n = std::min<std::uint64_t>(c_.chunk_blocks, c_.blocks - first);
    const auto t0 = times ? Clock::now() : Clock::time_point{};
    const std::span<const std::byte> blocks = source_.blocks(first, n, buffer.scratch);
    const auto t1 = times ? Clock::now() : Clock::time_point{};
    decode_blocks(source_.format(), blocks, 0, n, dtype_, buffer.out.get(), 1);
    source_.check();  // the input shrank: the chunk holds zeros read past its end
    if (times) {
      times->read = t1 - t0;
      times->decode = Clock::now() - t1;
    }
    return n * c_.block_out;
  }
  void progress(std::size_t out_bytes) const {
    if (options_.on_progress) options_.on_progress(out_bytes / c_.block_out * source_.format().block_bytes);
  }
  std::size_t chunk_bytes() const { return c_.chunk_blocks * c_.block_out; }

  ChunkTimes write_serial(std::uint64_t first, std::uint64_t end);
  void write_positional(std::uint64_t first, unsigned threads);
  void write_in_order(std::uint64_t first, unsigned threads);

  StreamSink& sink_;
  const BlockSource& source_;
  DType dtype_;
  const StreamOptions& options_;
  Chunking c_;
  CallBuffers buffers_;
};

// Chunks [first, end) on this thread; returns the least time of each kind over all but the first
// (whose buffer's pages were new).
ChunkTimes Stream::write_serial(std::uint64_t first, std::uint64_t end) {
  ChunkBuffer& buffer = buffers_.buffer(0, chunk_bytes());
  ChunkTimes least{Clock::duration::max(), Clock::duration::max(), Clock::duration::max()};
  for (std::uint64_t i = first; i < end; ++i) {
    ChunkTimes one;
    const std::size_t bytes = decode_chunk(i, buffer, &one);
    const auto t = Clock::now();
    sink_.write(buffer.out.get(), bytes);
    one.write = Clock::now() - t;
    progress(bytes);
    if (i > first) {
      least.read = std::min(least.read, one.read);
      least.decode = std::min(least.decode, one.decode);
      least.write = std::min(least.write, one.write);
    }
  }
  return least;
}

// A regular file: every thread takes the next chunk, decodes it into its own buffer and writes
// it at its final offset. The kernel copies one write at a time into the file (the inode lock),
// while the other threads decode theirs, so the copying never waits for decoding and each copy
// reads a buffer that is still in its own core's cache. A thread that the scheduler holds up
// delays only its current chunk: the others go on taking chunks.
void Stream::write_positional(std::uint64_t first, unsigned threads) {
  std::vector<ChunkBuffer*> buffers;
  for (unsigned k = 0; k < threads; ++k) buffers.push_back(&buffers_.buffer(k, chunk_bytes()));
  parallel_chunks(threads, c_.chunks - first, [&](unsigned k, std::uint64_t n) {
    const std::size_t bytes = decode_chunk(first + n, *buffers[k]);
    sink_.write_at(n * chunk_bytes(), buffers[k]->out.get(), bytes);
    progress(bytes);
  });
  sink_.advance((c_.blocks - first * c_.chunk_blocks) * c_.block_out);
}

// A pipe (or any sink written in order): every thread takes the next chunk and decodes it into
// its own buffer, then waits for its turn to write it, so decoding overlaps write() while the
// output keeps its order. A thread waiting for its turn sleeps.
void Stream::write_in_order(std::uint64_t first, unsigned threads) {
  std::vector<ChunkBuffer*> buffers;
  std::vector<std::size_t> sizes(threads, 0);
  for (unsigned k = 0; k < threads; ++k) buffers.push_back(&buffers_.buffer(k, chunk_bytes()));
  parallel_chunks_ordered(
      threads, c_.chunks - first, [&](unsigned k, std::uint64_t n) { sizes[k] = decode_chunk(first + n, *buffers[k]); },
      [&](unsigned k, std::uint64_t) {
        sink_.write(buffers[k]->out.get(), sizes[k]);
        progress(sizes[k]);
      });
}

StreamPlan Stream::run() {
  StreamPlan plan;
  if (!can_decode_to(source_.format(), dtype_)) decode_blocks(source_.format(), {}, 0, 0, dtype_, nullptr, 1);
  sink_.reserve(c_.blocks * c_.block_out);
  const unsigned threads = resolve_threads(options_.threads);
  if (threads <= 1 || c_.chunks <= kProbeChunks) {
    write_serial(0, c_.chunks);
    return plan;
  }
  // The first chunks go out from this thread, timed; with the default threads (0), the others
  // join only where thread_choice.cpp's rule says they pay off. The count of runnable threads is
  // read before and after the probe, as a passing kernel thread is seldom in both snapshots. An
  // explicit thread count always uses that many.
  const unsigned others_before = other_runnable_threads();
  const ChunkTimes probe = write_serial(0, kProbeChunks);
  const unsigned others = std::min(others_before, other_runnable_threads());
  const std::uint64_t rest = c_.chunks - kProbeChunks;
  const bool more_threads =
      options_.threads > 0 || more_threads_pay_off({probe, rest * chunk_bytes(), others, threads});
  plan.probed = true;
  plan.probe_read = std::chrono::duration_cast<std::chrono::microseconds>(probe.read);
  plan.probe_decode = std::chrono::duration_cast<std::chrono::microseconds>(probe.decode);
  plan.probe_write = std::chrono::duration_cast<std::chrono::microseconds>(probe.write);
  plan.chunks_left = rest;
  plan.other_runnable_threads = others;
  if (!more_threads) {
    write_serial(kProbeChunks, c_.chunks);
    return plan;
  }
  plan.threads = static_cast<unsigned>(std::min<std::uint64_t>({threads, rest, kMaxDecoders}));
  if (sink_.positional())
    write_positional(kProbeChunks, plan.threads);
  else
    write_in_order(kProbeChunks, plan.threads);
  return plan;
}

}  // namespace

std::uint64_t decoded_bytes(const BlockSource& source, DType dtype) {
  const auto bytes =
      checked_mul(source.block_count(), std::uint64_t{source.format().block_elements} * (dtype_info(dtype).bits / 8));
  if (!bytes) invalid_argument("the decoded size of a " + std::string(source.format().gguf_name) + " source overflows");
  return *bytes;
}

StreamPlan write_decoded(StreamSink& sink, const BlockSource& source, DType dtype, const StreamOptions& options) {
  return Stream(sink, source, dtype, options).run();
}

void write_decoded(StreamSink& sink, std::span<const BlockSource* const> sources, DType dtype,
                   const StreamOptions& options) {
  StreamBuffers own;  // one set for all the sources, when the caller gave none
  StreamOptions each = options;
  if (!each.buffers) each.buffers = &own;
  for (const BlockSource* source : sources) write_decoded(sink, *source, dtype, each);
}

void decode_into(const BlockSource& source, DType dtype, std::span<std::byte> out, const StreamOptions& options) {
  const std::uint64_t want = decoded_bytes(source, dtype);
  if (out.size() != want)
    invalid_argument("decoding " + std::to_string(source.block_count()) + " " + std::string(source.format().gguf_name) +
                     " blocks as " + std::string(dtype_info(dtype).onnx_name) + " needs " + std::to_string(want) +
                     " bytes, the buffer has " + std::to_string(out.size()));
  decode_blocks(source, 0, source.block_count(), dtype, out.data(), options.threads);
  if (options.on_progress) options.on_progress(source.block_count() * source.format().block_bytes);
}

}  // namespace onnxq

// Two write_decoded() calls at once (Python threads with the GIL released, shards converted side
// by side) must not share chunk buffers: each gets exactly the bytes a decode on its own gives.
// A caller's StreamBuffers serves its calls in turn, and refuses a second call at once.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/stream/tensor_stream.hpp"

namespace onnxq {
namespace {

// An in-order sink that waits a little before copying each chunk, so that a call sharing its
// buffer with another has the time to overwrite (or reallocate) it under this one.
class SlowMemorySink final : public StreamSink {
 public:
  void write(const void* data, std::size_t size) override {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + size);
  }
  std::vector<std::uint8_t> bytes;
};

struct Case {
  const BlockFormat* format;
  bool big_endian;  // the source then fills its scratch, which a shared buffer would share too
  DType dtype;
  std::vector<std::byte> packed;
};

// `chunks` stream chunks of random blocks.
Case make_case(const char* format_name, bool big_endian, DType dtype, std::uint64_t chunks, std::uint32_t seed) {
  Case c{find_format(format_name), big_endian, dtype, {}};
  const std::uint64_t blocks = chunks * kChunkElements / c.format->block_elements;
  c.packed.resize(blocks * c.format->block_bytes);
  for (auto& b : c.packed) b = static_cast<std::byte>((seed = seed * 1103515245u + 12345u) >> 24);
  return c;
}

std::vector<std::uint8_t> decode_alone(const Case& c) {
  const PackedBytes source(*c.format, c.packed, c.big_endian);
  std::vector<std::uint8_t> out(decoded_bytes(source, c.dtype));
  decode_into(source, c.dtype, std::as_writable_bytes(std::span(out)), {1, {}});
  return out;
}

TEST(ConcurrentStream, TwoCallsAtOnceEachGetTheirOwnBytes) {
  // Different formats and output sizes (f32 and f64 chunks), so their buffers grow differently.
  const Case a = make_case("gguf:q4_0", false, DType::Float, 12, 1);
  const Case b = make_case("gguf:q8_0", true, DType::Double, 9, 2);
  const std::vector<std::uint8_t> want_a = decode_alone(a), want_b = decode_alone(b);
  for (int round = 0; round < 4; ++round) {
    SlowMemorySink sink_a, sink_b;
    auto run = [](const Case& c, SlowMemorySink& sink) {
      write_decoded(sink, PackedBytes(*c.format, c.packed, c.big_endian), c.dtype, {1, {}});
    };
    std::thread ta(run, std::cref(a), std::ref(sink_a)), tb(run, std::cref(b), std::ref(sink_b));
    ta.join();
    tb.join();
    ASSERT_TRUE(sink_a.bytes == want_a) << "round " << round << ": the q4_0 call's bytes";
    ASSERT_TRUE(sink_b.bytes == want_b) << "round " << round << ": the q8_0 call's bytes";
  }
}

// A sink that starts a second write_decoded() with the same buffers while the first is running.
class ReentrantSink final : public StreamSink {
 public:
  ReentrantSink(const Case& c, StreamBuffers& buffers) : case_(c), buffers_(buffers) {}
  void write(const void*, std::size_t) override {
    SlowMemorySink inner;
    write_decoded(inner, PackedBytes(*case_.format, case_.packed, case_.big_endian), case_.dtype, {1, {}, &buffers_});
  }

 private:
  const Case& case_;
  StreamBuffers& buffers_;
};

TEST(ConcurrentStream, OneSetOfBuffersServesCallsInTurnAndRefusesTwoAtOnce) {
  const Case a = make_case("gguf:q4_0", false, DType::Float, 5, 3);
  const Case b = make_case("gguf:q8_0", true, DType::Double, 4, 4);
  StreamBuffers buffers;
  // In turn, on two threads each, the buffers growing (f64 after f32) and then reused.
  for (const Case* c : {&a, &b, &a}) {
    SlowMemorySink sink;
    write_decoded(sink, PackedBytes(*c->format, c->packed, c->big_endian), c->dtype, {2, {}, &buffers});
    EXPECT_TRUE(sink.bytes == decode_alone(*c)) << c->format->gguf_name;
  }
  ReentrantSink reentrant(a, buffers);
  try {
    write_decoded(reentrant, PackedBytes(*a.format, a.packed), a.dtype, {1, {}, &buffers});
    ADD_FAILURE() << "a second call with the same buffers while the first runs must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the same StreamBuffers"), std::string::npos) << e.what();
  }
  SlowMemorySink after;  // the failed calls gave the buffers back
  write_decoded(after, PackedBytes(*b.format, b.packed, b.big_endian), b.dtype, {1, {}, &buffers});
  EXPECT_TRUE(after.bytes == decode_alone(b));
}

}  // namespace
}  // namespace onnxq

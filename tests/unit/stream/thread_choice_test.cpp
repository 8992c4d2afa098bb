// The streaming decoder's rule for adding threads on the default count
// (lib/src/stream/thread_choice.cpp): only the work that threads can share, reading and
// decoding, may pay for them; writing is one copy at a time whatever the thread count.
#include "stream/thread_choice.hpp"

#include <gtest/gtest.h>

namespace onnxq {
namespace {

using us = std::chrono::microseconds;

ThreadChoiceInput input(int read_us, int decode_us, int write_us) {
  ThreadChoiceInput in;
  in.probe = {us(read_us), us(decode_us), us(write_us)};
  in.bytes_left = std::uint64_t{256} << 20;
  in.other_runnable = 0;
  in.threads = 2;
  return in;
}

TEST(ThreadChoice, OneThreadWhereWritingOutweighsReadingAndDecoding) {
  // A quantized tensor into the page cache with SIMD kernels, as measured on a 2-vCPU VM: the
  // decoding is a tenth of the write, and two threads ran at 0.86-0.93x of one.
  EXPECT_FALSE(more_threads_pay_off(input(3, 2, 27)));
  EXPECT_FALSE(more_threads_pay_off(input(12, 8, 27)));
}

TEST(ThreadChoice, MoreThreadsWhereReadingAndDecodingTakeAsLongAsWriting) {
  // The scalar IQ kernels: two threads ran at 1.2-1.3x of one.
  EXPECT_TRUE(more_threads_pay_off(input(28, 128, 122)));
  // Reading counts with decoding: reads of the page cache run side by side.
  EXPECT_TRUE(more_threads_pay_off(input(30, 0, 30)));
}

TEST(ThreadChoice, OneThreadOnBusyCpusOrAShortRest) {
  ThreadChoiceInput busy = input(28, 128, 122);
  busy.other_runnable = 1;
  EXPECT_FALSE(more_threads_pay_off(busy));
  busy.threads = 4;  // two CPUs of four taken: two are left
  EXPECT_TRUE(more_threads_pay_off(busy));

  ThreadChoiceInput short_rest = input(28, 128, 122);
  short_rest.bytes_left = std::uint64_t{8} << 20;
  EXPECT_FALSE(more_threads_pay_off(short_rest));
}

}  // namespace
}  // namespace onnxq

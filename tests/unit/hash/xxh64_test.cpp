// onnxq's own XXH64 against libxxhash's over the same bytes: every length up to a few stripes,
// updates split anywhere, seeds, and update_both with the two streams at every pair of offsets
// within a stripe, on every path this CPU runs (the AVX-512 lanes and the scalar loop).
#include "hash/xxh64.hpp"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <random>
#include <string>
#include <vector>

#include "onnxq/decode/isa.hpp"

namespace onnxq {
namespace {

std::vector<std::byte> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> v(n);
  for (std::byte& b : v) b = static_cast<std::byte>(rng());
  return v;
}

std::uint64_t reference(const std::byte* p, std::size_t n, std::uint64_t seed = 0) { return XXH64(p, n, seed); }

class Xxh64Test : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { select_isa(GetParam()); }
  void TearDown() override { select_isa(""); }
};

TEST_P(Xxh64Test, EveryShortLengthAndSeed) {
  const std::vector<std::byte> data = random_bytes(300, 1);
  for (std::uint64_t seed : {0ULL, 1ULL, 0x9E3779B185EBCA87ULL})
    for (std::size_t n = 0; n <= data.size(); ++n) {
      Xxh64 h(seed);
      h.update({data.data(), n});
      ASSERT_EQ(h.digest(), reference(data.data(), n, seed)) << "length " << n << " seed " << seed;
    }
}

TEST_P(Xxh64Test, UpdatesSplitAnywhere) {
  const std::vector<std::byte> data = random_bytes(70000, 2);
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    const std::size_t total = rng() % data.size();
    Xxh64 h;
    for (std::size_t at = 0; at < total;) {
      const std::size_t n = std::min<std::size_t>(total - at, rng() % (round % 2 ? 70 : 9000));
      h.update({data.data() + at, n});
      at += n;
    }
    ASSERT_EQ(h.digest(), reference(data.data(), total)) << "round " << round << ", " << total << " bytes";
  }
}

// The model hash (a) and a tensor's (b) see the same bytes from different starting offsets: a has
// taken `lead_a` bytes before, b `lead_b` other bytes.
TEST_P(Xxh64Test, UpdateBothAtEveryPairOfStripeOffsets) {
  const std::vector<std::byte> shared = random_bytes(5000, 4), lead = random_bytes(64, 5);
  const std::size_t pieces[] = {1, 31, 32, 33, 100, 1000, 3803};
  for (std::size_t lead_a = 0; lead_a < 40; ++lead_a)
    for (std::size_t lead_b = 0; lead_b < 40; lead_b += lead_a % 3 + 1) {
      Xxh64 a, b(7);
      a.update({lead.data(), lead_a});
      b.update({lead.data() + 20, lead_b});
      std::size_t at = 0;
      for (std::size_t k = 0; at < shared.size(); ++k) {
        const std::size_t n = std::min(shared.size() - at, pieces[(k + lead_a) % std::size(pieces)]);
        Xxh64::update_both(a, b, {shared.data() + at, n});
        at += n;
      }
      std::vector<std::byte> whole_a(lead.begin(), lead.begin() + lead_a),
          whole_b(lead.begin() + 20, lead.begin() + 20 + lead_b);
      whole_a.insert(whole_a.end(), shared.begin(), shared.end());
      whole_b.insert(whole_b.end(), shared.begin(), shared.end());
      ASSERT_EQ(a.digest(), reference(whole_a.data(), whole_a.size())) << "leads " << lead_a << ", " << lead_b;
      ASSERT_EQ(b.digest(), reference(whole_b.data(), whole_b.size(), 7)) << "leads " << lead_a << ", " << lead_b;
    }
}

TEST_P(Xxh64Test, DigestLeavesTheStateAsItIs) {
  const std::vector<std::byte> data = random_bytes(100, 6);
  Xxh64 h;
  h.update({data.data(), 40});
  EXPECT_EQ(h.digest(), reference(data.data(), 40));
  h.update({data.data() + 40, 60});
  EXPECT_EQ(h.digest(), reference(data.data(), 100));
}

std::vector<std::string> paths() {
  std::vector<std::string> all = supported_isas();
  std::vector<std::string> chosen = {"scalar"};
  if (all.back() != "scalar") chosen.push_back(all.back());
  return chosen;
}

INSTANTIATE_TEST_SUITE_P(Paths, Xxh64Test, ::testing::ValuesIn(paths()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace onnxq

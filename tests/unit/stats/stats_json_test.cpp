// tensor_stats_json: the rows `onnxq stats --json` prints, one schema for every front end.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "onnxq/stats/value_stats.hpp"

namespace onnxq {
namespace {

TEST(StatsJson, OneObjectPerTensorWithItsFiguresInOrder) {
  NamedTensorStats q;
  q.name = "blk.0.w";
  q.type = "Q4_0";
  q.shape = {2, 32};
  q.block_format = true;
  const std::vector<float> values = {1.0f, -3.0f, 0.0f, std::numeric_limits<float>::infinity()};
  q.stats.values.add(values);
  q.stats.blocks = 2;
  q.stats.scales.subnormal = 1;
  NamedTensorStats empty;  // no finite value: min, max, mean and std are null
  empty.name = "e";
  empty.type = "F32";
  const std::vector<float> nan = {std::nanf("")};
  empty.stats.values.add(nan);

  const auto j = nlohmann::ordered_json::parse(tensor_stats_json({q, empty}));
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["name"], "blk.0.w");
  EXPECT_EQ(j[0]["type"], "Q4_0");
  EXPECT_EQ(j[0]["shape"], nlohmann::ordered_json::array({2, 32}));
  EXPECT_EQ(j[0]["elements"], 4u);
  EXPECT_EQ(j[0]["min"], -3.0);
  EXPECT_EQ(j[0]["max"], 1.0);
  EXPECT_DOUBLE_EQ(j[0]["mean"].get<double>(), -2.0 / 3);
  EXPECT_DOUBLE_EQ(j[0]["std"].get<double>(), q.stats.values.stddev());
  EXPECT_EQ(j[0]["zeros"], 1u);
  EXPECT_EQ(j[0]["inf"], 1u);
  EXPECT_EQ(j[0]["blocks"], 2u);
  EXPECT_EQ(j[0]["scale_subnormal_blocks"], 1u);
  EXPECT_EQ(j[0]["scale_nan_blocks"], 0u);
  EXPECT_EQ(j[0].begin().key(), "name");
  EXPECT_EQ(std::prev(j[0].end()).key(), "scale_subnormal_blocks");
  EXPECT_TRUE(j[1]["min"].is_null());
  EXPECT_TRUE(j[1]["std"].is_null());
  EXPECT_EQ(j[1]["nan"], 1u);
}

TEST(StatsJson, NamesThatAreNotUtf8AreReplacedNotThrownOn) {
  NamedTensorStats bad;
  bad.name = "a\xff";
  bad.type = "F32";
  const auto j = nlohmann::ordered_json::parse(tensor_stats_json({bad}));
  EXPECT_EQ(j[0]["name"], "a\xEF\xBF\xBD");
}

}  // namespace
}  // namespace onnxq

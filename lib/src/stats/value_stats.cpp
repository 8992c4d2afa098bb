#include "onnxq/stats/value_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxq {

void ValueStats::add(std::span<const float> values) {
  ValueStats chunk;
  chunk.count = values.size();
  double sum = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const float v : values) {
    if (std::isnan(v)) {
      ++chunk.nan;
    } else if (std::isinf(v)) {
      ++chunk.inf;
    } else {
      ++chunk.finite;
      chunk.zeros += v == 0.0f;
      sum += v;
      lo = std::min<double>(lo, v);
      hi = std::max<double>(hi, v);
    }
  }
  if (chunk.finite) {
    chunk.mean = sum / static_cast<double>(chunk.finite);
    double m2 = 0;
    for (const float v : values)
      if (std::isfinite(v)) {
        const double d = v - chunk.mean;
        m2 += d * d;
      }
    chunk.m2 = m2;
    chunk.min = lo;
    chunk.max = hi;
  }
  merge(chunk);
}

void ValueStats::merge(const ValueStats& o) {
  if (o.finite) {
    if (!finite) {
      min = o.min;
      max = o.max;
      mean = o.mean;
      m2 = o.m2;
    } else {
      const double n_a = static_cast<double>(finite), n_b = static_cast<double>(o.finite), n = n_a + n_b;
      const double delta = o.mean - mean;
      mean += delta * (n_b / n);
      m2 += o.m2 + delta * delta * (n_a * n_b / n);
      min = std::min(min, o.min);
      max = std::max(max, o.max);
    }
  }
  count += o.count;
  finite += o.finite;
  zeros += o.zeros;
  nan += o.nan;
  inf += o.inf;
}

double ValueStats::stddev() const { return std::sqrt(variance()); }

double DifferenceStats::rms() const {
  const std::uint64_t n = count - nonfinite;
  return n ? std::sqrt(sum_sq / static_cast<double>(n)) : 0.0;
}

double DifferenceStats::normalized_mse() const {
  if (sum_sq_b > 0) return sum_sq / sum_sq_b;
  return sum_sq > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace onnxq

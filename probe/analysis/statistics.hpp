#pragma once
// Order statistics and summaries over latency samples.
#include <cstdint>
#include <span>
#include <vector>

namespace gpu_topology::analysis {

double mean(std::span<const double> values);
// Linear-interpolated quantile, q in [0, 1]. Empty input throws.
double quantile(std::span<const double> values, double q);
inline double median(std::span<const double> values) { return quantile(values, 0.5); }

struct LatencySummary {
    double p05 = 0, p50 = 0, mean = 0, p95 = 0;
    std::uint64_t samples = 0;
};
LatencySummary summarize(std::span<const double> values);

}  // namespace gpu_topology::analysis

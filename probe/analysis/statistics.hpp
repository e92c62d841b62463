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
// For many quantiles of one sample: its values in ascending order once (quantile() sorts a copy
// each time; empty input throws), then quantile_of_ascending() of them.
std::vector<double> ascending(std::span<const double> values);
double quantile_of_ascending(std::span<const double> sorted, double q);
// The standard error of the median of `values`, from their interquartile range: 1.2533 sigma /
// sqrt(n), sigma = IQR / 1.349 (for normal samples as n grows; for uniform ones 7 % low; too low
// where the median falls between two clusters of values). 0 for samples that all fall on one
// value, as integer cycle counts of a steady load do.
double median_standard_error(std::span<const double> values);

struct LatencySummary {
    double p05 = 0, p50 = 0, mean = 0, p95 = 0;
    std::uint64_t samples = 0;
};
LatencySummary summarize(std::span<const double> values);

}  // namespace gpu_topology::analysis

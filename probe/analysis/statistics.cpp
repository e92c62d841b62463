#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gpu_topology::analysis {

double mean(std::span<const double> values) {
    if (values.empty()) throw std::invalid_argument("mean of no values");
    return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
}

std::vector<double> ascending(std::span<const double> values) {
    if (values.empty()) throw std::invalid_argument("quantile of no values");
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

double quantile_of_ascending(std::span<const double> sorted, double q) {
    if (sorted.empty()) throw std::invalid_argument("quantile of no values");
    if (q < 0 || q > 1) throw std::invalid_argument("quantile outside [0, 1]");
    const double position = q * double(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(position);
    const auto above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - double(below);
    return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double quantile(std::span<const double> values, double q) {
    if (values.empty()) throw std::invalid_argument("quantile of no values");
    if (q < 0 || q > 1) throw std::invalid_argument("quantile outside [0, 1]");
    return quantile_of_ascending(ascending(values), q);
}

double median_standard_error(std::span<const double> values) {
    const auto sorted = ascending(values);
    const double iqr = quantile_of_ascending(sorted, 0.75) - quantile_of_ascending(sorted, 0.25);
    return 1.2533 * (iqr / 1.349) / std::sqrt(double(values.size()));
}

LatencySummary summarize(std::span<const double> values) {
    const auto sorted = ascending(values);
    LatencySummary s;
    s.p05 = quantile_of_ascending(sorted, 0.05);
    s.p50 = quantile_of_ascending(sorted, 0.5);
    s.mean = mean(values);
    s.p95 = quantile_of_ascending(sorted, 0.95);
    s.samples = values.size();
    return s;
}

}  // namespace gpu_topology::analysis

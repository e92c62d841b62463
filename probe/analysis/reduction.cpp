#include "reduction.hpp"

#include "statistics.hpp"

#include <cmath>
#include <stdexcept>

namespace gpu_topology::analysis {

namespace {
// Both samples in ascending order: each of the 200 quantiles reads them (sorting both for each
// quantile was a sixth of a simulated probe's time, and the reference sorted again for every point).
double wasserstein2_of_ascending(std::span<const double> a, std::span<const double> b) {
    constexpr int kQuantiles = 200;
    double sum = 0;
    for (int k = 0; k < kQuantiles; ++k) {
        const double q = (k + 0.5) / kQuantiles;
        const double d = quantile_of_ascending(a, q) - quantile_of_ascending(b, q);
        sum += d * d;
    }
    return std::sqrt(sum / kQuantiles);
}
}  // namespace

double wasserstein2(std::span<const double> a, std::span<const double> b) {
    return wasserstein2_of_ascending(ascending(a), ascending(b));
}

std::vector<double> geometric_mapping(const Sweep& sweep, std::size_t reference) {
    if (reference >= sweep.points.size()) throw std::invalid_argument("reference point outside the sweep");
    const std::vector<double> sorted_reference = ascending(sweep.points[reference].cycles);
    std::vector<double> series;
    series.reserve(sweep.points.size());
    for (const auto& point : sweep.points)
        series.push_back(wasserstein2_of_ascending(ascending(point.cycles), sorted_reference));
    return series;
}

}  // namespace gpu_topology::analysis

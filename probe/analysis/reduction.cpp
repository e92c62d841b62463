#include "reduction.hpp"

#include "statistics.hpp"

#include <cmath>
#include <stdexcept>

namespace gpu_topology::analysis {

double wasserstein2(std::span<const double> a, std::span<const double> b) {
    constexpr int kQuantiles = 200;
    double sum = 0;
    for (int k = 0; k < kQuantiles; ++k) {
        const double q = (k + 0.5) / kQuantiles;
        const double d = quantile(a, q) - quantile(b, q);
        sum += d * d;
    }
    return std::sqrt(sum / kQuantiles);
}

std::vector<double> geometric_mapping(const Sweep& sweep, std::size_t reference) {
    if (reference >= sweep.points.size()) throw std::invalid_argument("reference point outside the sweep");
    std::vector<double> series;
    series.reserve(sweep.points.size());
    for (const auto& point : sweep.points)
        series.push_back(wasserstein2(point.cycles, sweep.points[reference].cycles));
    return series;
}

}  // namespace gpu_topology::analysis

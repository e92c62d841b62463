#include "change_point.hpp"

#include "reduction.hpp"

#include <algorithm>
#include <limits>

namespace gpu_topology::analysis {
namespace {

double squared_deviation(std::span<const double> v) {
    if (v.empty()) return 0;
    double mean = 0;
    for (double x : v) mean += x;
    mean /= double(v.size());
    double sum = 0;
    for (double x : v) sum += (x - mean) * (x - mean);
    return sum;
}

void segment(const Sweep& sweep, const std::vector<double>& series, std::size_t begin, std::size_t end,
             const ChangePointOptions& options, std::vector<ChangePoint>& found) {
    if (end - begin < 2 * options.min_segment) return;
    const auto split = single_change_point(std::span(series).subspan(begin, end - begin), options.min_segment);
    if (!split) return;
    const std::size_t at = begin + split->index;
    const std::size_t left = at - std::min(options.test_window, at - begin);
    const std::size_t right = std::min(end, at + options.test_window);
    const auto before = pool(sweep, left, at);
    const auto after = pool(sweep, at, right);
    const auto test = ks_slower(before, after, options.tolerance.shift_for(before));
    if (test.p_value >= options.alpha || test.statistic < options.min_effect) return;
    found.push_back({at, sweep.points[at - 1].footprint_bytes, sweep.points[at].footprint_bytes, test});
    segment(sweep, series, begin, at, options, found);
    segment(sweep, series, at, end, options, found);
}

}  // namespace

std::optional<SplitEstimate> single_change_point(std::span<const double> series, std::size_t min_segment) {
    min_segment = std::max<std::size_t>(min_segment, 1);
    if (series.size() < 2 * min_segment) return std::nullopt;
    const double whole = squared_deviation(series);
    SplitEstimate best{0, -std::numeric_limits<double>::infinity()};
    for (std::size_t k = min_segment; k + min_segment <= series.size(); ++k) {
        const double cost = squared_deviation(series.first(k)) + squared_deviation(series.subspan(k));
        if (whole - cost > best.cost_reduction) best = {k, whole - cost};
    }
    if (best.cost_reduction <= 0) return std::nullopt;
    return best;
}

std::vector<double> pool(const Sweep& sweep, std::size_t first, std::size_t last) {
    std::vector<double> all;
    for (std::size_t i = first; i < last && i < sweep.points.size(); ++i)
        all.insert(all.end(), sweep.points[i].cycles.begin(), sweep.points[i].cycles.end());
    return all;
}

std::vector<ChangePoint> detect_change_points(const Sweep& sweep, const ChangePointOptions& options) {
    std::vector<ChangePoint> found;
    if (sweep.points.size() < 2) return found;
    const auto series = geometric_mapping(sweep, 0);
    segment(sweep, series, 0, sweep.points.size(), options, found);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    return found;
}

}  // namespace gpu_topology::analysis

#include "ks_test.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gpu_topology::analysis {

namespace {

// D and p of the one-sided test on a sorted reference `r` and a candidate `c` sorted and moved
// down by the shift.
KsResult ks_of_sorted(std::span<const double> r, std::span<const double> c) {
    const double nr = double(r.size()), nc = double(c.size());
    std::size_t i = 0, j = 0;
    double d = 0;
    while (i < r.size()) {
        const double v = r[i];
        while (i < r.size() && r[i] <= v) ++i;
        while (j < c.size() && c[j] <= v) ++j;
        d = std::max(d, double(i) / nr - double(j) / nc);
    }
    const double ne = nr * nc / (nr + nc);
    return {d, std::clamp(std::exp(-2.0 * ne * d * d), 0.0, 1.0)};
}

std::vector<double> shifted_ascending(std::span<const double> candidate, double shift) {
    std::vector<double> c(candidate.begin(), candidate.end());
    std::sort(c.begin(), c.end());
    for (auto& x : c) x -= shift;  // F_cand(x + shift) == CDF of (candidate - shift) at x
    return c;
}

}  // namespace

KsResult ks_slower(std::span<const double> reference, std::span<const double> candidate, double shift) {
    if (reference.empty() || candidate.empty()) throw std::invalid_argument("KS test needs two non-empty samples");
    std::vector<double> r(reference.begin(), reference.end());
    std::sort(r.begin(), r.end());
    return ks_of_sorted(r, shifted_ascending(candidate, shift));
}

KsReference::KsReference(std::span<const double> values, const Tolerance& tolerance)
    : sorted(values.empty() ? throw std::invalid_argument("KS test needs two non-empty samples") : ascending(values)),
      shift(tolerance.shift_at(quantile_of_ascending(sorted, 0.5))) {}

KsResult ks_slower(const KsReference& reference, std::span<const double> candidate) {
    if (candidate.empty()) throw std::invalid_argument("KS test needs two non-empty samples");
    return ks_of_sorted(reference.sorted, shifted_ascending(candidate, reference.shift));
}

double Tolerance::shift_for(std::span<const double> reference) const { return shift_at(median(reference)); }

double Tolerance::shift_at(double reference_median) const { return std::max(fraction * reference_median, floor_cycles); }

}  // namespace gpu_topology::analysis

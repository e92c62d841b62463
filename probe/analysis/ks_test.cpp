#include "ks_test.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gpu_topology::analysis {

double kolmogorov_survival(double lambda) {
    if (lambda < 1e-3) return 1.0;
    // Q(l) = 2 * sum_{k>=1} (-1)^(k-1) exp(-2 k^2 l^2); converges fast for l > 0.3.
    if (lambda < 0.3) return 1.0;
    double sum = 0, sign = 1;
    for (int k = 1; k <= 100; ++k) {
        const double term = std::exp(-2.0 * k * k * lambda * lambda);
        sum += sign * term;
        if (term < 1e-16) break;
        sign = -sign;
    }
    return std::clamp(2.0 * sum, 0.0, 1.0);
}

KsResult ks_two_sample(std::span<const double> a, std::span<const double> b) {
    if (a.empty() || b.empty()) throw std::invalid_argument("KS test needs two non-empty samples");
    std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    const double nx = double(x.size()), ny = double(y.size());
    std::size_t i = 0, j = 0;
    double d = 0;
    while (i < x.size() && j < y.size()) {
        const double v = std::min(x[i], y[j]);
        while (i < x.size() && x[i] <= v) ++i;  // ties advance together
        while (j < y.size() && y[j] <= v) ++j;
        d = std::max(d, std::abs(double(i) / nx - double(j) / ny));
    }
    const double n = std::sqrt(nx * ny / (nx + ny));
    return {d, kolmogorov_survival((n + 0.12 + 0.11 / n) * d)};
}

KsResult ks_slower(std::span<const double> reference, std::span<const double> candidate, double shift) {
    if (reference.empty() || candidate.empty()) throw std::invalid_argument("KS test needs two non-empty samples");
    std::vector<double> r(reference.begin(), reference.end()), c(candidate.begin(), candidate.end());
    std::sort(r.begin(), r.end());
    std::sort(c.begin(), c.end());
    for (auto& x : c) x -= shift;  // F_cand(x + shift) == CDF of (candidate - shift) at x
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

double Tolerance::shift_for(std::span<const double> reference) const {
    return std::max(fraction * median(reference), floor_cycles);
}

}  // namespace gpu_topology::analysis

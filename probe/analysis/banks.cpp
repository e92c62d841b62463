#include "banks.hpp"

#include <algorithm>
#include <set>

namespace gpu_topology::analysis {
namespace {

// Cost grows by at least this share (plus a quarter cycle) when the ways double.
constexpr double kGrowth = 0.3;

bool grew(double from, double to) { return to > from * (1 + kGrowth) + 0.25; }

struct Slope {
    double slope = 0, r2 = 0;
};

Slope fit(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = double(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx == 0 || syy == 0) return {};
    const double slope = sxy / sxx;
    return {slope, slope * sxy / syy};
}

}  // namespace

std::uint32_t conflict_ways(std::uint32_t stride_bytes, std::uint32_t banks, std::uint32_t bank_bytes) {
    std::vector<std::uint32_t> offsets;
    for (std::uint32_t lane = 0; lane < 32; ++lane) offsets.push_back(lane * stride_bytes);
    return conflict_ways(offsets, banks, bank_bytes);
}

std::uint32_t conflict_ways(const std::vector<std::uint32_t>& lane_bytes, std::uint32_t banks, std::uint32_t bank_bytes) {
    std::vector<std::set<std::uint64_t>> words(banks);
    for (const std::uint64_t byte : lane_bytes) {
        const std::uint64_t word = byte / bank_bytes;
        words[word % banks].insert(word);
    }
    std::size_t most = 0;
    for (const auto& w : words) most = std::max(most, w.size());
    return static_cast<std::uint32_t>(most);
}

std::vector<std::uint32_t> width_probe_offsets(std::uint32_t row_bytes, std::uint32_t candidate_bytes) {
    std::vector<std::uint32_t> offsets;
    const std::uint32_t words = std::max(1u, candidate_bytes / 4);
    for (std::uint32_t lane = 0; lane < 32; ++lane) offsets.push_back(lane * row_bytes + 4 * (lane % words));
    return offsets;
}

namespace {
bool consecutive_from_4(const std::vector<StridedAccessTiming>& t) {
    if (t.size() < 3 || t.front().stride_bytes != 4) return false;
    for (std::size_t i = 1; i < t.size(); ++i)
        if (t[i].stride_bytes != 2 * t[i - 1].stride_bytes) return false;
    return true;
}
// Index of the row in `t`; t.size() when there is none.
std::size_t row_index(const std::vector<StridedAccessTiming>& t) {
    if (!consecutive_from_4(t)) return t.size();
    std::size_t first_growth = 1;
    while (first_growth < t.size() && !grew(t[0].issue_cycles, t[first_growth].issue_cycles)) ++first_growth;
    if (first_growth == t.size()) return t.size();  // no conflict at any stride
    std::size_t saturated = first_growth;
    while (saturated + 1 < t.size() && grew(t[saturated].issue_cycles, t[saturated + 1].issue_cycles)) ++saturated;
    return saturated + 1 == t.size() ? t.size() : saturated;  // still growing at the largest stride: none
}
}  // namespace

std::optional<std::uint32_t> bank_row_bytes(const std::vector<StridedAccessTiming>& t) {
    const auto row = row_index(t);
    if (row == t.size()) return std::nullopt;
    return t[row].stride_bytes;
}

std::optional<BankGeometry> bank_geometry(const std::vector<StridedAccessTiming>& t,
                                          const std::vector<WidthProbe>& probes) {
    const auto row = row_index(t);
    if (row == t.size()) return std::nullopt;
    const double all_in_one_bank = t[row].issue_cycles;
    BankGeometry g;
    g.bank_bytes = 4;
    for (const auto& probe : probes) {
        if (probe.candidate_bytes != 2 * g.bank_bytes) break;
        // As slow as the row stride (not half as slow): every lane still in one bank.
        if (probe.issue_cycles < all_in_one_bank * 0.75) break;
        g.bank_bytes = probe.candidate_bytes;
    }
    g.banks = t[row].stride_bytes / g.bank_bytes;
    if (g.banks == 0) return std::nullopt;
    std::vector<double> ways, issue, latency;
    for (const auto& point : t) {
        ways.push_back(conflict_ways(point.stride_bytes, g.banks, g.bank_bytes));
        issue.push_back(point.issue_cycles);
        latency.push_back(point.latency_cycles);
    }
    const auto by_issue = fit(ways, issue);
    g.issue_per_way = by_issue.slope;
    g.fit_r2 = by_issue.r2;
    g.latency_per_way = fit(ways, latency).slope;
    // The strides past the row must cost what the row costs.
    const double flat = t.back().issue_cycles / all_in_one_bank;
    g.confidence = std::clamp(by_issue.r2, 0.0, 1.0) * std::clamp(1 - std::abs(flat - 1), 0.0, 1.0);
    return g;
}

}  // namespace gpu_topology::analysis

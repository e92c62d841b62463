#include "results.hpp"

#include "util/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpu_topology::stages {

using model::Estimate;
using model::LatencyEstimate;
using model::Result;
using model::Source;

Result size_result(const analysis::CapacityEstimate& e, const std::string& method) {
    if (!e.found) return model::unmeasured("no capacity limit found up to the search bound");
    Estimate estimate{.value = double(e.capacity_bytes), .method = method, .confidence = e.confidence};
    estimate.details.emplace_back("first_miss_bytes", double(e.first_miss_bytes));
    estimate.details.emplace_back("ks_statistic", std::round(e.at_first_miss.statistic * 1e4) / 1e4);
    return estimate;
}

Result line_result(const std::optional<analysis::LineEstimate>& line, const std::vector<analysis::StrideSpan>& spans,
                   const std::string& method) {
    if (line) {
        Estimate estimate{.value = double(line->line_bytes), .method = method, .confidence = line->confidence};
        // A line boundary doubles the span at twice the stride (the Hopper cards read 0.87-1.00, the
        // described architectures' L2 0.78). One that grew more than three times is not such a clean
        // boundary: another level may have answered (draw 85377's constant L1), and it is not vouched for.
        constexpr double kCleanBoundary = 0.5;
        if (line->confidence < kCleanBoundary)
            estimate.doubt = "the capacity span at twice " + std::to_string(line->line_bytes) +
                             " B grew far from twice the span at it (confidence " +
                             std::to_string(int(std::lround(line->confidence * 100))) +
                             " %): another level may have answered";
        return estimate;
    }
    if (spans.empty()) return model::unmeasured("capacity spans need rings larger than the path can hold");
    if (analysis::span_independent_of_stride(spans))
        return model::unmeasured("the capacity span is the same at every stride from " +
                                 std::to_string(spans.front().stride_bytes) + " to " +
                                 std::to_string(spans.back().stride_bytes) +
                                 " B: sets indexed by address bits, so the line cannot be read from spans (the fetch "
                                 "granularity is measured)");
    return model::unmeasured("capacity span did not grow like a line boundary");
}

Result granularity_result(const std::optional<analysis::Granularity>& granularity, const std::string& method) {
    if (!granularity) return model::unmeasured("first-touch pattern had no slow/fast structure");
    Estimate estimate{.value = double(granularity->bytes), .method = method, .confidence = granularity->confidence};
    // On a quiet GPU nearly every gap between first-touch misses is the granularity (0.95 or more on
    // the H100 and H200); where noise lifts hits over the threshold, the most common gap is between
    // false misses, and it is not vouched for.
    constexpr double kRegularGaps = 0.75;
    if (granularity->confidence < kRegularGaps)
        estimate.doubt = "misses " + std::to_string(granularity->bytes) + " B apart in only " +
                         std::to_string(int(std::lround(granularity->confidence * 100))) +
                         " % of the gaps between them: noise blurs hits and misses";
    return estimate;
}

double concentration(std::span<const double> samples, double center, double fraction) {
    if (samples.empty()) return 0;
    const double band = std::max(std::abs(center) * fraction, 1.0);
    const auto inside = std::count_if(samples.begin(), samples.end(),
                                      [&](double s) { return std::abs(s - center) <= band; });
    return double(inside) / double(samples.size());
}

Result latency_result(const analysis::LatencySummary& s, std::span<const double> samples, std::uint64_t footprint,
                      double timer_uncertainty, const std::string& method) {
    return LatencyEstimate{.p05 = s.p05, .p50 = s.p50, .mean = s.mean, .p95 = s.p95, .samples = s.samples,
                           .footprint_bytes = footprint, .timer_uncertainty_cycles = timer_uncertainty,
                           .method = method, .confidence = concentration(samples, s.p50)};
}

Result penalty_result(const Result& hit, const Result& miss, const std::string& method) {
    const auto* h = std::get_if<LatencyEstimate>(&hit);
    const auto* m = std::get_if<LatencyEstimate>(&miss);
    if (!h || !m) return model::unmeasured("needs both the hit and the miss latency");
    if (m->p50 <= h->p50) return model::unmeasured("the miss ring was not slower than the hit ring");
    const std::string doubt = !m->doubt.empty() ? "the miss latency: " + m->doubt
                              : !h->doubt.empty() ? "the hit latency: " + h->doubt
                                                  : std::string();
    return Estimate{.value = std::round(m->p50 - h->p50), .source = Source::derived, .method = method,
                    .confidence = std::min(h->confidence, m->confidence), .doubt = doubt};
}

Result per_sm_result(const std::optional<std::uint32_t>& instances, const std::vector<analysis::EvictionDecision>& tests,
                     const std::string& method) {
    if (tests.empty()) return model::unmeasured("needs a measured size that leaves room for two rings");
    if (!instances) return model::unmeasured("the other sub-partitions' evictions fit no equal split");
    double confidence = 1.0;
    for (const auto& t : tests) confidence = std::min(confidence, t.confidence);
    return Estimate{.value = double(*instances), .method = method, .confidence = confidence};
}

Result sharing_result(const analysis::EvictionDecision& d, const std::string& method) {
    Estimate e{.value = d.evicted ? 1.0 : 0.0, .method = method, .confidence = d.confidence};
    e.details.emplace_back("ks_statistic", std::round(d.test.statistic * 1e4) / 1e4);
    e.details.emplace_back("victim_p50_alone", std::round(d.alone_p50 * 10) / 10);
    e.details.emplace_back("victim_p50_disturbed", std::round(d.disturbed_p50 * 10) / 10);
    return e;
}

Result bandwidth_result(const std::vector<double>& rates, const std::string& method) {
    if (rates.empty()) return model::unmeasured("no run gave a rate (twice the passes took no longer than once)");
    const double median = analysis::median(rates);
    const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    Estimate e{.value = std::round(median), .method = method,
               .confidence = std::clamp(1.0 - (*hi - *lo) / median, 0.0, 1.0)};
    e.spread = model::Spread{std::round(*lo), std::round(*hi), static_cast<std::uint32_t>(rates.size())};
    return e;
}

// Not util::format_bytes: method texts are stored in profiles, and replays of recorded
// runs compare them word for word, so their wording stays what it was.
std::string bytes_text(std::uint64_t bytes) {
    using util::KiB, util::MiB;
    char text[32];
    if (bytes >= 4 * MiB)
        std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / MiB);
    else if (bytes >= 4 * KiB)
        std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / KiB);
    else
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    return text;
}

std::string cycles(const analysis::LatencySummary& s) {
    char text[64];
    std::snprintf(text, sizeof text, "p50 %.0f cycles (p95 %.0f)", s.p50, s.p95);
    return text;
}

}  // namespace gpu_topology::stages

#include "entries.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpu_topology::benchmarks {

Json api_quantity(double value, std::string_view unit) {
    return profile::quantity(value, unit, "api", "cudaGetDeviceProperties", 1.0);
}

Json size_entry(const analysis::CapacityEstimate& e, const std::string& method, bool cross_checked) {
    if (!e.found) return profile::unmeasured("bytes", "no capacity limit found up to the search bound");
    // A size whose independent cross-checks failed keeps its value at half the confidence.
    return profile::quantity(double(e.capacity_bytes), "bytes", "measured", method,
                             e.confidence * (cross_checked ? 1.0 : 0.5));
}

Json line_entry(const std::optional<analysis::LineEstimate>& line, const std::vector<analysis::StrideSpan>& spans,
                const std::string& method) {
    if (line) return profile::quantity(line->line_bytes, "bytes", "measured", method, line->confidence);
    if (spans.empty()) return profile::unmeasured("bytes", "capacity spans need rings larger than the path can hold");
    if (analysis::span_independent_of_stride(spans))
        return profile::unmeasured("bytes", "the capacity span is the same at every stride from " +
                                                std::to_string(spans.front().stride_bytes) + " to " +
                                                std::to_string(spans.back().stride_bytes) +
                                                " B: sets indexed by address bits, so the line cannot be read from "
                                                "spans (the fetch granularity is measured)");
    return profile::unmeasured("bytes", "capacity span did not grow like a line boundary");
}

Json granularity_entry(const std::optional<analysis::Granularity>& granularity, const std::string& method) {
    if (!granularity) return profile::unmeasured("bytes", "first-touch pattern had no slow/fast structure");
    return profile::quantity(granularity->bytes, "bytes", "measured", method, granularity->confidence);
}

Json latency_entry(const analysis::LatencySummary& s, std::uint64_t footprint, double clock_khz,
                   const std::string& method) {
    // Confidence: the share of loads within 10% of the median (one level, not a blend).
    return profile::latency({.p05 = s.p05, .p50 = s.p50, .mean = s.mean, .p95 = s.p95, .samples = s.samples,
                             .footprint_bytes = footprint, .sm_clock_khz = clock_khz, .method = method,
                             .confidence = s.p95 <= s.p50 * 1.1 && s.p05 >= s.p50 * 0.9 ? 0.95 : 0.8});
}

Json penalty_entry(const analysis::LatencySummary& hit, const analysis::LatencySummary& miss,
                   const std::string& method) {
    if (miss.p50 <= hit.p50)
        return profile::unmeasured("cycles", "the miss ring was not slower than the hit ring");
    return profile::quantity(std::round(miss.p50 - hit.p50), "cycles", "derived", method, 0.9);
}

Json per_sm_entry(const std::optional<std::uint32_t>& instances, const std::vector<analysis::EvictionDecision>& tests,
                  const std::string& method) {
    if (!instances) return profile::unmeasured("instances", "the other sub-partitions' evictions fit no equal split");
    double confidence = 1.0;
    for (const auto& t : tests) confidence = std::min(confidence, t.confidence);
    return profile::quantity(*instances, "instances", "measured", method, confidence);
}

Json sharing_entry(const analysis::EvictionDecision& d, const std::string& method) {
    Json q = profile::quantity(d.evicted ? 1 : 0, "bool", "measured", method, d.confidence);
    q["ks_statistic"] = std::round(d.test.statistic * 1e4) / 1e4;
    q["victim_p50_alone"] = std::round(d.alone_p50 * 10) / 10;
    q["victim_p50_disturbed"] = std::round(d.disturbed_p50 * 10) / 10;
    return q;
}

bool CrossCheck::passed() const { return std::abs(measured - expected) <= tolerance; }

Json CrossCheck::json() const {
    Json j = Json::object();
    j["name"] = name;
    j["expected"] = expected;
    j["measured"] = measured;
    j["tolerance"] = tolerance;
    j["passed"] = passed();
    j["detail"] = detail;
    return j;
}

bool all_passed(const std::vector<CrossCheck>& checks, std::string_view prefix) {
    return std::all_of(checks.begin(), checks.end(),
                       [&](const CrossCheck& c) { return c.name.rfind(prefix, 0) != 0 || c.passed(); });
}

std::string kib(std::uint64_t bytes) {
    constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;
    char text[32];
    if (bytes >= 4 * MiB)
        std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / MiB);
    else if (bytes >= 4 * KiB)
        std::snprintf(text, sizeof text, "%.0f KiB", double(bytes) / KiB);
    else
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    return text;
}

std::string cycles(const analysis::LatencySummary& s) {
    char text[64];
    std::snprintf(text, sizeof text, "p50 %.0f cycles (p95 %.0f)", s.p50, s.p95);
    return text;
}

}  // namespace gpu_topology::benchmarks

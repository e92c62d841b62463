#pragma once
// Profile entries built from the answers of the questions: one place decides
// how a size, line, latency, penalty, count or cross-check is written, so
// every cache's entry reads the same.
#include "../analysis/granularity.hpp"
#include "../analysis/sharing.hpp"
#include "../analysis/size_search.hpp"
#include "../analysis/statistics.hpp"
#include "../profile/profile.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::benchmarks {

using profile::Json;

// How every size is searched; each use appends the path, stride and carveout.
inline const std::string kSizeMethod =
    "fine-grained pointer chase, doubling + bisection; largest footprint with < 5% of loads slower than the all-hit "
    "reference (one-sided KS with indifference zone, alpha 1e-3)";

Json api_quantity(double value, std::string_view unit);
Json size_entry(const analysis::CapacityEstimate& estimate, const std::string& method, bool cross_checked);
// From capacity spans; unmeasured with the reason when spans cannot tell the line.
Json line_entry(const std::optional<analysis::LineEstimate>& line, const std::vector<analysis::StrideSpan>& spans,
                const std::string& method);
Json granularity_entry(const std::optional<analysis::Granularity>& granularity, const std::string& method);
Json latency_entry(const analysis::LatencySummary& summary, std::uint64_t footprint_bytes, double clock_khz,
                   const std::string& method);
// Median miss latency minus median hit latency (derived).
Json penalty_entry(const analysis::LatencySummary& hit, const analysis::LatencySummary& miss, const std::string& method);
Json per_sm_entry(const std::optional<std::uint32_t>& instances, const std::vector<analysis::EvictionDecision>& tests,
                  const std::string& method);
Json sharing_entry(const analysis::EvictionDecision& decision, const std::string& method);

// An independent second measurement that must agree with the first.
struct CrossCheck {
    std::string name;
    double expected, measured, tolerance;
    std::string detail;
    bool passed() const;
    Json json() const;
};
// True when every check whose name starts with `prefix` passed.
bool all_passed(const std::vector<CrossCheck>& checks, std::string_view prefix);

std::string kib(std::uint64_t bytes);
std::string cycles(const analysis::LatencySummary& summary);

}  // namespace gpu_topology::benchmarks

#pragma once
// Typed results (model::Result) built from the answers of the questions: one
// place decides how a size, line, fetch granularity, latency, penalty, count,
// sharing decision or bandwidth becomes a value with its method and a
// confidence computed from the data (docs/profile-schema.md, "Confidence").
#include "analysis/granularity.hpp"
#include "analysis/sharing.hpp"
#include "analysis/size_search.hpp"
#include "analysis/statistics.hpp"
#include "model/topology.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::stages {

// How every size is searched; each use appends the path, stride and carveout.
inline const std::string kSizeMethod =
    "fine-grained pointer chase, doubling + bisection; largest footprint with < 5% of loads slower than the all-hit "
    "reference (one-sided KS with indifference zone, alpha 1e-3)";

model::Result size_result(const analysis::CapacityEstimate& estimate, const std::string& method);
// From capacity spans; unmeasured with the reason when spans cannot tell the line.
model::Result line_result(const std::optional<analysis::LineEstimate>& line,
                          const std::vector<analysis::StrideSpan>& spans, const std::string& method);
model::Result granularity_result(const std::optional<analysis::Granularity>& granularity, const std::string& method);
// Confidence: the share of samples within 10% of the median (one level, not a blend).
model::Result latency_result(const analysis::LatencySummary& summary, std::span<const double> samples,
                             std::uint64_t footprint_bytes, double timer_uncertainty, const std::string& method);
// Median miss latency minus median hit latency (derived); confidence the lower of the two's.
model::Result penalty_result(const model::Result& hit, const model::Result& miss, const std::string& method);
model::Result per_sm_result(const std::optional<std::uint32_t>& instances,
                            const std::vector<analysis::EvictionDecision>& tests, const std::string& method);
model::Result sharing_result(const analysis::EvictionDecision& decision, const std::string& method);
// Median of repeated runs; confidence 1 - (max - min) / median.
model::Result bandwidth_result(const std::vector<double>& bytes_per_s, const std::string& method);

// Share of `samples` within `fraction` of `center`.
double concentration(std::span<const double> samples, double center, double fraction = 0.1);

std::string bytes_text(std::uint64_t bytes);
std::string cycles(const analysis::LatencySummary& summary);

}  // namespace gpu_topology::stages

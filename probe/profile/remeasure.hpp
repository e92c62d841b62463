#pragma once
// A re-measurement held against the profile it should reproduce (`check`, the
// re-measure test of gpu_topology_add_tests): one row per quantity the profile
// vouches for, and whether it holds. The GPU is only needed for the
// re-measurement; the rule is here, and tested without one.
#include "model/agreement.hpp"
#include "util/json.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::profile {

struct RemeasureRow {
    std::string name;
    double profile = 0;            // what the profile says
    std::optional<double> device;  // what the device measured now; nullopt: not measured
    std::string reason;            // why not measured
    double tolerance = 0;
    std::string doubt;             // the re-measurement does not vouch for it, and why
    bool ok = false;
};

// Every measured, re-measurable quantity that `expected` vouches for (API values are the
// identity's to check). `cards`: the profile was measured on this card, or on another of its
// model, whose latencies may differ by more (model::kLatencyBetweenCards).
std::vector<RemeasureRow> remeasure_rows(const util::Json& expected, const util::Json& measured, model::Cards cards);

}  // namespace gpu_topology::profile

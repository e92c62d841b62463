#pragma once
// When two measurements of one quantity agree: `check` (a device against its
// profile), `compare` (a run against quiet references) and a node's verdict
// that its devices are alike all use this one rule. `check` of a profile of another
// card of the model and a node's verdict give latencies more room
// (Cards::other_of_model, below); `compare` shows such differences.
//
// Each tolerance covers the run-to-run spread measured on quiet H200s and
// H100s (five full probes on one H100 in one lease, and the spread over the card runs in
// docs/records/probe.md), with room to spare:
//   latencies       <= 1.5 % between runs (the constant L1.5 miss, 415-421.5 cycles; the timer overhead
//                   itself moves 2-7 cycles between launches): 5 %, at least 2 cycles
//   sizes           one or two search steps (L1 at the max-shared carveout 19-20 KiB): 4 %, at least
//                   two steps (1 KiB in L1, 256 KiB in L2)
//   bandwidths      <= 5.4 % (L2, with a compiler running beside the probe): 15 %
//   counts, lines, granularities, flags: exact
#include "quantities.hpp"

#include <algorithm>
#include <array>

namespace gpu_topology::model {

// Quantities whose spread the rule of their unit does not cover.
struct ToleranceOverride {
    std::string_view name;
    double relative;  // of the expected value
    double at_least;  // in the quantity's unit
    std::string_view why;
};
inline constexpr std::array kToleranceOverrides{
    ToleranceOverride{"TLB_ENTRIES", 0, 1, "the count's bisection resolves one element"},
    ToleranceOverride{"TLB_REACH_BYTES", 0.07, 0, "entries x coverage: one entry of 15 is 6.7 %"},
    ToleranceOverride{"TLB_MISS_PENALTY_CYCLES", 0, 3,
                      "the mean rise of four medians: 8-10 cycles over three fresh buffers on one H100"},
};

// A quantity's rule: two runs agree when they differ by at most `relative` of the expected value
// and never less than `at_least` (in the quantity's unit); 0 and 0: exactly.
struct AgreementRule {
    double relative;
    double at_least;
};
inline AgreementRule agreement_rule(const Quantity& q) {
    for (const auto& o : kToleranceOverrides)
        if (o.name == q.name) return {o.relative, o.at_least};
    if (q.rule.power_of_two || q.unit == Unit::instances || q.unit == Unit::flag) return {0, 0};
    if (q.shape == Shape::latency || q.unit == Unit::cycles) return {0.05, 2.0};
    if (q.unit == Unit::bytes_per_s) return {0.15, 0};
    if (q.unit == Unit::bytes) return {0.04, q.object() == "l2" ? 512.0 * 1024 : 2048.0};
    return {0.05, 0};
}
inline double agreement_tolerance(const Quantity& q, double expected) {
    const AgreementRule rule = agreement_rule(q);
    return std::max(rule.relative * expected, rule.at_least);
}

// Cards of one model differ where runs of one card do not: five H100s of one pool gave near-L2
// latencies of 264, 269, 270, 279 and 289 cycles (9.5 % apart), the misses of every path and DRAM
// (687 against 723) moving with them, while each card's own runs agree within 1.5 %
// (docs/records/probe.md; the L1 miss penalty, miss less hit, 257 against 237). A profile of another
// card of the model, and the devices of one node, are held to this for every quantity in cycles,
// latencies and the penalties made of them (the pool's spread, with room for cards not seen);
// sizes, lines, counts and bandwidths keep one rule.
inline constexpr double kLatencyBetweenCards = 0.12;
enum class Cards { same, other_of_model };
inline double agreement_tolerance(const Quantity& q, double expected, Cards cards) {
    const double own = agreement_tolerance(q, expected);
    if (cards == Cards::same || !(q.shape == Shape::latency || q.unit == Unit::cycles)) return own;
    return std::max(own, kLatencyBetweenCards * expected);
}

// Every override names a quantity of the list.
consteval bool overrides_name_quantities() {
    for (const auto& o : kToleranceOverrides)
        if (find(o.name) == kQuantities.size()) return false;
    return true;
}
static_assert(overrides_name_quantities(), "a tolerance override names a quantity that is not in kQuantities");

}  // namespace gpu_topology::model

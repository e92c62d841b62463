#include "topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpu_topology::model {
namespace {

std::string number(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.15g", v);
    return text;
}

}  // namespace

std::string_view to_string(Source source) {
    switch (source) {
        case Source::api: return "api";
        case Source::measured: return "measured";
        case Source::derived: return "derived";
    }
    return "measured";
}

std::optional<Source> source_from(std::string_view text) {
    for (const Source s : {Source::api, Source::measured, Source::derived})
        if (text == to_string(s)) return s;
    return std::nullopt;
}

std::string_view to_string(KernelShared kind) {
    switch (kind) {
        case KernelShared::none: return "none";
        case KernelShared::fixed: return "static";
        case KernelShared::dynamic: return "dynamic";
    }
    return "static";
}

std::optional<KernelShared> kernel_shared_from(std::string_view text) {
    for (const auto kind : {KernelShared::none, KernelShared::fixed, KernelShared::dynamic})
        if (to_string(kind) == text) return kind;
    return std::nullopt;
}

Estimate api_value(double value) {
    Estimate e;
    e.value = value;
    e.source = Source::api;
    e.method = "cudaGetDeviceProperties";
    return e;
}

Result unmeasured(std::string reason) { return Unmeasured{std::move(reason)}; }

bool CrossCheck::passed() const { return std::abs(measured - expected) <= tolerance; }

double CrossCheck::agreement() const {
    const double difference = std::abs(measured - expected);
    if (difference <= tolerance) return 1.0;
    return std::clamp(2.0 * tolerance / (difference + tolerance), 0.0, 1.0);
}

std::optional<double> Topology::value(QuantityId id) const {
    const auto* result = get(id);
    if (!result) return std::nullopt;
    if (const auto* e = std::get_if<Estimate>(result)) return e->value;
    if (const auto* l = std::get_if<LatencyEstimate>(result)) return l->p50;
    return std::nullopt;
}

void Topology::doubt(QuantityId id, const std::string& why, double confidence_factor) {
    auto& slot = results_.at(id);
    if (!slot) return;
    const auto add = [&](std::string& doubt, double& confidence) {
        doubt = doubt.empty() ? why : doubt + "; " + why;
        confidence *= confidence_factor;
    };
    if (auto* e = std::get_if<Estimate>(&*slot); e && e->source != Source::api) add(e->doubt, e->confidence);
    if (auto* l = std::get_if<LatencyEstimate>(&*slot)) add(l->doubt, l->confidence);
}

void Topology::apply_cross_checks() {
    for (const auto& c : cross_checks) {
        if (c.passed()) continue;
        for (QuantityId q : c.concerns)
            doubt(q, "cross-check failed: " + c.name + " (expected " + number(c.expected) + ", measured " +
                         number(c.measured) + ")",
                  c.agreement());
    }
}

void Topology::enforce_relations() {
    // A measured value outside what any GPU CUDA supports has (the list's rule) is not a fact either:
    // unmeasured with the number, instead of a profile that fails validation.
    for (QuantityId q = 0; q < kQuantities.size(); ++q) {
        const auto v = value(q);
        const auto* e = std::get_if<Estimate>(get(q));
        if (!v || (e && e->source == Source::api)) continue;
        const Rule& rule = kQuantities[q].rule;
        const bool whole = *v == std::floor(*v) && *v >= 1;
        const bool power_of_two = whole && (static_cast<std::uint64_t>(*v) & (static_cast<std::uint64_t>(*v) - 1)) == 0;
        if (*v >= rule.min && *v <= rule.max && (!rule.power_of_two || power_of_two)) continue;
        const std::string range = "[" + number(rule.min) + ", " + number(rule.max) + "]" +
                                  (rule.power_of_two ? " or not a power of two" : "");
        refused.push_back(std::string(kQuantities[q].path) + ": " + number(*v) + " outside " + range);
        set(q, Unmeasured{"measured " + number(*v) + ", outside " + range +
                          ": no GPU CUDA supports has that (model/quantities.hpp)"});
    }
    for (const auto& r : kRelations) {
        const QuantityId small = find(r.smaller), large = find(r.larger);
        const QuantityId plus = r.plus.empty() ? kQuantities.size() : find(r.plus);
        const auto a = value(small), b = value(large);
        const auto c = plus == kQuantities.size() ? std::optional<double>(0) : value(plus);
        if (!a || !b || !c || r.holds(*a, *b, *c)) continue;
        const std::string why = std::string(r.smaller) + " = " + number(*a) + " and " + std::string(r.larger) + " = " +
                                number(*b) +
                                (plus == kQuantities.size() ? "" : " + " + std::string(r.plus) + " = " + number(*c)) +
                                " contradict: " + std::string(r.why);
        for (QuantityId q : {small, large, plus}) {
            if (q == kQuantities.size()) continue;
            const auto* e = std::get_if<Estimate>(get(q));
            if (!e || e->source != Source::api) set(q, Unmeasured{"measured, but " + why});
        }
    }
}

}  // namespace gpu_topology::model

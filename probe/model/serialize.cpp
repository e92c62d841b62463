#include "serialize.hpp"

#include <cmath>

namespace gpu_topology::model {
namespace {

using util::Json;

// `v` to `decimals` places, as the nearest double to that decimal (3.32, not
// 332 * 0.01 = 3.3200000000000003): the shortest form the writer prints is then the decimal.
double rounded(double v, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(v * scale) / scale;
}

Json estimate_json(const Quantity& q, const Estimate& e) {
    Json j = Json::object();
    j["value"] = e.value;
    j["unit"] = std::string(to_string(q.unit));
    j["source"] = to_string(e.source);
    j["method"] = e.method;
    j["confidence"] = rounded(e.confidence, 4);
    if (e.lower_bound) {
        j["bound"] = "lower";
        j["reason"] = e.bound_reason;
    }
    if (e.spread) j["spread"] = to_json(*e.spread);
    for (const auto& [key, value] : e.details) j[key] = value;
    if (!e.doubt.empty()) j["doubt"] = e.doubt;
    return j;
}

Json latency_json(const Quantity& q, const LatencyEstimate& l, double clock_khz) {
    Json j = Json::object();
    j["p05"] = rounded(l.p05, 2);
    j["p50"] = rounded(l.p50, 2);
    j["mean"] = rounded(l.mean, 2);
    j["p95"] = rounded(l.p95, 2);
    j["samples"] = l.samples;
    if (clock_khz > 0) j["p50_ns"] = rounded(l.p50 / clock_khz * 1e6, 2);
    j["footprint_bytes"] = l.footprint_bytes;
    j["timer_uncertainty_cycles"] = rounded(l.timer_uncertainty_cycles, 2);
    j["unit"] = std::string(to_string(q.unit));
    j["source"] = "measured";
    j["method"] = l.method;
    j["confidence"] = rounded(l.confidence, 4);
    if (!l.doubt.empty()) j["doubt"] = l.doubt;
    return j;
}

Json probe_json(const ProbeRecord& p) {
    Json j = Json::object();
    j["version"] = p.version;
    j["duration_s"] = rounded(p.duration_s, 2);
    j["level"] = p.level;
    j["pace"] = p.pace;
    if (p.budget_s) j["budget_s"] = *p.budget_s;
    j["cuda_runtime"] = p.cuda_runtime;
    j["driver"] = p.driver;
    Json stages = Json::array();
    for (const auto& s : p.stages) {
        Json stage = Json::object();
        stage["name"] = s.name;
        stage["seconds"] = rounded(s.seconds, 3);
        if (s.attempts > 1) stage["attempts"] = s.attempts;
        stages.push_back(std::move(stage));
    }
    j["stages"] = std::move(stages);
    Json skipped = Json::array();
    for (const auto& s : p.skipped) {
        Json stage = Json::object();
        stage["name"] = s.name;
        stage["reason"] = s.reason;
        skipped.push_back(std::move(stage));
    }
    j["skipped_stages"] = std::move(skipped);
    j["timer_overhead_cycles"] = rounded(p.timer_overhead_cycles, 2);
    j["timer_overhead_spread"] = to_json(p.timer_overhead_spread);
    j["points_measured"] = p.points_measured;
    return j;
}

Json conditions_json(const Conditions& c) {
    Json j = Json::object();
    j["quiet"] = c.quiet;
    j["monitor"] = c.monitor;
    Json events = Json::array();
    for (const auto& e : c.events) events.push_back(e);
    j["events"] = std::move(events);
    j["retries"] = c.retries;
    if (c.reference_work_seconds > 0) j["reference_work_seconds"] = c.reference_work_seconds;
    return j;
}

Json cross_check_json(const CrossCheck& c) {
    Json j = Json::object();
    j["name"] = c.name;
    j["expected"] = c.expected;
    j["measured"] = c.measured;
    j["tolerance"] = c.tolerance;
    j["passed"] = c.passed();
    j["detail"] = c.detail;
    if (!c.stage.empty()) j["stage"] = c.stage;
    return j;
}

Json carveout_json(const CarveoutRow& row) {
    Json j = Json::object();
    j["carveout_percent"] = row.carveout_percent;
    j["threads_per_block"] = row.threads_per_block;
    j["kernel_shared"] = std::string(to_string(row.kernel_shared));
    j["shared_bytes_per_block"] = row.shared_bytes_per_block;
    j["resident_blocks"] = row.resident_blocks;
    j["size_bytes"] = row.size_bytes ? Json(*row.size_bytes) : Json();
    if (!row.size_bytes) j["reason"] = row.why_unmeasured;
    return j;
}

Json pair_json(double first, double second) {
    Json pair = Json::array();
    pair.push_back(Json(first));
    pair.push_back(Json(second));
    return pair;
}

Json curve_json(const LatencyCurve& curve) {
    Json j = Json::object();
    j["path"] = curve.path;
    Json points = Json::array();
    for (const auto& p : curve.points) points.push_back(pair_json(double(p.footprint_bytes), p.p50_cycles));
    j["points"] = std::move(points);
    Json changes = Json::array();
    for (const auto& [before, after] : curve.change_points) changes.push_back(pair_json(double(before), double(after)));
    j["change_points"] = std::move(changes);
    return j;
}

}  // namespace

Json to_json(const Spread& s) {
    Json j = Json::object();
    j["min"] = s.min;
    j["max"] = s.max;
    j["repeats"] = s.repeats;
    return j;
}

Json unmeasured_json(const Quantity& q, const std::string& reason) {
    Json j = Json::object();
    j["value"] = nullptr;
    j["unit"] = std::string(to_string(q.unit));
    j["source"] = "unmeasured";
    j["reason"] = reason;
    return j;
}

Json to_json(const Topology& topology) {
    Json root = Json::object();
    root["schema"] = kSchema;
    root["source"] = topology.source;
    root["probe"] = probe_json(topology.probe);
    auto& device = root["device"];
    device["index"] = topology.device.index;
    device["name"] = topology.device.name;
    device["uuid"] = topology.device.uuid;
    root["conditions"] = conditions_json(topology.conditions);

    const double clock_khz = topology.value(kSmClockKhz).value_or(0);
    for (QuantityId i = 0; i < kQuantities.size(); ++i) {
        const Quantity& q = kQuantities[i];
        Json& slot = root.path_to(q.path);
        const Result* result = topology.get(i);
        if (!result) {
            slot = q.shape == Shape::fact ? Json() : unmeasured_json(q, "not measured by this probe run");
        } else if (const auto* e = std::get_if<Estimate>(result)) {
            slot = q.shape == Shape::fact ? Json(e->value) : estimate_json(q, *e);
        } else if (const auto* l = std::get_if<LatencyEstimate>(result)) {
            slot = latency_json(q, *l, clock_khz);
        } else {
            slot = unmeasured_json(q, std::get<Unmeasured>(*result).reason);
        }
    }

    Json carveouts = Json::array();
    for (const auto& row : topology.carveouts) carveouts.push_back(carveout_json(row));
    root["caches"]["l1"]["carveouts"] = std::move(carveouts);
    if (topology.curve) root["curve"] = curve_json(*topology.curve);
    Json cross_checks = Json::array();
    for (const auto& c : topology.cross_checks) cross_checks.push_back(cross_check_json(c));
    root["cross_checks"] = std::move(cross_checks);
    return root;
}

}  // namespace gpu_topology::model

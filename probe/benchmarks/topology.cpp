#include "topology.hpp"

#include "../analysis/hierarchy.hpp"
#include "../profile/profile.hpp"
#include "../render/render.hpp"
#include "questions.hpp"
#include "../version.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace gpu_topology::benchmarks {
namespace {

using kernels::LoadPath;
using profile::Json;
constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;

std::string kib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, bytes >= 4 * MiB ? "%.2f MiB" : "%.0f KiB",
                  bytes >= 4 * MiB ? double(bytes) / MiB : double(bytes) / KiB);
    return text;
}

std::string cycles(const analysis::LatencySummary& s) {
    char text[64];
    std::snprintf(text, sizeof text, "p50 %.0f cycles (p95 %.0f)", s.p50, s.p95);
    return text;
}

std::vector<std::uint64_t> geometric(std::uint64_t from, std::uint64_t to, int per_doubling, std::uint64_t align) {
    std::vector<std::uint64_t> sizes;
    for (double s = double(from); s <= double(to) * 1.0001; s *= std::pow(2.0, 1.0 / per_doubling)) {
        const auto v = static_cast<std::uint64_t>(s) / align * align;
        if (sizes.empty() || v > sizes.back()) sizes.push_back(v);
    }
    return sizes;
}

class Stages {
public:
    void begin(const char* name) {
        name_ = name;
        start_ = std::chrono::steady_clock::now();
    }
    void end() {
        Json stage = Json::object();
        stage["name"] = name_;
        stage["seconds"] =
            std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() * 1000) / 1000;
        list_.push_back(std::move(stage));
    }
    Json list_ = Json::array();

private:
    std::string name_;
    std::chrono::steady_clock::time_point start_;
};

struct CrossCheck {
    std::string name;
    double expected, measured, tolerance;
    std::string detail;
    bool passed() const { return std::abs(measured - expected) <= tolerance; }
    Json json() const {
        Json j = Json::object();
        j["name"] = name;
        j["expected"] = expected;
        j["measured"] = measured;
        j["tolerance"] = tolerance;
        j["passed"] = passed();
        j["detail"] = detail;
        return j;
    }
};

Json size_quantity(const analysis::CapacityEstimate& e, const std::string& method, bool cross_checked,
                   const std::string& not_found_reason) {
    if (!e.found) return profile::unmeasured("bytes", not_found_reason);
    return profile::quantity(double(e.capacity_bytes), "bytes", "measured", method,
                             e.confidence * (cross_checked ? 1.0 : 0.5));
}

Json latency_json(const analysis::LatencySummary& s, std::uint64_t footprint, double clock_khz, const std::string& method) {
    // Confidence: the share of loads within 10% of the median (one level, not a blend).
    return profile::latency({.p05 = s.p05, .p50 = s.p50, .mean = s.mean, .p95 = s.p95, .samples = s.samples,
                             .footprint_bytes = footprint, .sm_clock_khz = clock_khz, .method = method,
                             .confidence = s.p95 <= s.p50 * 1.1 && s.p05 >= s.p50 * 0.9 ? 0.95 : 0.8});
}

Json api_quantity(double value, std::string_view unit) { return profile::quantity(value, unit, "api", "cudaGetDeviceProperties", 1.0); }

}  // namespace

Json measure_topology(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress) {
    const auto started = std::chrono::steady_clock::now();
    const std::uint64_t l2 = static_cast<std::uint64_t>(facts.l2_bytes);
    Stages stages;

    // One buffer for everything: rings up to 2.5x L2, and a flush region.
    const std::size_t flush_offset = 64 * MiB;
    const std::size_t buffer_bytes = flush_offset + std::max<std::size_t>(5 * l2 / 2, 2 * l2) + 64 * MiB;
    kernels::ChaseEngine engine(facts.index, buffer_bytes);
    SweepRunner runner(engine, options.raw_dir);
    if (options.raw_dir) std::filesystem::create_directories(*options.raw_dir);

    stages.begin("warm-up");
    progress.step("warming up the SM clock");
    engine.warm_up(250);
    const double overhead = runner.calibrate_overhead();
    progress.done("timer overhead " + std::to_string(int(std::round(overhead))) + " cycles");
    stages.end();

    // --- fetch granularity: first touches, before anything else uses L1 -----
    stages.begin("fetch granularity");
    progress.step("L1 fetch granularity (first touch)");
    const std::size_t fresh = buffer_bytes - 32 * MiB;  // never chased through L1 before
    const auto l1_fetch = measure_fetch_granularity(runner, LoadPath::l1, fresh, "l1_first_touch");
    progress.done(l1_fetch.granularity ? std::to_string(l1_fetch.granularity->bytes) + " B" : "not found");
    progress.step("L2 fetch granularity from DRAM");
    const auto l2_fetch =
        measure_fetch_granularity(runner, LoadPath::l2, fresh + 1 * MiB, "l2_first_touch", flush_offset, 2 * l2);
    progress.done(l2_fetch.granularity ? std::to_string(l2_fetch.granularity->bytes) + " B" : "not found");
    stages.end();

    // --- latencies ----------------------------------------------------------
    stages.begin("latency");
    progress.step("L1 hit latency");
    const auto l1_latency = measure_latency(
        runner, {.name = "l1_latency", .path = LoadPath::l1, .stride_bytes = 128, .samples = 2048, .min_timed_steps = 4096},
        16 * KiB);
    progress.done(cycles(l1_latency.summary));
    progress.step("shared memory latency");
    const auto shared_latency = measure_latency(
        runner, {.name = "shared_latency", .path = LoadPath::shared, .stride_bytes = 64, .samples = 2048, .min_timed_steps = 4096},
        16 * KiB);
    progress.done(cycles(shared_latency.summary));
    progress.step("L2 near hit latency");
    const auto l2_latency = measure_latency(
        runner, {.name = "l2_near_latency", .path = LoadPath::l2, .stride_bytes = 128, .samples = 2048, .min_timed_steps = 4096},
        4 * MiB);
    progress.done(cycles(l2_latency.summary));
    stages.end();

    // --- one curve through every level -----------------------------------------
    stages.begin("hierarchy curve");
    progress.step("latency curve 8 KiB .. 2.5 x L2 (L1 path)");
    const auto curve = runner.run({.name = "hierarchy", .path = LoadPath::l1, .stride_bytes = 128, .samples = 512},
                                  geometric(8 * KiB, 5 * l2 / 2, 4, 128));
    const auto levels = analysis::interpret_hierarchy(curve, l2, true);
    progress.done(std::to_string(levels.change_points.size()) + " change points in " + std::to_string(curve.points.size()) +
                  " footprints");
    for (const auto& cp : levels.change_points)
        progress.note("  level change between " + kib(cp.last_before_bytes) + " and " + kib(cp.first_after_bytes) +
                      " (KS D " + profile::format_number(std::round(cp.test.statistic * 100) / 100) + ")");
    stages.end();

    // --- L1 capacity per carveout, with independent cross-checks ----------------
    stages.begin("l1 size");
    const std::uint64_t l1_max = 4 * (static_cast<std::uint64_t>(facts.shared_per_sm_bytes) + 64 * KiB);
    auto l1_question = [&](int carveout, Order order, const char* name) {
        return CapacityQuestion{{.name = name, .path = LoadPath::l1, .stride_bytes = 128, .order = order,
                                 .carveout_percent = carveout, .samples = 1024},
                                4 * KiB, 1 * KiB, l1_max};
    };
    progress.step("L1 size, max-L1 carveout (0%)");
    const auto l1_max_l1 = measure_capacity(runner, l1_question(0, Order::sequential, "l1_size_carveout0"));
    progress.done(kib(l1_max_l1.capacity_bytes));
    progress.step("L1 size, default carveout");
    const auto l1_default = measure_capacity(runner, l1_question(-1, Order::sequential, "l1_size_carveout_default"));
    progress.done(kib(l1_default.capacity_bytes));
    progress.step("L1 size, max-shared carveout (100%)");
    const auto l1_max_shared = measure_capacity(runner, l1_question(100, Order::sequential, "l1_size_carveout100"));
    progress.done(kib(l1_max_shared.capacity_bytes));
    progress.step("L1 size, max-L1 carveout, random order");
    const auto l1_random = measure_capacity(runner, l1_question(0, Order::random, "l1_size_carveout0_random"));
    progress.done(kib(l1_random.capacity_bytes));
    stages.end();

    stages.begin("l1 line");
    progress.step("L1 line (capacity span per stride)");
    const auto l1_line = measure_line(runner, l1_question(0, Order::sequential, "l1_span"), {32, 64, 128, 256, 512},
                                      analysis::StrideSpan{128, l1_max_l1.capacity_bytes});
    progress.done(l1_line.line ? std::to_string(l1_line.line->line_bytes) + " B" : "not found");
    stages.end();

    // --- L2 near capacity and line ----------------------------------------------
    stages.begin("l2 size");
    auto l2_question = [&](Order order, const char* name) {
        return CapacityQuestion{{.name = name, .path = LoadPath::l2, .stride_bytes = 128, .order = order, .samples = 1024},
                                2 * MiB, 256 * KiB, 3 * l2 / 2};
    };
    progress.step("L2 near capacity");
    const auto l2_near = measure_capacity(runner, l2_question(Order::sequential, "l2_near_size"));
    progress.done(kib(l2_near.capacity_bytes));
    progress.step("L2 near capacity, random order");
    const auto l2_near_random = measure_capacity(runner, l2_question(Order::random, "l2_near_size_random"));
    progress.done(kib(l2_near_random.capacity_bytes));
    stages.end();

    stages.begin("l2 line");
    progress.step("L2 line (capacity span per stride)");
    const auto l2_line = measure_line(runner, l2_question(Order::sequential, "l2_span"), {64, 128, 256},
                                      analysis::StrideSpan{128, l2_near.capacity_bytes});
    progress.done(l2_line.line ? std::to_string(l2_line.line->line_bytes) + " B" : "not found");
    stages.end();

    const double clock_khz = runner.measured_clock_khz();

    // --- cross-checks: each size by a second, independent measurement ---------
    std::vector<CrossCheck> checks;
    const double api_shared = double(facts.shared_per_sm_bytes);
    checks.push_back({"l1: max-L1 minus max-shared carveout = API shared memory per SM", api_shared,
                      double(l1_max_l1.capacity_bytes) - double(l1_max_shared.capacity_bytes), 0.08 * api_shared,
                      "moving the carveout from 0% to 100% must shrink L1 by the shared memory it gives away "
                      "(less the smallest shared configuration)"});
    checks.push_back({"l1: random order agrees with sequential", double(l1_max_l1.capacity_bytes),
                      double(l1_random.capacity_bytes), std::max(0.02 * double(l1_max_l1.capacity_bytes), 2.0 * KiB),
                      "same carveout, ring visited in random order"});
    for (const auto& span : l1_line.spans)
        if (span.stride_bytes == 64)
            checks.push_back({"l1: stride 64 B agrees with stride 128 B", double(l1_max_l1.capacity_bytes),
                              double(span.span_bytes), std::max(0.02 * double(l1_max_l1.capacity_bytes), 4.0 * KiB),
                              "same carveout, every second sector of each line touched"});
    if (levels.l1)
        checks.push_back({"l1: hierarchy curve knee agrees with the default-carveout search",
                          double(l1_default.capacity_bytes), double(levels.l1->last_bytes),
                          0.2 * double(l1_default.capacity_bytes),
                          "independent sweep at 4 points per doubling; tolerance one curve step"});
    checks.push_back({"l2: random order agrees with sequential", double(l2_near.capacity_bytes),
                      double(l2_near_random.capacity_bytes), std::max(0.03 * double(l2_near.capacity_bytes), 512.0 * KiB),
                      "ring visited in random order"});
    for (const auto& span : l2_line.spans)
        if (span.stride_bytes == 64)
            checks.push_back({"l2: stride 64 B agrees with stride 128 B", double(l2_near.capacity_bytes),
                              double(span.span_bytes), std::max(0.03 * double(l2_near.capacity_bytes), 512.0 * KiB),
                              "two sectors of each line touched"});
    if (levels.l2_near)
        checks.push_back({"l2: hierarchy curve near plateau agrees with the near-capacity search",
                          double(l2_near.capacity_bytes), double(levels.l2_near->last_bytes),
                          0.2 * double(l2_near.capacity_bytes), "tolerance one curve step"});
    auto passed = [&](std::string_view prefix) {
        for (const auto& c : checks)
            if (c.name.rfind(prefix, 0) == 0 && !c.passed()) return false;
        return true;
    };
    for (const auto& c : checks)
        progress.note(std::string(c.passed() ? "check ok:     " : "check FAILED: ") + c.name + " (expected " +
                      kib(std::uint64_t(std::max(0.0, c.expected))) + ", measured " +
                      kib(std::uint64_t(std::max(0.0, c.measured))) + ")");

    // --- the profile ---------------------------------------------------------
    Json p = Json::object();
    p["schema"] = std::string(profile::kSchema);
    p["source"] = "measured";
    auto& probe = p["probe"];
    probe["version"] = std::string(kProbeVersion);
    probe["duration_s"] =
        std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() * 100) / 100;
    probe["cuda_runtime"] = facts.runtime_version;
    probe["driver"] = facts.driver_version;
    probe["stages"] = stages.list_;
    probe["timer_overhead_cycles"] = std::round(overhead * 100) / 100;
    probe["points_measured"] = runner.points_measured();

    auto& d = p["device"];
    d["index"] = facts.index;
    d["name"] = facts.name;
    d["uuid"] = facts.uuid;
    d["cc"] = Json(Json::Array{facts.cc_major, facts.cc_minor});
    d["sm_count"] = facts.sm_count;
    d["sm_clock_khz"]["max"] = api_quantity(double(facts.sm_clock_max_khz), "kHz");
    d["sm_clock_khz"]["measured"] = profile::quantity(
        std::round(clock_khz), "kHz", "measured", "clock64 cycles / globaltimer ns over all timed chases",
        clock_khz > 0 ? 0.99 : 0.0);

    auto& api = p["api"];
    api["l2_bytes"] = facts.l2_bytes;
    api["persisting_l2_max_bytes"] = facts.persisting_l2_max_bytes;
    api["shared_per_sm_bytes"] = facts.shared_per_sm_bytes;
    api["shared_per_block_bytes"] = facts.shared_per_block_bytes;
    api["shared_per_block_optin_bytes"] = facts.shared_per_block_optin_bytes;
    api["reserved_shared_per_block_bytes"] = facts.reserved_shared_per_block_bytes;
    api["constant_bytes"] = facts.constant_bytes;
    api["global_bytes"] = facts.global_bytes;
    api["max_threads_per_sm"] = facts.max_threads_per_sm;
    api["registers_per_sm"] = facts.registers_per_sm;
    api["global_l1_cache_supported"] = facts.global_l1_cache_supported;

    const std::string size_method =
        "fine-grained pointer chase, doubling + bisection; largest footprint with < 5% of loads slower than the "
        "all-hit reference (one-sided KS with indifference zone, alpha 1e-3)";
    const std::string none_found = "no capacity limit found up to the search bound";
    auto& caches = p["caches"];
    auto& c_l1 = caches["l1"];
    const bool l1_checked = passed("l1:");
    c_l1["size_bytes"] = size_quantity(l1_max_l1, size_method + ", ld.global.ca, carveout 0%", l1_checked, none_found);
    c_l1["size_bytes_default_carveout"] =
        size_quantity(l1_default, size_method + ", ld.global.ca, carveout left to the driver", l1_checked, none_found);
    c_l1["size_bytes_max_shared_carveout"] =
        size_quantity(l1_max_shared, size_method + ", ld.global.ca, carveout 100%", l1_checked, none_found);
    Json carveouts = Json::array();
    for (const auto& [percent, e] : {std::pair{0, &l1_max_l1}, std::pair{-1, &l1_default}, std::pair{100, &l1_max_shared}}) {
        Json row = Json::object();
        row["carveout_percent"] = percent;
        row["size_bytes"] = e->found ? Json(e->capacity_bytes) : Json();
        carveouts.push_back(std::move(row));
    }
    c_l1["carveouts"] = carveouts;
    c_l1["line_bytes"] = l1_line.line ? profile::quantity(l1_line.line->line_bytes, "bytes", "measured",
                                                          "capacity span at strides 32..512 B: largest stride whose span "
                                                          "equals the smallest stride's",
                                                          l1_line.line->confidence)
                                      : profile::unmeasured("bytes", "capacity span did not grow like a line boundary");
    c_l1["sector_bytes"] =
        l1_fetch.granularity ? profile::quantity(l1_fetch.granularity->bytes, "bytes", "measured",
                                                 "first touch every 8 B of data resident in L2: distance between L1 misses",
                                                 l1_fetch.granularity->confidence)
                             : profile::unmeasured("bytes", "first-touch pattern had no slow/fast structure");
    c_l1["latency_cycles"] = latency_json(l1_latency.summary, l1_latency.footprint_bytes, clock_khz,
                                          "ld.global.ca pointer chase, 16 KiB ring, timer overhead subtracted");

    auto& c_shared = caches["shared"];
    c_shared["size_bytes"] = api_quantity(double(facts.shared_per_sm_bytes), "bytes");
    c_shared["per_block_optin_bytes"] = api_quantity(double(facts.shared_per_block_optin_bytes), "bytes");
    c_shared["latency_cycles"] = latency_json(shared_latency.summary, shared_latency.footprint_bytes, clock_khz,
                                              "ld.shared pointer chase, 16 KiB ring, timer overhead subtracted");

    auto& c_l2 = caches["l2"];
    const bool l2_checked = passed("l2:");
    c_l2["size_bytes"] = api_quantity(double(facts.l2_bytes), "bytes");
    c_l2["near_size_bytes"] = size_quantity(l2_near, size_method + ", ld.global.cg", l2_checked, none_found);
    c_l2["line_bytes"] = l2_line.line ? profile::quantity(l2_line.line->line_bytes, "bytes", "measured",
                                                          "near-capacity span at strides 64..256 B",
                                                          l2_line.line->confidence)
                                      : profile::unmeasured("bytes", "capacity span did not grow like a line boundary");
    c_l2["sector_bytes"] =
        l2_fetch.granularity ? profile::quantity(l2_fetch.granularity->bytes, "bytes", "measured",
                                                 "first touch every 8 B after flushing L2: distance between DRAM fetches",
                                                 l2_fetch.granularity->confidence)
                             : profile::unmeasured("bytes", "first-touch pattern had no slow/fast structure");
    c_l2["near_latency_cycles"] = latency_json(l2_latency.summary, l2_latency.footprint_bytes, clock_khz,
                                               "ld.global.cg pointer chase, 4 MiB ring, timer overhead subtracted");
    c_l2["far_latency_cycles"] =
        levels.l2_far ? latency_json(levels.l2_far->latency, levels.l2_far->last_bytes, clock_khz,
                                     "plateau of the hierarchy curve after the near-L2 plateau, inside the API's L2 size")
                      : profile::unmeasured("cycles", "the latency curve shows no second plateau inside L2");

    auto& c_dram = caches["dram"];
    c_dram["size_bytes"] = api_quantity(double(facts.global_bytes), "bytes");
    c_dram["latency_cycles"] =
        levels.dram ? latency_json(levels.dram->latency, levels.dram->last_bytes, clock_khz,
                                   "plateau of the hierarchy curve beyond the API's L2 size")
                    : profile::unmeasured("cycles", "the latency curve shows no plateau beyond L2");
    caches["constant"]["size_bytes"] = api_quantity(double(facts.constant_bytes), "bytes");

    Json check_list = Json::array();
    for (const auto& c : checks) check_list.push_back(c.json());
    p["cross_checks"] = check_list;
    return p;
}

}  // namespace gpu_topology::benchmarks

#include "topology.hpp"

#include "../analysis/hierarchy.hpp"
#include "../profile/profile.hpp"
#include "../version.hpp"
#include "cache_family.hpp"
#include "entries.hpp"
#include "questions.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>

namespace gpu_topology::benchmarks {
namespace {

using kernels::LoadPath;
constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;

std::vector<std::uint64_t> geometric(std::uint64_t from, std::uint64_t to, int per_doubling, std::uint64_t align) {
    std::vector<std::uint64_t> sizes;
    for (double s = double(from); s <= double(to) * 1.0001; s *= std::pow(2.0, 1.0 / per_doubling)) {
        const auto v = static_cast<std::uint64_t>(s) / align * align;
        if (sizes.empty() || v > sizes.back()) sizes.push_back(v);
    }
    return sizes;
}

// Every stage of the probe, in the order it runs: the quick level first, so a
// time budget drops the least needed stages. `answers` are the profile paths a
// stage fills (prefixes); when it is skipped they are marked unmeasured with why.
struct StageInfo {
    std::string_view name;
    Level level;
    std::array<std::string_view, 3> answers;
};
constexpr std::array kStages{
    StageInfo{"warm-up", Level::quick, {}},
    StageInfo{"l2 fetch granularity and latencies", Level::quick,
              {"caches.l2.sector_bytes", "caches.l2.near_latency_cycles", "caches.shared.latency_cycles"}},
    StageInfo{"hierarchy curve", Level::quick,
              {"caches.l2.far_latency_cycles", "caches.l2.miss_penalty_cycles", "caches.dram.latency_cycles"}},
    StageInfo{"l1 size", Level::quick, {"caches.l1.size_bytes"}},
    StageInfo{"l1 path", Level::quick, {"caches.l1."}},
    StageInfo{"l2 size", Level::quick, {"caches.l2.near_size_bytes"}},
    StageInfo{"l2 line", Level::quick, {"caches.l2.line_bytes"}},
    StageInfo{"bandwidths", Level::quick, {"caches.l2.bandwidth_bytes_per_s", "caches.dram.bandwidth_bytes_per_s"}},
    StageInfo{"l1 carveouts", Level::full, {"caches.l1.size_bytes_max_shared_carveout"}},
    StageInfo{"texture readonly", Level::full, {"caches.texture.", "caches.readonly."}},
    StageInfo{"constant caches", Level::full, {"caches.constant_l1.", "caches.constant_l15."}},
    StageInfo{"sharing", Level::full, {"sharing."}},
    StageInfo{"random order", Level::full, {}},
};

// Runs or skips stages (by level, time budget and prerequisites), times the
// ones that run and remembers why the others did not.
class Stages {
public:
    Stages(const ProbeOptions& options, std::chrono::steady_clock::time_point started)
        : options_(options), started_(started) {}

    // True when `name` should run now; otherwise records why not. `unmet` names
    // a missing prerequisite (empty: none).
    bool begin(std::string_view name, const std::string& unmet = {}) {
        const StageInfo& info = find(name);
        const double elapsed = seconds_since(started_);
        std::string why;
        if (options_.level == Level::quick && info.level == Level::full)
            why = "not part of the quick level";
        else if (options_.budget_seconds && elapsed >= *options_.budget_seconds)
            why = "time budget of " + profile::format_number(*options_.budget_seconds) + " s spent (" +
                  profile::format_number(std::round(elapsed * 100) / 100) + " s elapsed)";
        else if (!unmet.empty())
            why = unmet;
        if (!why.empty()) {
            skipped_.push_back({std::string(name), why});
            return false;
        }
        name_ = name;
        stage_start_ = std::chrono::steady_clock::now();
        return true;
    }
    void end() {
        Json stage = Json::object();
        stage["name"] = std::string(name_);
        stage["seconds"] = std::round(seconds_since(stage_start_) * 1000) / 1000;
        timings_.push_back(std::move(stage));
    }
    bool ran(std::string_view name) const {
        for (const auto& t : timings_.as_array())
            if (t.find("name")->as_string() == name) return true;
        return false;
    }

    Json timings() const { return timings_; }
    Json skipped() const {
        Json list = Json::array();
        for (const auto& [name, why] : skipped_) {
            Json s = Json::object();
            s["name"] = name;
            s["reason"] = why;
            list.push_back(std::move(s));
        }
        return list;
    }
    // Marks what each skipped stage would have answered as unmeasured, saying why.
    void mark_skipped(Json& profile) const {
        for (const auto& [name, why] : skipped_) {
            const auto& answers = find(name).answers;
            profile::mark_absent_unmeasured(profile, "skipped: stage '" + name + "' (" + why + ")",
                                            [&](std::string_view path) {
                                                return std::any_of(answers.begin(), answers.end(), [&](auto prefix) {
                                                    return !prefix.empty() && path.substr(0, prefix.size()) == prefix;
                                                });
                                            });
        }
    }

private:
    static double seconds_since(std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    static const StageInfo& find(std::string_view name) {
        for (const auto& s : kStages)
            if (s.name == name) return s;
        throw std::logic_error("unknown probe stage " + std::string(name));
    }

    const ProbeOptions& options_;
    std::chrono::steady_clock::time_point started_;
    std::string_view name_;
    std::chrono::steady_clock::time_point stage_start_;
    Json timings_ = Json::array();
    std::vector<std::pair<std::string, std::string>> skipped_;
};

// Carveouts at which L1 is sized: the ends, steps between and the driver's default (-1).
// The quick level sizes max L1 and the driver's choice; the full level adds the rest.
constexpr int kCarveouts[] = {0, 10, 25, 40, 50, 60, 75, 90, 100, -1};
constexpr int kQuickCarveouts[] = {0, -1};

std::string carveout_name(int percent) { return percent < 0 ? "default" : std::to_string(percent); }

}  // namespace

std::string_view to_string(Level level) { return level == Level::quick ? "quick" : "full"; }

std::optional<Level> level_from_string(std::string_view text) {
    if (text == "quick") return Level::quick;
    if (text == "full") return Level::full;
    return std::nullopt;
}

Json measure_topology(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress) {
    const auto started = std::chrono::steady_clock::now();
    const std::uint64_t l2 = static_cast<std::uint64_t>(facts.l2_bytes);
    Stages stages(options, started);

    // One buffer for everything: rings up to 2.5x L2, a region to evict L2 with,
    // and fresh regions for first touches.
    const std::size_t evict_offset = 64 * MiB;
    const std::size_t buffer_bytes = evict_offset + std::max<std::size_t>(5 * l2 / 2, 2 * l2) + 64 * MiB;
    const std::size_t fresh = buffer_bytes - 32 * MiB;  // never chased through an L1 before its first touch
    kernels::ChaseEngine engine(facts.index, buffer_bytes);
    SweepRunner runner(engine, options.raw_dir, options.pace);
    if (options.raw_dir) std::filesystem::create_directories(*options.raw_dir);

    double overhead = 0;
    if (stages.begin("warm-up")) {
        progress.step("warming up the SM clock");
        engine.warm_up(250);
        overhead = runner.calibrate_overhead();
        progress.done("timer overhead " + std::to_string(int(std::round(overhead))) + " cycles");
        stages.end();
    }

    // --- L2 fetch granularity, shared memory and L2 latency --------------------
    std::optional<GranularityAnswer> l2_fetch;
    std::optional<LatencyAnswer> shared_latency, l2_latency;
    if (stages.begin("l2 fetch granularity and latencies")) {
        progress.step("L2 fetch granularity from DRAM");
        l2_fetch = measure_fetch_granularity(runner, LoadPath::l2, fresh + 16 * MiB, "l2_first_touch", evict_offset, 2 * l2);
        progress.done(l2_fetch->granularity ? std::to_string(l2_fetch->granularity->bytes) + " B" : "not found");
        progress.step("shared memory latency");
        shared_latency = measure_latency(runner,
                                         {.name = "shared_latency", .path = LoadPath::shared, .stride_bytes = 64,
                                          .samples = 2048, .min_timed_steps = 4096},
                                         16 * KiB);
        progress.done(cycles(shared_latency->summary));
        progress.step("L2 near hit latency");
        l2_latency = measure_latency(runner,
                                     {.name = "l2_near_latency", .path = LoadPath::l2, .stride_bytes = 128,
                                      .samples = 2048, .min_timed_steps = 4096},
                                     4 * MiB);
        progress.done(cycles(l2_latency->summary));
        stages.end();
    }

    // --- one curve through every level -----------------------------------------
    analysis::Hierarchy levels;
    if (stages.begin("hierarchy curve")) {
        progress.step("latency curve 8 KiB .. 2.5 x L2 (L1 path)");
        const auto curve = runner.run({.name = "hierarchy", .path = LoadPath::l1, .stride_bytes = 128, .samples = 512},
                                      geometric(8 * KiB, 5 * l2 / 2, 4, 128));
        levels = analysis::interpret_hierarchy(curve, l2, true);
        progress.done(std::to_string(levels.change_points.size()) + " change points in " +
                      std::to_string(curve.points.size()) + " footprints");
        for (const auto& cp : levels.change_points)
            progress.note("  level change between " + kib(cp.last_before_bytes) + " and " + kib(cp.first_after_bytes) +
                          " (KS D " + profile::format_number(std::round(cp.test.statistic * 100) / 100) + ")");
        stages.end();
    }

    // --- L1 capacity per carveout ----------------------------------------------
    const std::uint64_t l1_max = 4 * (static_cast<std::uint64_t>(facts.shared_per_sm_bytes) + 64 * KiB);
    auto l1_question = [&](int carveout, Order order, const std::string& name) {
        return unified_l1_size_question(LoadPath::l1, carveout, order, name, l1_max);
    };
    std::map<int, analysis::CapacityEstimate> l1_at;
    auto size_l1_at = [&](int carveout) {
        progress.step("L1 size, carveout " + carveout_name(carveout) + (carveout >= 0 ? "%" : ""));
        l1_at[carveout] =
            measure_capacity(runner, l1_question(carveout, Order::sequential, "l1_size_carveout" + carveout_name(carveout)));
        progress.done(l1_at[carveout].found ? kib(l1_at[carveout].capacity_bytes) : "not found");
    };
    if (stages.begin("l1 size")) {
        for (int carveout : kQuickCarveouts) size_l1_at(carveout);
        stages.end();
    }

    // --- the unified L1 paths: L1 data, texture, read-only -----------------------
    auto unified_plan = [&](std::size_t row) {
        return FamilyPlan{.max_l1_bytes = l1_max, .fresh_offset = fresh + row * MiB, .miss_bytes = 4 * MiB,
                          .carveout_percent = 0};
    };
    std::vector<CacheResult> unified;  // l1 first when measured
    if (stages.begin("l1 path")) {
        const auto known = l1_at.count(0) ? std::optional(l1_at[0]) : std::nullopt;
        unified.push_back(measure_unified_l1_path(runner, kUnifiedL1Paths[0], unified_plan(0), progress, known));
        stages.end();
    }
    const CacheResult* l1 = !unified.empty() && unified.front().key == "l1" ? &unified.front() : nullptr;

    // --- L2 near capacity and line ----------------------------------------------
    auto l2_question = [&](Order order, const char* name) {
        return CapacityQuestion{{.name = name, .path = LoadPath::l2, .stride_bytes = 128, .order = order, .samples = 1024},
                                2 * MiB, 256 * KiB, 3 * l2 / 2};
    };
    std::optional<analysis::CapacityEstimate> l2_near;
    if (stages.begin("l2 size")) {
        progress.step("L2 near capacity");
        l2_near = measure_capacity(runner, l2_question(Order::sequential, "l2_near_size"));
        progress.done(kib(l2_near->capacity_bytes));
        stages.end();
    }
    std::optional<LineAnswer> l2_line;
    if (stages.begin("l2 line", l2_near && l2_near->found ? "" : "needs the L2 near capacity")) {
        progress.step("L2 line (capacity span per stride)");
        l2_line = measure_line(runner, l2_question(Order::sequential, "l2_span"), {64, 128, 256},
                               analysis::StrideSpan{128, l2_near->capacity_bytes});
        progress.done(l2_line->line ? std::to_string(l2_line->line->line_bytes) + " B" : "not found");
        stages.end();
    }

    // --- read bandwidths, every SM at once ------------------------------------------
    // L2: a region half the near capacity (a quarter of the API's L2 without it),
    // read again and again; DRAM: four times the L2, streamed. About 4 GiB per run.
    std::optional<BandwidthAnswer> l2_bandwidth, dram_bandwidth;
    if (stages.begin("bandwidths")) {
        constexpr double kBytesPerRun = 4.0 * 1024 * MiB;
        const std::size_t l2_region = (l2_near && l2_near->found ? l2_near->capacity_bytes / 2 : l2 / 4) / MiB * MiB;
        const std::size_t dram_region = std::min<std::size_t>(4 * l2, fresh) / MiB * MiB;
        progress.step("L2 read bandwidth (" + kib(l2_region) + " region)");
        l2_bandwidth = measure_read_bandwidth(engine, 0, l2_region, unsigned(std::ceil(kBytesPerRun / double(l2_region))));
        progress.done(profile::format_number(std::round(l2_bandwidth->median / 1e10) / 100) + " TB/s");
        progress.step("DRAM read bandwidth (" + kib(dram_region) + " region)");
        dram_bandwidth =
            measure_read_bandwidth(engine, 0, dram_region, unsigned(std::ceil(kBytesPerRun / double(dram_region))));
        progress.done(profile::format_number(std::round(dram_bandwidth->median / 1e10) / 100) + " TB/s");
        stages.end();
    }

    // --- the full level ----------------------------------------------------------
    if (stages.begin("l1 carveouts")) {
        for (int carveout : kCarveouts)
            if (!l1_at.count(carveout)) size_l1_at(carveout);
        stages.end();
    }
    if (stages.begin("texture readonly")) {
        for (std::size_t i = 1; i < kUnifiedL1Paths.size(); ++i)
            unified.push_back(measure_unified_l1_path(runner, kUnifiedL1Paths[i], unified_plan(i), progress,
                                                      std::nullopt));
        stages.end();
    }
    std::vector<CacheResult> constant;
    if (stages.begin("constant caches")) {
        for (auto& c : measure_constant_caches(runner, progress)) constant.push_back(std::move(c));
        stages.end();
    }
    std::optional<std::vector<SharingResult>> sharing;
    std::vector<const CacheResult*> candidates;
    for (const auto& c : unified) candidates.push_back(&c);
    if (!constant.empty()) candidates.push_back(&constant[0]);
    if (stages.begin("sharing", candidates.size() >= 2 ? "" : "needs two measured caches")) {
        sharing = measure_sharing(runner, candidates, 0, progress);
        stages.end();
    }
    std::optional<analysis::CapacityEstimate> l1_random, l2_near_random;
    if (stages.begin("random order")) {
        progress.step("L1 size, carveout 0%, random order");
        l1_random = measure_capacity(runner, l1_question(0, Order::random, "l1_size_carveout0_random"));
        progress.done(kib(l1_random->capacity_bytes));
        progress.step("L2 near capacity, random order");
        l2_near_random = measure_capacity(runner, l2_question(Order::random, "l2_near_size_random"));
        progress.done(kib(l2_near_random->capacity_bytes));
        stages.end();
    }

    const double clock_khz = runner.measured_clock_khz();

    // --- cross-checks: each size by a second, independent measurement ---------
    // Each needs both of its measurements; a skipped stage drops the checks it feeds.
    std::vector<CrossCheck> checks;
    const auto measured = [&](int carveout) { return l1_at.count(carveout) ? &l1_at[carveout] : nullptr; };
    const auto* l1_max_l1 = measured(0);
    const auto* l1_default = measured(-1);
    const auto* l1_max_shared = measured(100);
    const double api_shared = double(facts.shared_per_sm_bytes);
    const auto l1_tolerance = l1_max_l1 ? std::max(0.02 * double(l1_max_l1->capacity_bytes), 2.0 * KiB) : 0.0;
    if (l1_max_l1 && l1_max_shared)
        checks.push_back({"l1: max-L1 minus max-shared carveout = API shared memory per SM", api_shared,
                          double(l1_max_l1->capacity_bytes) - double(l1_max_shared->capacity_bytes), 0.08 * api_shared,
                          "moving the carveout from 0% to 100% must shrink L1 by the shared memory it gives away "
                          "(less the smallest shared configuration)"});
    if (l1_max_l1 && l1_random)
        checks.push_back({"l1: random order agrees with sequential", double(l1_max_l1->capacity_bytes),
                          double(l1_random->capacity_bytes), l1_tolerance, "same carveout, ring visited in random order"});
    if (l1 && l1_max_l1)
        for (const auto& span : l1->line.spans)
            if (span.stride_bytes == 64)
                checks.push_back({"l1: stride 64 B agrees with stride 128 B", double(l1_max_l1->capacity_bytes),
                                  double(span.span_bytes), std::max(0.02 * double(l1_max_l1->capacity_bytes), 4.0 * KiB),
                                  "same carveout, every second sector of each line touched"});
    if (levels.l1 && l1_default)
        checks.push_back({"l1: hierarchy curve knee agrees with the default-carveout search",
                          double(l1_default->capacity_bytes), double(levels.l1->last_bytes),
                          0.2 * double(l1_default->capacity_bytes),
                          "independent sweep at 4 points per doubling; tolerance one curve step"});
    if (l1_max_l1)
        for (const auto& c : unified)
            if (c.key != "l1")
                checks.push_back({c.key + ": capacity agrees with L1 data at the same carveout",
                                  double(l1_max_l1->capacity_bytes), double(c.size_bytes()), l1_tolerance,
                                  "one unified L1 storage serves ld.global.ca, tex1Dfetch and ld.global.nc"});
    const double l2_tolerance = l2_near ? std::max(0.03 * double(l2_near->capacity_bytes), 512.0 * KiB) : 0.0;
    if (l2_near && l2_near_random)
        checks.push_back({"l2: random order agrees with sequential", double(l2_near->capacity_bytes),
                          double(l2_near_random->capacity_bytes), l2_tolerance, "ring visited in random order"});
    if (l2_near && l2_line)
        for (const auto& span : l2_line->spans)
            if (span.stride_bytes == 64)
                checks.push_back({"l2: stride 64 B agrees with stride 128 B", double(l2_near->capacity_bytes),
                                  double(span.span_bytes), l2_tolerance, "two sectors of each line touched"});
    if (levels.l2_near && l2_near)
        checks.push_back({"l2: hierarchy curve near plateau agrees with the near-capacity search",
                          double(l2_near->capacity_bytes), double(levels.l2_near->last_bytes),
                          0.2 * double(l2_near->capacity_bytes), "tolerance one curve step"});
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
    probe["level"] = std::string(to_string(options.level));
    probe["pace"] = options.pace == Pace::fast ? "fast" : "careful";
    if (options.budget_seconds) probe["budget_s"] = *options.budget_seconds;
    probe["cuda_runtime"] = facts.runtime_version;
    probe["driver"] = facts.driver_version;
    probe["stages"] = stages.timings();
    probe["skipped_stages"] = stages.skipped();
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

    const std::string& size_method = kSizeMethod;
    const auto* sharing_found = sharing ? &*sharing : nullptr;
    auto& caches = p["caches"];
    for (const auto& c : unified) caches[c.key] = cache_entry(c, sharing_found, clock_khz, all_passed(checks, c.key + ":"));
    for (const auto& c : constant) caches[c.key] = cache_entry(c, sharing_found, clock_khz, true);

    auto& c_l1 = caches["l1"];
    const bool l1_checked = all_passed(checks, "l1:");
    if (l1_max_l1 && !l1) c_l1["size_bytes"] = size_entry(*l1_max_l1, size_method + ", ld.global.ca, carveout 0%", l1_checked);
    if (l1_default)
        c_l1["size_bytes_default_carveout"] =
            size_entry(*l1_default, size_method + ", ld.global.ca, carveout left to the driver", l1_checked);
    if (l1_max_shared)
        c_l1["size_bytes_max_shared_carveout"] =
            size_entry(*l1_max_shared, size_method + ", ld.global.ca, carveout 100%", l1_checked);
    Json carveouts = Json::array();
    for (int carveout : kCarveouts) {
        const auto* at = measured(carveout);
        if (!at) continue;
        Json row = Json::object();
        row["carveout_percent"] = carveout;
        row["size_bytes"] = at->found ? Json(at->capacity_bytes) : Json();
        row["api_available_dynamic_shared_bytes"] = engine.available_dynamic_shared(carveout);
        carveouts.push_back(std::move(row));
    }
    if (!carveouts.as_array().empty()) c_l1["carveouts"] = carveouts;

    auto& c_shared = caches["shared"];
    c_shared["size_bytes"] = api_quantity(double(facts.shared_per_sm_bytes), "bytes");
    c_shared["per_block_optin_bytes"] = api_quantity(double(facts.shared_per_block_optin_bytes), "bytes");
    if (shared_latency)
        c_shared["latency_cycles"] = latency_entry(shared_latency->summary, shared_latency->footprint_bytes, clock_khz,
                                                   "ld.shared pointer chase, 16 KiB ring, timer overhead subtracted");

    auto& c_l2 = caches["l2"];
    c_l2["size_bytes"] = api_quantity(double(facts.l2_bytes), "bytes");
    if (l2_near) c_l2["near_size_bytes"] = size_entry(*l2_near, size_method + ", ld.global.cg", all_passed(checks, "l2:"));
    if (l2_line) c_l2["line_bytes"] = line_entry(l2_line->line, l2_line->spans, "near-capacity span at strides 64..256 B");
    if (l2_fetch)
        c_l2["sector_bytes"] = granularity_entry(
            l2_fetch->granularity, "first touch every 8 B after evicting L2: distance between DRAM fetches");
    if (l2_latency)
        c_l2["near_latency_cycles"] = latency_entry(l2_latency->summary, l2_latency->footprint_bytes, clock_khz,
                                                    "ld.global.cg pointer chase, 4 MiB ring, timer overhead subtracted");
    const bool have_curve = stages.ran("hierarchy curve");
    if (have_curve) {
        c_l2["far_latency_cycles"] =
            levels.l2_far
                ? latency_entry(levels.l2_far->latency, levels.l2_far->last_bytes, clock_khz,
                                "plateau of the hierarchy curve after the near-L2 plateau, inside the API's L2 size")
                : profile::unmeasured("cycles", "the latency curve shows no second plateau inside L2");
        c_l2["miss_penalty_cycles"] =
            levels.dram && l2_latency
                ? penalty_entry(l2_latency->summary, levels.dram->latency,
                                "DRAM plateau of the hierarchy curve minus near-L2 hit latency, medians")
                : profile::unmeasured("cycles", "the latency curve shows no plateau beyond L2");
    }

    const auto bandwidth_entry = [](const BandwidthAnswer& b, const std::string& what) {
        auto q = profile::quantity(std::round(b.median), "bytes/s", "measured",
                                   "every SM, 16 B ld.global.cg loads in address order over " + kib(b.region_bytes) +
                                       ", " + std::to_string(b.passes) + " passes per run; median of " +
                                       std::to_string(b.bytes_per_s.size()) + " runs (" + what + ")",
                                   0.95);
        q["min"] = std::round(*std::min_element(b.bytes_per_s.begin(), b.bytes_per_s.end()));
        q["max"] = std::round(*std::max_element(b.bytes_per_s.begin(), b.bytes_per_s.end()));
        return q;
    };
    if (l2_bandwidth) c_l2["bandwidth_bytes_per_s"] = bandwidth_entry(*l2_bandwidth, "the region stays in L2");
    auto& c_dram = caches["dram"];
    if (dram_bandwidth) c_dram["bandwidth_bytes_per_s"] = bandwidth_entry(*dram_bandwidth, "four L2 sizes: from DRAM");
    c_dram["size_bytes"] = api_quantity(double(facts.global_bytes), "bytes");
    if (have_curve)
        c_dram["latency_cycles"] =
            levels.dram ? latency_entry(levels.dram->latency, levels.dram->last_bytes, clock_khz,
                                        "plateau of the hierarchy curve beyond the API's L2 size")
                        : profile::unmeasured("cycles", "the latency curve shows no plateau beyond L2");
    caches["constant"]["size_bytes"] = api_quantity(double(facts.constant_bytes), "bytes");

    if (sharing) {
        auto& shared_storage = p["sharing"];
        for (const auto& s : *sharing)
            shared_storage[s.a + "_" + s.b] = sharing_entry(
                s.decision, "eviction test in one block on one SM: warm half of the smaller cache once through its "
                            "path, chase 1.5 times the larger cache twice through the other path, time the first again");
    }

    Json check_list = Json::array();
    for (const auto& c : checks) check_list.push_back(c.json());
    p["cross_checks"] = check_list;
    stages.mark_skipped(p);
    profile::mark_absent_unmeasured(p, "not measured: a quantity it depends on was not found");
    return p;
}

}  // namespace gpu_topology::benchmarks

#include "stages.hpp"

#include "version.hpp"
#include "reference_monitor.hpp"
#include "util/json.hpp"
#include "probe_context.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gpu_topology::stages {

using model::id;
using model::kQuantities;
using model::QuantityId;

// clang-format off
constexpr std::array<Stage, 16> kStages{{
    {"warm-up", Level::quick, {kNoNeed, kNoNeed}, run_warm_up},
    {"latencies", Level::quick, {kNoNeed, kNoNeed}, run_latencies},
    {"hierarchy curve", Level::quick, {kNoNeed, kNoNeed}, run_hierarchy_curve},
    {"l1 size", Level::quick, {kNoNeed, kNoNeed}, run_l1_size},
    {"l1 path", Level::quick, {kNoNeed, kNoNeed}, run_l1_path},
    {"l2 size", Level::quick, {kNoNeed, kNoNeed}, run_l2_size},
    {"l2 line", Level::quick, {id("L2_NEAR_SIZE_BYTES"), kNoNeed}, run_l2_line},
    {"bandwidths", Level::quick, {kNoNeed, kNoNeed}, run_bandwidths},
    {"l1 carveouts", Level::full, {id("L1_SIZE_BYTES"), kNoNeed}, run_l1_carveouts},
    {"texture readonly", Level::full, {kNoNeed, kNoNeed}, run_texture_readonly},
    {"constant caches", Level::full, {kNoNeed, kNoNeed}, run_constant_caches},
    {"sharing", Level::full, {id("L1_SIZE_BYTES"), id("CONSTANT_L1_SIZE_BYTES")}, run_sharing},
    {"random order", Level::full, {id("L1_SIZE_BYTES"), id("L2_NEAR_SIZE_BYTES")}, run_random_order},
    {"shared banks", Level::full, {kNoNeed, kNoNeed}, run_shared_banks},
    {"dsmem", Level::full, {kNoNeed, kNoNeed}, run_dsmem},
    {"tlb", Level::full, {kNoNeed, kNoNeed}, run_tlb},
}};
// clang-format on

namespace {

// Every quantity names a stage of the table, "api", or "-" with the reason no stage measures it.
constexpr bool stages_are_consistent() {
    for (const auto& q : kQuantities) {
        const bool staged = std::any_of(kStages.begin(), kStages.end(), [&](const Stage& s) { return s.name == q.stage; });
        if (q.stage == "-" ? q.not_measured.empty() : !(staged || q.stage == "api")) return false;
    }
    return true;
}
static_assert(stages_are_consistent(), "a quantity names a stage that kStages does not have");

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

bool yields(const Stage& stage, QuantityId q) { return kQuantities[q].stage == stage.name; }

// Why `stage` cannot run now; empty when it can.
std::string why_not(const Stage& stage, const ProbeContext& ctx, double elapsed) {
    if (ctx.options.level == Level::quick && stage.level == Level::full) return "not part of the quick level";
    if (ctx.options.budget_seconds && elapsed >= *ctx.options.budget_seconds)
        return "time budget of " + util::format_number(*ctx.options.budget_seconds) + " s spent (" +
               util::format_number(std::round(elapsed * 100) / 100) + " s elapsed)";
    for (const QuantityId q : stage.needs) {
        if (q == kNoNeed) continue;
        if (!ctx.topology.value(q)) {
            const auto* r = ctx.topology.get(q);
            const auto* u = r ? std::get_if<model::Unmeasured>(r) : nullptr;
            return "needs " + std::string(kQuantities[q].name) + ", which is unmeasured" +
                   (u ? " (" + u->reason + ")" : "");
        }
    }
    return {};
}

// Forgets what a disturbed attempt of `stage` measured, before it runs again
// (its quantities and cross-checks; records a stage owns, the carveout table
// and the curve, it sets whole each time it runs).
void forget(const Stage& stage, ProbeContext& ctx) {
    ctx.topology.forget([&](QuantityId q) { return yields(stage, q); });
    std::erase_if(ctx.topology.cross_checks, [&](const model::CrossCheck& c) { return c.stage == stage.name; });
}

// Asks every monitor what it saw.
struct Watch {
    Monitor& external;
    ReferenceMonitor reference;
    std::vector<std::string> look() {
        auto seen = external.disturbances();
        for (auto& d : reference.disturbances()) seen.push_back(std::move(d));
        return seen;
    }
};

// Runs one stage; measures it again when a monitor saw other work during it
// and the GPU is quiet again (at most max_attempts times in all: waiting out a
// process that keeps running would only double the time).
void run_stage(const Stage& stage, ProbeContext& ctx, Watch& monitor) {
    const auto started = std::chrono::steady_clock::now();
    ctx.stage = std::string(stage.name);
    std::vector<std::string> seen = monitor.look();  // before: other work already running
    std::uint32_t attempt = 1;
    for (;; ++attempt) {
        stage.run(ctx);
        for (auto& d : monitor.look()) seen.push_back(std::move(d));
        if (seen.empty() || attempt >= ctx.options.max_attempts) break;
        const auto now = monitor.look();
        if (!now.empty()) break;  // still busy: measuring again would not help
        ctx.topology.conditions.events.push_back("stage '" + std::string(stage.name) + "', attempt " +
                                                 std::to_string(attempt) + ": " + seen.front() +
                                                 "; the GPU is quiet again, measuring again");
        ++ctx.topology.conditions.retries;
        forget(stage, ctx);
        seen.clear();
    }
    // What the list says this stage yields and it did not set is a bug of the stage, not a missing input.
    ctx.topology.mark_absent("stage '" + std::string(stage.name) + "' ran and set nothing for it (a probe bug)",
                             [&](QuantityId q) { return yields(stage, q); });
    if (!seen.empty()) {
        ctx.topology.conditions.quiet = false;
        const std::string why = "the GPU was busy with other work during stage '" + std::string(stage.name) +
                                "' (" + seen.front() + ")";
        ctx.topology.conditions.events.push_back(why + "; not vouched for");
        for (QuantityId q = 0; q < kQuantities.size(); ++q)
            if (yields(stage, q)) ctx.topology.doubt(q, why, 0.25);
    }
    ctx.topology.probe.stages.push_back({std::string(stage.name), seconds_since(started), attempt});
}

void record_api_facts(model::Topology& t, const DeviceFacts& f) {
    const auto api = [&](std::string_view name, double value) { t.set(model::find(name), model::api_value(value)); };
    t.set(model::kSmCount, model::api_value(f.sm_count));
    t.set(model::kCcMajor, model::api_value(f.cc_major));
    t.set(model::kCcMinor, model::api_value(f.cc_minor));
    api("SM_CLOCK_MAX_KHZ", double(f.sm_clock_max_khz));
    api("MAX_THREADS_PER_SM", double(f.max_threads_per_sm));
    api("MAX_BLOCKS_PER_SM", double(f.max_blocks_per_sm));
    api("REGISTERS_PER_SM", double(f.registers_per_sm));
    api("CONSTANT_SIZE_BYTES", double(f.constant_bytes));
    api("SHARED_SIZE_PER_SM_BYTES", double(f.shared_per_sm_bytes));
    api("SHARED_PER_BLOCK_OPTIN_BYTES", double(f.shared_per_block_optin_bytes));
    api("SHARED_RESERVED_PER_BLOCK_BYTES", double(f.reserved_shared_per_block_bytes));
    api("L2_SIZE_BYTES", double(f.l2_bytes));
    api("L2_PERSISTING_MAX_BYTES", double(f.persisting_l2_max_bytes));
    api("DRAM_SIZE_BYTES", double(f.global_bytes));
}

}  // namespace

std::string_view to_string(Level level) { return level == Level::quick ? "quick" : "full"; }

std::optional<Level> level_from_string(std::string_view text) {
    if (text == "quick") return Level::quick;
    if (text == "full") return Level::full;
    return std::nullopt;
}

void ProbeContext::cross_check(model::CrossCheck c) {
    c.stage = stage;  // so a repeated stage replaces its checks
    topology.cross_checks.push_back(std::move(c));
}

model::Topology measure_topology(kernels::Engine& engine, const DeviceFacts& facts, const ProbeOptions& options,
                                 Progress& progress, Monitor& monitor) {
    const auto started = std::chrono::steady_clock::now();
    model::Topology topology;
    SweepRunner runner(engine, options.raw_dir, options.pace);
    if (options.raw_dir) std::filesystem::create_directories(*options.raw_dir);
    ProbeContext ctx{engine, runner, facts, options, progress, topology, BufferLayout(facts.l2_bytes, facts.global_bytes), {}, {}};
    topology.device = {facts.index, facts.name, facts.uuid};
    Watch watch{monitor, ReferenceMonitor(engine, 0.25, options.quiet_reference_seconds)};
    topology.conditions.monitor = monitor.description() + "; " + watch.reference.description();
    record_api_facts(topology, facts);

    for (const Stage& stage : kStages) {
        const std::string why = why_not(stage, ctx, seconds_since(started));
        if (why.empty()) {
            run_stage(stage, ctx, watch);
            continue;
        }
        topology.probe.skipped.push_back({std::string(stage.name), why});
        topology.mark_absent("skipped: stage '" + std::string(stage.name) + "' (" + why + ")",
                             [&](QuantityId q) { return yields(stage, q); });
    }

    const double clock_khz = runner.measured_clock_khz();
    if (clock_khz > 0) {
        topology.set(model::kSmClockKhz,
                     model::Estimate{.value = std::round(clock_khz), .method = "clock64 cycles / globaltimer ns over "
                                                                               "all timed chases",
                                     .confidence = 1});
        // Taken over every chase, the disturbed stages' among them.
        if (!topology.conditions.quiet)
            topology.doubt(model::kSmClockKhz, "averaged over chases of stages the GPU was busy during", 0.25);
    }
    for (const auto& c : topology.cross_checks)
        progress.note(std::string(c.passed() ? "cross-check ok:     " : "cross-check FAILED: ") + c.name + " (expected " +
                      util::format_number(std::round(c.expected)) + ", measured " +
                      util::format_number(std::round(c.measured)) + ")");
    topology.conditions.reference_work_seconds = watch.reference.fastest_seen();
    // Again at the end: a monitor that could not answer some look says so in its description.
    topology.conditions.monitor = monitor.description() + "; " + watch.reference.description();
    topology.apply_cross_checks();
    topology.enforce_relations();
    for (QuantityId q = 0; q < kQuantities.size(); ++q)
        if (!kQuantities[q].not_measured.empty()) topology.set(q, model::unmeasured(std::string(kQuantities[q].not_measured)));
    topology.mark_absent("not measured: a quantity it depends on was not found", [](QuantityId) { return true; });

    auto& p = topology.probe;
    p.version = std::string(kProbeVersion);
    p.level = std::string(to_string(options.level));
    p.pace = options.pace == Pace::fast ? "fast" : "careful";
    p.budget_s = options.budget_seconds;
    p.cuda_runtime = facts.runtime_version;
    p.driver = facts.driver_version;
    p.timer_overhead_cycles = runner.overhead().cycles;
    p.timer_overhead_spread = {runner.overhead().across_launches.p05, runner.overhead().across_launches.p95,
                               static_cast<std::uint32_t>(runner.overhead().across_launches.samples)};
    p.points_measured = runner.points_measured();
    p.duration_s = seconds_since(started);
    return topology;
}

}  // namespace gpu_topology::stages

// Stages: shared-memory banks (one warp's strided accesses), and distributed
// shared memory (a ring in another block's shared memory, and every cluster
// reading its neighbour's). Both run at the full level.
#include "analysis/banks.hpp"
#include "util/json.hpp"
#include "probe_context.hpp"

#include <algorithm>
#include <cmath>

namespace gpu_topology::stages {

using model::id;

namespace {

kernels::SharedAccess strided(std::uint32_t stride_bytes) {
    kernels::SharedAccess access;
    for (std::uint32_t lane = 0; lane < 32; ++lane) access.lane_bytes[lane] = lane * stride_bytes;
    return access;
}

// Three runs of one pattern, each timing's median.
kernels::SharedAccessTiming timed(kernels::Engine& engine, const kernels::SharedAccess& access) {
    std::vector<double> latency, issue;
    for (int run = 0; run < 3; ++run) {
        const auto t = engine.time_shared_access(access);
        latency.push_back(t.latency_cycles);
        issue.push_back(t.issue_cycles);
    }
    return {analysis::median(latency), analysis::median(issue)};
}

// To `decimals` places, as the nearest double to the decimal (the writer then prints the decimal).
double rounded(double value, int decimals = 2) {
    const double scale = std::pow(10.0, decimals);
    return std::round(value * scale) / scale;
}

}  // namespace

void run_shared_banks(ProbeContext& ctx) {
    ctx.progress.step("shared memory banks (one warp, 4-byte words at strides 4 B .. 1 KiB)");
    std::vector<analysis::StridedAccessTiming> timings;
    for (std::uint32_t stride = 4; stride * 31 + 4 <= kernels::kSharedAccessBytes && stride <= 1024; stride *= 2) {
        const auto t = timed(ctx.engine, strided(stride));
        timings.push_back({stride, t.latency_cycles, t.issue_cycles});
    }
    std::vector<analysis::WidthProbe> probes;
    std::vector<std::pair<std::string, double>> details;
    for (const auto& t : timings) {
        details.emplace_back("stride_" + std::to_string(t.stride_bytes) + "_issue_cycles", rounded(t.issue_cycles));
        details.emplace_back("stride_" + std::to_string(t.stride_bytes) + "_latency_cycles", rounded(t.latency_cycles));
    }
    if (const auto row = analysis::bank_row_bytes(timings)) {
        for (std::uint32_t candidate = 8; candidate <= 16; candidate *= 2) {
            const auto offsets = analysis::width_probe_offsets(*row, candidate);
            if (offsets.back() + 4 > kernels::kSharedAccessBytes) break;
            kernels::SharedAccess access;
            std::copy(offsets.begin(), offsets.end(), access.lane_bytes.begin());
            probes.push_back({candidate, timed(ctx.engine, access).issue_cycles});
            details.emplace_back("width_probe_" + std::to_string(candidate) + "_issue_cycles",
                                 rounded(probes.back().issue_cycles));
        }
    }
    const auto geometry = analysis::bank_geometry(timings, probes);
    if (!geometry) {
        const auto why = model::unmeasured("the access cost did not double with the stride and then level off");
        for (const char* q : {"SHARED_BANKS", "SHARED_BANK_BYTES", "SHARED_CONFLICT_LATENCY_CYCLES",
                              "SHARED_CONFLICT_ISSUE_CYCLES"})
            ctx.set(model::find(q), why);
        ctx.progress.done("not found");
        return;
    }
    const auto& g = *geometry;
    const std::string method = "one warp reads 4-byte words at byte strides 4..1024 (lane i at i x stride); ";
    ctx.set(id("SHARED_BANK_BYTES"),
            model::Estimate{.value = double(g.bank_bytes), .method = method + "then lane i at i x row + 4 x (i mod k): 4 B, or the widest 4k whose lanes all stayed in one bank",
                            .confidence = g.confidence, .details = details});
    ctx.set(id("SHARED_BANKS"),
            model::Estimate{.value = double(g.banks),
                            .method = method + "the row (the stride from which doubling no longer adds cost) over the bank width",
                            .confidence = g.confidence});
    ctx.set(id("SHARED_CONFLICT_ISSUE_CYCLES"),
            model::Estimate{.value = std::max(0.0, std::round(g.issue_per_way)),
                            .method = method + "32 warps x 4 independent chains; least-squares slope of cycles per "
                                               "warp-wide access against the ways the bank model predicts",
                            .confidence = std::clamp(g.fit_r2, 0.0, 1.0),
                            .details = {{"slope", rounded(g.issue_per_way)}, {"r2", rounded(g.fit_r2, 3)}}});
    ctx.set(id("SHARED_CONFLICT_LATENCY_CYCLES"),
            model::Estimate{.value = std::max(0.0, std::round(g.latency_per_way)),
                            .method = method + "one warp, dependent accesses; least-squares slope of cycles per access "
                                               "against the predicted ways",
                            .confidence = g.confidence,
                            .details = {{"slope", rounded(g.latency_per_way)}}});
    // The padding rule the header offers: a row pitch of banks + 1 words reads a column conflict-free.
    const std::uint32_t padded = (g.banks + 1) * g.bank_bytes;
    if (padded * 31 + 4 <= kernels::kSharedAccessBytes) {
        const auto column = timed(ctx.engine, strided(padded));
        ctx.cross_check({.name = "shared: a column of a tile padded to banks + 1 words reads without conflict",
                   .expected = timings.front().issue_cycles, .measured = column.issue_cycles,
                   .tolerance = 0.25 * timings.front().issue_cycles + 0.25,
                   .detail = "issue cycles of lane i at i x " + std::to_string(padded) +
                             " B against the conflict-free stride of 4 B",
                   .concerns = {id("SHARED_BANKS"), id("SHARED_BANK_BYTES")}});
    }
    ctx.progress.done(std::to_string(g.banks) + " banks of " + std::to_string(g.bank_bytes) + " B, +" +
                      util::format_number(rounded(g.issue_per_way)) + " issue cycles per way");
}

void run_dsmem(ProbeContext& ctx) {
    ctx.progress.step("distributed shared memory");
    const std::uint32_t largest = ctx.engine.max_cluster_blocks();
    if (largest < 2) {
        const auto why = model::unmeasured(
            largest == 1 ? "the device launches no cluster of two one-block-per-SM blocks"
                         : "no thread block clusters of blocks that each have an SM to themselves: the device is "
                           "older than compute capability 9.0, this probe was built without sm_90 code, or a block "
                           "cannot opt in to 120 KiB of shared memory");
        for (const char* q : {"CLUSTER_MAX_BLOCKS", "DSMEM_LATENCY_CYCLES", "DSMEM_BANDWIDTH_BYTES_PER_S"})
            ctx.set(model::find(q), why);
        ctx.progress.done("no clusters");
        return;
    }
    auto blocks = model::api_value(largest);
    blocks.method = "cudaOccupancyMaxPotentialClusterSize, non-portable sizes allowed, 120 KiB of shared memory a block";
    ctx.set(id("CLUSTER_MAX_BLOCKS"), blocks);

    const double u = ctx.scratch.timer_uncertainty;
    const auto local = ctx.runner.point_from(ctx.engine.chase_cluster_shared(2, 0), 4 * KiB);
    const auto remote = ctx.runner.point_from(ctx.engine.chase_cluster_shared(2, 1), 4 * KiB);
    const auto far = ctx.runner.point_from(ctx.engine.chase_cluster_shared(largest, largest - 1), 4 * KiB);
    const auto local_summary = analysis::summarize(local.cycles);
    const auto remote_summary = analysis::summarize(remote.cycles);
    auto latency = latency_result(remote_summary, remote.cycles, 4 * KiB, u,
                                  "block 1 of a two-block cluster chases a 4 KiB ring in block 0's shared memory "
                                  "(ld.shared::cluster), timer overhead subtracted");
    if (auto* l = std::get_if<model::LatencyEstimate>(&latency))
        l->method += "; block " + std::to_string(largest - 1) + " of a " + std::to_string(largest) +
                     "-block cluster: p50 " + util::format_number(std::round(analysis::summarize(far.cycles).p50));
    ctx.set(id("DSMEM_LATENCY_CYCLES"), latency);
    // The same chase on the own shared memory must read like the shared-memory latency stage.
    if (const auto shared = ctx.topology.value(id("SHARED_LATENCY_CYCLES")))
        ctx.cross_check({.name = "dsmem: a cluster block's own ring reads at the shared-memory latency", .expected = *shared,
                   .measured = local_summary.p50, .tolerance = 0.15 * *shared + 2,
                   .detail = "block 0 chasing its own ring by ld.shared inside the cluster kernel",
                   .concerns = {id("DSMEM_LATENCY_CYCLES")}});

    std::vector<std::pair<std::string, double>> per_size;
    std::vector<double> best_rates;
    std::uint32_t best_size = 0;
    for (std::uint32_t size = 2; size <= largest; size *= 2) {
        // The 1024-thread read kernel may fit smaller clusters than the chase kernel: none ran, stop.
        if (ctx.engine.time_cluster_read(size, true, 16).clusters == 0) break;  // untimed: clock and rings up
        std::vector<double> rates;
        for (int run = 0; run < 3; ++run) {
            const auto read = ctx.engine.time_cluster_read(size, true, 256);
            rates.push_back(double(read.bytes) / read.seconds);
        }
        const double median = analysis::median(rates);
        per_size.emplace_back("cluster_" + std::to_string(size) + "_bytes_per_s", std::round(median));
        if (best_rates.empty() || median > analysis::median(best_rates)) best_rates = rates, best_size = size;
    }
    if (per_size.empty()) {
        ctx.set(id("DSMEM_BANDWIDTH_BYTES_PER_S"),
                model::unmeasured("no cluster of the 1024-thread read kernel could be launched"));
        ctx.progress.done("remote " + cycles(remote_summary) + ", local " + cycles(local_summary) + ", up to " +
                          std::to_string(largest) + " blocks; no cluster read ran");
        return;
    }
    auto bandwidth = bandwidth_result(best_rates, "every block of as many clusters as fit reads 64 KiB of the next "
                                                  "block's shared memory 256 times (ld.shared::cluster.v4, 1024 "
                                                  "threads); the best cluster size (" +
                                                      std::to_string(best_size) + "), median of 3 runs");
    if (auto* e = std::get_if<model::Estimate>(&bandwidth)) e->details = std::move(per_size);
    ctx.set(id("DSMEM_BANDWIDTH_BYTES_PER_S"), bandwidth);
    ctx.progress.done("remote " + cycles(remote_summary) + ", local " + cycles(local_summary) + ", up to " +
                      std::to_string(largest) + " blocks");
}

}  // namespace gpu_topology::stages

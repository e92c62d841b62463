// The simulated engine's timed kernels: reads of every SM at a level's
// ceiling, the reference work, one warp's shared-memory accesses, and the
// cluster kernels.
#include "engine.hpp"

#include "split.hpp"

#include "util/units.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace gpu_topology::simulate {

using kernels::ReadPattern;
using util::KiB;

namespace {

constexpr double kReferenceCycles = 2.4e6;  // the reference work's arithmetic (about a millisecond)
constexpr double kLaunchSeconds = 3e-6;     // before the first block reads
constexpr double kBytesInFlightPerThread = 64;  // four 16-byte loads a thread (read_kernels.cu)
constexpr double kClusterReadBytes = 64 * KiB;  // what each block of a cluster read kernel reads a pass
constexpr std::uint32_t kClusterChaseThreads = 1024;

}  // namespace

double SimulatedEngine::time_read(const kernels::ReadRequest& r) {
    tick();
    const auto sms = static_cast<std::uint32_t>(arch_.facts.sm_count);
    const double bytes = double(kernels::bytes_read(r, sms));
    if (bytes <= 0) throw std::invalid_argument("a read of no bytes");
    const double per_pass = bytes / std::max(1u, r.passes);
    const double hz = clock_hz();
    const double busy = 1 - busy_share();
    const double threads = std::min<double>(double(r.threads) * r.blocks_per_sm, double(arch_.facts.max_threads_per_sm));
    // Little's law: what the threads keep in flight over the latency of the level that serves them,
    // up to the level's ceiling. Where a ceiling is not described: the unified storage reads at most
    // one row of its banks a cycle, and a level behind it keeps no more in flight than saturates L1
    // at the L1 hit latency (the SM's load path serves L1 and the levels behind it), so no level
    // reads faster than L1.
    const double l1_ceiling = l1_read_bytes_per_cycle(arch_) * hz * sms;
    const double in_flight = sms * threads * kBytesInFlightPerThread;
    const double undescribed_in_flight = std::min(in_flight, l1_ceiling * arch_.unified.l1.hit_cycles / hz);
    const auto rate = [&](double ceiling, double latency_cycles) {
        const double seconds_a_load = latency_cycles / hz;
        const double r = ceiling > 0 ? std::min(ceiling, in_flight / seconds_a_load) : undescribed_in_flight / seconds_a_load;
        return r * busy * (1 + 0.003 * random_.normal());
    };
    // Every load an SM makes passes its L1 datapath: a described L2 or DRAM faster than the SMs read L1
    // reads at the L1's rate (such an L2 made the L1 re-reads that it served read 5.7 times the L1's rate).
    const auto behind_l1 = [&](double ceiling) { return ceiling > 0 ? std::min(ceiling, l1_ceiling) : 0.0; };
    const double l2_rate = rate(behind_l1(arch_.l2.bandwidth_bytes_per_s), arch_.l2.near.cycles);
    const double far_rate =
        arch_.l2.far ? rate(behind_l1(arch_.l2.far_bandwidth_bytes_per_s.value_or(arch_.l2.bandwidth_bytes_per_s)),
                            arch_.l2.far->cycles)
                     : l2_rate;
    const double dram_rate = rate(behind_l1(arch_.dram.bandwidth_bytes_per_s), arch_.dram.latency.cycles);
    const std::uint64_t l2_bytes = std::uint64_t(arch_.facts.l2_bytes);
    double seconds = kLaunchSeconds;
    if (options_.remote && r.pattern != ReadPattern::shared)  // a peer's memory streams at the link's rate
        return seconds + bytes / (options_.remote->read_bytes_per_s * busy * (1 + 0.003 * random_.normal()));
    switch (r.pattern) {
        case ReadPattern::shared:
            seconds += bytes / rate(arch_.shared.bandwidth_bytes_per_cycle * hz * sms, arch_.shared.latency.cycles);
            break;
        case ReadPattern::block_private: {
            // Each block re-reads its share: from L1 when the blocks an SM runs fit its L1
            // (a plain kernel without shared memory, left to the driver), the first pass from L2.
            const KernelShape shape{kernels::ChaseKernel::plain, 0, r.threads, -1};
            const bool in_l1 = r.op == kernels::CacheOp::ca && double(r.bytes) * r.blocks_per_sm <= double(l1_bytes(arch_, shape));
            const double l1_rate = rate(l1_ceiling, arch_.unified.l1.hit_cycles);
            seconds += in_l1 ? per_pass / l2_rate + (bytes - per_pass) / l1_rate : bytes / l2_rate;
            l2_contents_.add(r.offset, r.offset + std::uint64_t(r.bytes) * sms * r.blocks_per_sm);
            break;
        }
        case ReadPattern::rotating:
            seconds += bytes / (r.bytes <= arch_.l2.near_bytes ? l2_rate : r.bytes <= l2_bytes ? far_rate : dram_rate);
            l2_contents_.add(r.offset, r.offset + r.bytes);
            break;
        case ReadPattern::streaming: {
            const bool held = r.bytes <= l2_bytes && l2_contents_.find(r.offset) != L2Contents::Where::absent &&
                              l2_contents_.find(r.offset + r.bytes - 1) != L2Contents::Where::absent;
            seconds += bytes / (held ? l2_rate : dram_rate);
            l2_contents_.add(r.offset, r.offset + r.bytes);
            break;
        }
    }
    return seconds;
}

double SimulatedEngine::time_reference_work() {
    tick();
    const bool seen = other_work_seen();
    const double share = seen ? arch_.noise.busy_sm_share : 0.0;
    return kReferenceCycles / clock_hz() / (1 - share) * (1 + 0.004 * random_.normal());
}

kernels::SharedAccessTiming SimulatedEngine::time_shared_access(const kernels::SharedAccess& access) {
    tick();
    const auto& s = arch_.shared;
    if (access.width_bytes != 4 && access.width_bytes != 8 && access.width_bytes != 16)
        throw std::invalid_argument("shared access width must be 4, 8 or 16 bytes");
    // Lanes whose words fall in one bank are served one word after another.
    std::vector<std::set<std::uint64_t>> words(s.banks);
    for (const std::uint32_t byte : access.lane_bytes) {
        if (byte % access.width_bytes != 0 || byte + access.width_bytes > kernels::kSharedAccessBytes)
            throw std::invalid_argument("shared access offsets must be multiples of the width, inside the array");
        for (std::uint64_t w = byte / s.bank_bytes; w <= (byte + access.width_bytes - 1) / s.bank_bytes; ++w)
            words[w % s.banks].insert(w);
    }
    std::size_t ways = 1;
    for (const auto& w : words) ways = std::max(ways, w.size());
    const double extra = double(ways - 1);
    return {arch_.timer_overhead_cycles + s.latency.cycles + extra * s.conflict_latency_cycles + 0.1 * random_.normal(),
            std::max(s.issue_cycles, double(ways) * s.conflict_issue_cycles) * (1 + 0.01 * random_.normal())};
}

std::uint32_t SimulatedEngine::max_cluster_blocks() {
    tick();
    return arch_.cluster ? arch_.cluster->max_blocks : 0;
}

kernels::ChaseResult SimulatedEngine::chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) {
    tick();
    if (!arch_.cluster) throw std::invalid_argument("the simulated device launches no clusters");
    const auto& c = *arch_.cluster;
    if (cluster_blocks < 2 || cluster_blocks > c.max_blocks || reader >= cluster_blocks)
        throw std::invalid_argument("a cluster of " + std::to_string(cluster_blocks) + " blocks (at most " +
                                    std::to_string(c.max_blocks) + ") has no block " + std::to_string(reader));
    // The farther the block within the largest cluster, the longer the way to it.
    const double distance = c.max_blocks > 2 ? double(reader - 1) / double(c.max_blocks - 2) : 0.0;
    std::vector<double> cycles;
    for (std::uint32_t i = 0; i < kernels::kClusterChaseSamples; ++i) {
        const double latency = reader == 0 ? arch_.shared.latency.cycles + jitter(arch_.shared.latency.spread_cycles)
                                           : c.dsmem.cycles + distance * c.far_extra_cycles + jitter(c.dsmem.spread_cycles);
        cycles.push_back(arch_.timer_overhead_cycles + latency + noise_cycles());
    }
    return result_of(cycles, kernels::kClusterChaseSamples);
}

kernels::ClusterRead SimulatedEngine::time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) {
    tick();
    if (!arch_.cluster) throw std::invalid_argument("the simulated device launches no clusters");
    const auto& c = *arch_.cluster;
    const auto sms = static_cast<std::uint32_t>(arch_.facts.sm_count);
    // One 1024-thread block of 64 KiB an SM: as many clusters as the SMs hold at once.
    // A description without a DSMEM rate has no remote read to answer: as if none fit.
    const bool answerable = !remote || c.bandwidth_bytes_per_s > 0;
    const std::uint32_t clusters = !answerable || cluster_blocks < 2 || cluster_blocks > c.max_blocks ||
                                           arch_.facts.max_threads_per_sm < kClusterChaseThreads
                                       ? 0
                                       : sms / cluster_blocks;
    if (clusters == 0) return {0, 0, 0};
    const double blocks = double(clusters) * cluster_blocks;
    const double bytes = blocks * kClusterReadBytes * passes;
    const double used = blocks / sms;
    // Local reads at the shared-memory ceiling, or what a 1024-thread block keeps in flight without one.
    const double per_block = arch_.shared.bandwidth_bytes_per_cycle > 0
                                 ? arch_.shared.bandwidth_bytes_per_cycle * clock_hz()
                                 : kClusterChaseThreads * kBytesInFlightPerThread / (arch_.shared.latency.cycles / clock_hz());
    const double rate = remote ? c.bandwidth_bytes_per_s * (cluster_blocks <= 2 ? 1.0 : c.large_cluster_share) * used
                               : per_block * blocks;
    const double seconds = kLaunchSeconds + bytes / (rate * (1 - busy_share()) * (1 + 0.003 * random_.normal()));
    return {seconds, static_cast<std::uint64_t>(bytes), clusters};
}

}  // namespace gpu_topology::simulate

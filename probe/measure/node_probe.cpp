#include "node_probe.hpp"

#include "analysis/statistics.hpp"
#include "version.hpp"
#include "stages/progress.hpp"
#include "stages/questions.hpp"
#include "replay/recorded_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <thread>

namespace gpu_topology::stages {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

model::LinkValue summarize(const std::vector<double>& samples) {
    model::LinkValue v;
    if (samples.empty()) {
        v.reason = "no repeat was timed";
        return v;
    }
    v.value = analysis::median(samples);
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    v.spread = {*lo, *hi, static_cast<std::uint32_t>(samples.size())};
    return v;
}

void mark_all(model::Link& link, const std::string& reason) {
    for (auto& v : link.values)
        if (!v.value && v.reason.empty()) v.reason = reason;
}

// Median cycles of a dependent-load chase through a ring in the peer's memory,
// and the same in ns by the clock the chase ran at (globaltimer / clock64).
void chase_remote(kernels::Engine& engine, model::Link& link) {
    using kernels::LoadPath;
    // 256 lines 4 KiB apart in random order: 1 MiB, in the peer's L2 after one warm pass.
    const auto ring = engine.link_random(LoadPath::l2, 0, 256, 4096, 0x5eedu);
    std::vector<double> cycles, ns;
    for (int repeat = 0; repeat < 5; ++repeat) {
        const auto result = engine.chase({.path = LoadPath::l2, .ring = ring, .warm_passes = 1, .timed_steps = 512,
                                          .max_samples = 512});
        if (result.cycles.empty() || result.timed_cycles == 0) continue;
        std::vector<double> samples(result.cycles.begin(), result.cycles.end());
        const double median = analysis::median(samples);
        cycles.push_back(median);
        ns.push_back(median * double(result.timed_ns) / double(result.timed_cycles));
    }
    link.values[model::link_quantity_index("load_latency_cycles")] = summarize(cycles);
    link.values[model::link_quantity_index("load_latency_ns")] = summarize(ns);
}

// Copies, SM loads and stores, and the remote chase of a link whose route allows peer access.
void time_link(NodeBackend& backend, const DeviceFacts& from, const DeviceFacts& to, const NodeOptions& options,
               model::Link& link) {
    const auto access = backend.open_peer_access(from, to);
    const auto transfers = backend.transfers(from, to, options.link_bytes, options.link_repeats);
    link.values[model::link_quantity_index("ce_read_bytes_per_s")] = summarize(transfers.ce_read);
    link.values[model::link_quantity_index("ce_write_bytes_per_s")] = summarize(transfers.ce_write);
    link.values[model::link_quantity_index("sm_write_bytes_per_s")] = summarize(transfers.sm_write);

    // The engine of `from` with its buffer on `to`: the probe's own read and chase kernels cross the link.
    const auto engine = backend.peer_engine(from, to, options.link_bytes);
    const kernels::ReadRequest read{.pattern = kernels::ReadPattern::streaming, .op = kernels::CacheOp::cg,
                                    .offset = 0, .bytes = options.link_bytes, .passes = 1, .threads = 1024,
                                    .blocks_per_sm = 2};
    const auto sm_read = measure_read_bandwidth(*engine, read, static_cast<std::uint32_t>(from.sm_count),
                                                options.link_repeats);
    link.values[model::link_quantity_index("sm_read_bytes_per_s")] = summarize(sm_read.bytes_per_s);
    chase_remote(*engine, link);
}

}  // namespace

model::Topology probe_device(NodeBackend& backend, const DeviceFacts& facts, const ProbeOptions& options,
                             Progress& progress, const std::optional<std::string>& record) {
    const BufferLayout layout(static_cast<std::uint64_t>(facts.l2_bytes), static_cast<std::uint64_t>(facts.global_bytes));
    const auto engine = backend.engine(facts, layout.buffer_bytes);
    const auto monitor = backend.monitor(facts);
    if (!record) return measure_topology(*engine, facts, options, progress, *monitor);
    RecordingEngine recording(*engine, facts, *record);
    return measure_topology(recording, facts, options, progress, *monitor);
}

model::Link measure_link(NodeBackend& backend, const DeviceFacts& from, const DeviceFacts& to,
                         const NodeOptions& options, Progress& progress) {
    model::Link link;
    link.from = from.index;
    link.to = to.index;
    progress.step("link " + std::to_string(from.index) + " -> " + std::to_string(to.index));
    link.route = backend.route(from, to);
    if (!link.route.peer_access) {
        mark_all(link, "device " + std::to_string(from.index) + " cannot access device " + std::to_string(to.index) +
                           "'s memory (cudaDeviceCanAccessPeer)");
        progress.done("no peer access");
        return link;
    }
    // One link that cannot be measured (memory, peer connections) costs its values, not the node's profile.
    try {
        time_link(backend, from, to, options, link);
    } catch (const std::exception& e) {
        mark_all(link, std::string("the measurement failed: ") + e.what());
        progress.done("failed: " + std::string(e.what()));
        return link;
    }
    mark_all(link, "not timed");

    const auto& v = link.values;
    char summary[160];
    std::snprintf(summary, sizeof summary, "%s x%u, SM read %.0f GB/s, CE read %.0f GB/s, load %.0f ns",
                  link.route.transport.c_str(), link.route.nvlinks,
                  v[model::link_quantity_index("sm_read_bytes_per_s")].value.value_or(0) / 1e9,
                  v[model::link_quantity_index("ce_read_bytes_per_s")].value.value_or(0) / 1e9,
                  v[model::link_quantity_index("load_latency_ns")].value.value_or(0));
    progress.done(summary);
    return link;
}

model::NodeTopology probe_node(NodeBackend& backend, const std::vector<DeviceFacts>& devices, const NodeOptions& options) {
    if (devices.empty() || options.per_device.size() != devices.size())
        throw std::invalid_argument("probe_node needs one or more devices and options for each");
    const auto start = Clock::now();
    model::NodeTopology node;
    node.probe_version = std::string(kProbeVersion);
    std::vector<model::Topology> topologies(devices.size());
    std::vector<std::exception_ptr> failures(devices.size());
    std::vector<double> seconds(devices.size());
    {
        std::vector<std::jthread> threads;
        for (std::size_t i = 0; i < devices.size(); ++i)
            threads.emplace_back([&, i] {
                const auto begun = Clock::now();
                try {
                    Progress progress(options.show_progress, "device " + std::to_string(devices[i].index) + ": ");
                    topologies[i] = probe_device(backend, devices[i], options.per_device.at(i), progress);
                } catch (...) {
                    failures[i] = std::current_exception();
                }
                seconds[i] = seconds_since(begun);
            });
    }  // the threads join here
    for (const auto& failure : failures)
        if (failure) std::rethrow_exception(failure);
    node.slowest_device_s = *std::max_element(seconds.begin(), seconds.end());
    node.devices = std::move(topologies);

    const auto links_start = Clock::now();
    Progress progress(options.show_progress);
    for (const auto& from : devices)
        for (const auto& to : devices)
            if (from.index != to.index) node.links.push_back(measure_link(backend, from, to, options, progress));
    node.links_s = seconds_since(links_start);
    node.duration_s = seconds_since(start);
    return node;
}

}  // namespace gpu_topology::stages

#include "node.hpp"

#include "run.hpp"

#include <stdexcept>

namespace gpu_topology::simulate {

SimulatedNode::SimulatedNode(const Architecture& arch, const RunOptions& run)
    : arch_(arch), run_(run), random_(mix(run.seed) ^ 0x11d) {
    if (!arch.links) throw std::invalid_argument(arch.file + ": the description has no links (a \"links\" section)");
}

RunOptions SimulatedNode::run_for(int index) const {
    RunOptions r = run_;
    r.seed = mix(run_.seed + std::uint64_t(index));
    return r;
}

std::vector<kernels::DeviceFacts> SimulatedNode::devices() const {
    std::vector<kernels::DeviceFacts> list;
    for (std::uint32_t i = 0; i < arch_.links->devices; ++i) list.push_back(simulated_facts(arch_, run_, int(i)));
    return list;
}

std::unique_ptr<kernels::Engine> SimulatedNode::engine(const kernels::DeviceFacts& device, std::size_t buffer_bytes) {
    auto engine = std::make_unique<SimulatedEngine>(arch_, buffer_bytes, run_for(device.index));
    const std::lock_guard lock(engines_mutex_);
    engines_[device.index] = engine.get();
    return engine;
}

std::unique_ptr<stages::Monitor> SimulatedNode::monitor(const kernels::DeviceFacts& device) {
    const std::lock_guard lock(engines_mutex_);
    const auto found = engines_.find(device.index);
    if (found == engines_.end()) throw std::logic_error("a simulated device's monitor asked for before its engine");
    return std::make_unique<SimulatedProcessMonitor>(*found->second);
}

model::LinkRoute SimulatedNode::route(const kernels::DeviceFacts&, const kernels::DeviceFacts&) {
    const auto& l = *arch_.links;
    model::LinkRoute route;
    route.peer_access = true;
    route.performance_rank = 0;
    route.native_atomics = l.transport == "nvlink";
    route.transport = l.transport;
    route.nvlinks = l.nvlinks;
    route.route_source = "simulated from " + simulated_source(arch_).substr(10);
    return route;
}

std::unique_ptr<stages::NodeBackend::PeerAccess> SimulatedNode::open_peer_access(const kernels::DeviceFacts&,
                                                                               const kernels::DeviceFacts&) {
    return std::make_unique<PeerAccess>();
}

kernels::PeerTransfers SimulatedNode::transfers(const kernels::DeviceFacts&, const kernels::DeviceFacts&, std::size_t,
                                                unsigned repeats) {
    const auto& l = *arch_.links;
    kernels::PeerTransfers t;
    for (unsigned i = 0; i < repeats; ++i) {
        t.ce_read.push_back(l.copy_bytes_per_s * (1 + 0.005 * random_.normal()));
        t.ce_write.push_back(l.copy_bytes_per_s * (1 + 0.005 * random_.normal()));
        t.sm_write.push_back(l.sm_write_bytes_per_s * (1 + 0.005 * random_.normal()));
    }
    return t;
}

std::unique_ptr<kernels::Engine> SimulatedNode::peer_engine(const kernels::DeviceFacts& from, const kernels::DeviceFacts&,
                                                            std::size_t bytes) {
    RunOptions r = run_for(from.index);
    r.busy = false;
    r.remote = RemoteMemory{arch_.links->latency_ns, arch_.links->sm_read_bytes_per_s};
    return std::make_unique<SimulatedEngine>(arch_, bytes, r);
}

}  // namespace gpu_topology::simulate

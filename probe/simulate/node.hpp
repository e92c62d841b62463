#pragma once
// A node of simulated devices: `devices` copies of one description joined by
// its `links` (architecture.hpp), for the node probe (measure/node_probe.hpp).
#include "engine.hpp"

#include "measure/node_probe.hpp"

#include <map>
#include <mutex>

namespace gpu_topology::simulate {

class SimulatedNode final : public stages::NodeBackend {
public:
    // Throws std::invalid_argument when the description has no links.
    SimulatedNode(const Architecture& arch, const RunOptions& run);
    std::vector<kernels::DeviceFacts> devices() const;

    std::unique_ptr<kernels::Engine> engine(const kernels::DeviceFacts& device, std::size_t buffer_bytes) override;
    std::unique_ptr<stages::Monitor> monitor(const kernels::DeviceFacts& device) override;
    model::LinkRoute route(const kernels::DeviceFacts& from, const kernels::DeviceFacts& to) override;
    std::unique_ptr<PeerAccess> open_peer_access(const kernels::DeviceFacts& from, const kernels::DeviceFacts& to) override;
    kernels::PeerTransfers transfers(const kernels::DeviceFacts& from, const kernels::DeviceFacts& to, std::size_t bytes,
                                     unsigned repeats) override;
    std::unique_ptr<kernels::Engine> peer_engine(const kernels::DeviceFacts& from, const kernels::DeviceFacts& to,
                                                 std::size_t bytes) override;

private:
    RunOptions run_for(int index) const;
    const Architecture& arch_;
    RunOptions run_;
    std::mutex engines_mutex_;
    std::map<int, SimulatedEngine*> engines_;  // each device's engine while its probe runs (for its monitor)
    Random random_;
};

}  // namespace gpu_topology::simulate

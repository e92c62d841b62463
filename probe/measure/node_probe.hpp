#pragma once
// Probing devices: one device, or every device of a node at once followed by
// the links between them. The devices come from a NodeBackend: the real GPUs
// through CUDA (cuda_node.cpp, in the CUDA build), or simulated ones
// (probe/simulate/node.hpp); the stages, the analysis and the node's records
// are the same for both.
#include "model/node.hpp"
#include "model/topology.hpp"
#include "kernels/device_facts.hpp"
#include "kernels/engine.hpp"
#include "kernels/peer_link.hpp"
#include "stages/monitor.hpp"
#include "stages/stages.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::stages {

using kernels::DeviceFacts;

class Progress;

// What probing a node needs of its devices and of the ways between them.
class NodeBackend {
public:
    virtual ~NodeBackend() = default;
    // A device's engine, its buffer of `buffer_bytes`, and what watches it for other work.
    virtual std::unique_ptr<kernels::Engine> engine(const DeviceFacts& device, std::size_t buffer_bytes) = 0;
    virtual std::unique_ptr<Monitor> monitor(const DeviceFacts& device) = 0;
    // How `from` reaches `to`'s memory, before anything is measured.
    virtual model::LinkRoute route(const DeviceFacts& from, const DeviceFacts& to) = 0;
    // Held while a link is measured: peer access from `from` to `to`.
    struct PeerAccess {
        virtual ~PeerAccess() = default;
    };
    virtual std::unique_ptr<PeerAccess> open_peer_access(const DeviceFacts& from, const DeviceFacts& to) = 0;
    // Copies both ways and SM stores into the peer, `repeats` of `bytes` each (peer access open).
    virtual kernels::PeerTransfers transfers(const DeviceFacts& from, const DeviceFacts& to, std::size_t bytes,
                                             unsigned repeats) = 0;
    // The engine of `from` whose buffer of `bytes` lives in `to`'s memory: its reads and chases cross the link.
    virtual std::unique_ptr<kernels::Engine> peer_engine(const DeviceFacts& from, const DeviceFacts& to,
                                                         std::size_t bytes) = 0;
};

struct NodeOptions {
    std::vector<ProbeOptions> per_device;  // one per device, in the order of `devices`
    bool nvml = true;
    bool show_progress = true;
    std::size_t link_bytes = 256ull << 20;  // copied, loaded and stored per repeat
    unsigned link_repeats = 5;
};

// Measures one device on `backend`'s engine, watched by its monitor and the
// reference work. `record`: write every engine call there.
model::Topology probe_device(NodeBackend& backend, const DeviceFacts& facts, const ProbeOptions& options,
                             Progress& progress, const std::optional<std::string>& record = std::nullopt);

// Probes `devices` (one or more, `options.per_device` one for each) at once:
// one thread each, every device its own engine and monitors. Then measures the
// link of every ordered pair, one pair at a time so no two transfers share a
// route. A device that fails stops the node probe with its error once every
// device has finished; a link that fails loses its values, with the reason.
model::NodeTopology probe_node(NodeBackend& backend, const std::vector<DeviceFacts>& devices, const NodeOptions& options);

// The link from `from` to `to`: the route, then, where peer access is possible,
// copies, SM loads and stores, and a remote chase, with peer access open only meanwhile.
model::Link measure_link(NodeBackend& backend, const DeviceFacts& from, const DeviceFacts& to,
                         const NodeOptions& options, Progress& progress);

// The same on the real GPUs through CUDA (cuda_node.cpp; the CUDA build only):
// NVML watches a device unless `nvml` is false.
model::Topology probe_device(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress,
                             const std::optional<std::string>& record = std::nullopt, bool nvml = true);
model::NodeTopology probe_node(const std::vector<DeviceFacts>& devices, const NodeOptions& options);

}  // namespace gpu_topology::stages

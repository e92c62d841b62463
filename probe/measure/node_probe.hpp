#pragma once
// Probing real GPUs: one device, or every device of the node at once followed
// by the links between them. Built into the CUDA library (it creates CUDA
// engines); the stages and the analysis it runs are the host-only ones.
#include "../model/node.hpp"
#include "../model/topology.hpp"
#include "../kernels/device_facts.hpp"
#include "../stages/stages.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::stages {

using kernels::DeviceFacts;

class Progress;

// Measures one device: its CUDA engine, watched by NVML (when `nvml` and the
// library is present) and the reference work. `record`: write every engine call there.
model::Topology probe_device(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress,
                             const std::optional<std::string>& record = std::nullopt, bool nvml = true);

struct NodeOptions {
    std::vector<ProbeOptions> per_device;  // one per device, in the order of `devices`
    bool nvml = true;
    bool show_progress = true;
    std::size_t link_bytes = 256ull << 20;  // copied, loaded and stored per repeat
    unsigned link_repeats = 5;
};

// Probes `devices` (one or more, `options.per_device` one for each) at once:
// one thread each, every device its own engine and monitors. Then measures the
// link of every ordered pair, one pair at a time so no two transfers share a
// route. A device that fails stops the node probe with its error once every
// device has finished; a link that fails loses its values, with the reason.
model::NodeTopology probe_node(const std::vector<DeviceFacts>& devices, const NodeOptions& options);

// The link from `from` to `to`: the route (the runtime, and NVML unless
// options.nvml is false), then, where peer access is possible, copies, SM
// loads and stores, and a remote chase, with peer access enabled only meanwhile.
model::Link measure_link(const DeviceFacts& from, const DeviceFacts& to, const NodeOptions& options,
                         Progress& progress);

}  // namespace gpu_topology::stages

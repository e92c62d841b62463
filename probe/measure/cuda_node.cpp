// The node probe's backend on the real GPUs: CUDA engines, NVML and the
// reference work watching each device, the runtime's and NVML's routes, and
// CUDA peer transfers.
#include "node_probe.hpp"

#include "kernels/cuda_engine.hpp"
#include "kernels/peer_link.hpp"
#include "nvml/nvml_links.hpp"
#include "nvml/nvml_monitor.hpp"

namespace gpu_topology::stages {
namespace {

class CudaNode final : public NodeBackend {
public:
    explicit CudaNode(bool nvml) : nvml_(nvml) {}

    std::unique_ptr<kernels::Engine> engine(const DeviceFacts& device, std::size_t buffer_bytes) override {
        return kernels::make_cuda_engine(device.index, buffer_bytes);
    }
    std::unique_ptr<Monitor> monitor(const DeviceFacts& device) override {
        if (nvml_) return make_nvml_monitor(device.uuid);
        return std::make_unique<BlindMonitor>("NVML not consulted (--no-nvml)");
    }
    model::LinkRoute route(const DeviceFacts& from, const DeviceFacts& to) override {
        model::LinkRoute route;
        const auto runtime = kernels::peer_route(from.index, to.index);
        route.peer_access = runtime.peer_access;
        route.performance_rank = runtime.performance_rank;
        route.native_atomics = runtime.native_atomics;
        apply_nvlink_route(nvml_ ? std::optional(nvlink_route(from.uuid, kernels::pci_location(to.index))) : std::nullopt,
                           route);
        return route;
    }
    struct Access final : PeerAccess {
        Access(int from, int to) : scoped(from, to) {}
        kernels::ScopedPeerAccess scoped;
    };
    std::unique_ptr<PeerAccess> open_peer_access(const DeviceFacts& from, const DeviceFacts& to) override {
        return std::make_unique<Access>(from.index, to.index);
    }
    kernels::PeerTransfers transfers(const DeviceFacts& from, const DeviceFacts& to, std::size_t bytes,
                                     unsigned repeats) override {
        return kernels::time_peer_transfers(from.index, to.index, bytes, repeats);
    }
    std::unique_ptr<kernels::Engine> peer_engine(const DeviceFacts& from, const DeviceFacts& to,
                                                 std::size_t bytes) override {
        return kernels::make_cuda_engine(from.index, bytes, to.index);
    }

private:
    bool nvml_;
};

}  // namespace

model::Topology probe_device(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress,
                             const std::optional<std::string>& record, bool nvml) {
    CudaNode backend(nvml);
    return probe_device(backend, facts, options, progress, record);
}

model::NodeTopology probe_node(const std::vector<DeviceFacts>& devices, const NodeOptions& options) {
    CudaNode backend(options.nvml);
    return probe_node(backend, devices, options);
}

}  // namespace gpu_topology::stages

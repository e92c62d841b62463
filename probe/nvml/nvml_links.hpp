#pragma once
// NVLinks between two GPUs, from NVML (loaded at run time): how many of the
// first GPU's active links end at the second, and NVML's link speed.
#include "kernels/peer_link.hpp"
#include "model/node.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace gpu_topology::stages {

struct NvlinkRoute {
    bool known = false;           // NVML answered
    std::string reason;           // why not, when !known
    std::uint32_t to_peer = 0;    // active links whose far end is the peer
    std::uint32_t to_switch = 0;  // active links whose far end is an NVSwitch
    std::uint32_t active = 0;     // active links in all (to the peer, switches or other GPUs)
    // The links' speeds summed, one direction (NVML_FI_DEV_NVLINK_GET_SPEED): of the links to the
    // peer, or, when none reaches it directly, of the links into NVSwitches.
    std::optional<double> bytes_per_s;
    std::string rate_reason;  // why there is no rate, when links are active
};

// The NVLinks of the GPU `from_uuid` ("GPU-...") and which of them reach the GPU at `peer`.
NvlinkRoute nvlink_route(const std::string& from_uuid, const kernels::PciLocation& peer);

// A link's transport, NVLink count, nominal rate and their source, from what
// NVML said (`nvlink`; nullopt: NVML was not consulted). Links to the peer:
// nvlink; else links into NVSwitches (each carries traffic to any GPU behind
// them): nvswitch; else no NVLink reaches it (links that end at other GPUs,
// an NVLink bridge to a third card, do not): pcie.
void apply_nvlink_route(const std::optional<NvlinkRoute>& nvlink, model::LinkRoute& route);

}  // namespace gpu_topology::stages

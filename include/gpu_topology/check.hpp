// gpu_topology/check.hpp: is the running GPU the one the facts describe? Host
// code, CUDA runtime. A generated gpu_topology.hpp includes it when compiled by
// nvcc or with GPU_TOPOLOGY_WITH_CUDA_RUNTIME defined; include it after that
// header otherwise. check_running_gpu() reads gpu_topology::identity, so it
// lives in the profile's namespace, like the facts.
#ifndef GPU_TOPOLOGY_CHECK_HPP
#define GPU_TOPOLOGY_CHECK_HPP

#ifndef GPU_TOPOLOGY_PROFILE_NS
#error "gpu_topology/check.hpp compares the running GPU with the facts of one GPU: include <gpu_topology.hpp>, the header gpu_topology_generate() writes, first"
#endif

#include <gpu_topology/types.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

namespace gpu_topology {

struct identity_check {
    bool matches;           // same model: name, compute capability and SM count
    bool same_card;         // and the very card the profile was measured on (UUID)
    char explanation[512];  // what differs, or what was compared
};

inline namespace GPU_TOPOLOGY_PROFILE_NS {

// Compares CUDA device `device_index` with gpu_topology::identity. A stored
// profile of the same model matches; another model, or no GPU, does not.
inline identity_check check_running_gpu(int device_index = 0) {
    identity_check result{false, false, {}};
    cudaDeviceProp prop{};
    const cudaError_t status = cudaGetDeviceProperties(&prop, device_index);
    if (status != cudaSuccess) {
        std::snprintf(result.explanation, sizeof result.explanation, "cannot read device %d: %s; the header describes %s",
                      device_index, cudaGetErrorString(status), identity.device_name);
        return result;
    }
    char uuid[48];
    const auto* b = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    result.matches = std::strcmp(prop.name, identity.device_name) == 0 && prop.major == identity.cc_major &&
                     prop.minor == identity.cc_minor && prop.multiProcessorCount == identity.sm_count;
    result.same_card = result.matches && std::strcmp(uuid, identity.device_uuid) == 0;
    std::snprintf(result.explanation, sizeof result.explanation,
                  "%s: device %d is %s (cc %d.%d, %d SMs, %s); the header describes %s (cc %d.%d, %d SMs, %s)%s",
                  result.same_card ? "same card" : result.matches ? "same model, another card" : "MISMATCH",
                  device_index, prop.name, prop.major, prop.minor, prop.multiProcessorCount, uuid,
                  identity.device_name, identity.cc_major, identity.cc_minor, identity.sm_count, identity.device_uuid,
                  identity.stored ? ", from a stored profile" : "");
    return result;
}

}  // namespace GPU_TOPOLOGY_PROFILE_NS
}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_CHECK_HPP

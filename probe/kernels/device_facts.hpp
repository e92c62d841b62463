#pragma once
// What the CUDA runtime reports about a device: identity and the API's cache
// and memory figures. Measured values are compared against these. Plain data:
// kernels::find_device fills it from the runtime, a recorded engine log from
// its first lines.
#include <cstdint>
#include <string>

namespace gpu_topology::kernels {

struct DeviceFacts {
    int index = 0;
    std::string name;
    std::string uuid;  // "GPU-xxxxxxxx-xxxx-..."
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int driver_version = 0;   // e.g. 13000
    int runtime_version = 0;
    std::int64_t sm_clock_max_khz = 0;
    std::int64_t l2_bytes = 0;
    std::int64_t persisting_l2_max_bytes = 0;
    std::int64_t shared_per_sm_bytes = 0;
    std::int64_t shared_per_block_bytes = 0;
    std::int64_t shared_per_block_optin_bytes = 0;
    std::int64_t reserved_shared_per_block_bytes = 0;
    std::int64_t constant_bytes = 0;
    std::int64_t global_bytes = 0;
    std::int64_t max_threads_per_sm = 0;
    std::int64_t max_blocks_per_sm = 0;
    std::int64_t registers_per_sm = 0;
};

// Outcome of looking for a device: a missing driver, no device, or an
// index beyond the device count are "no GPU", not errors.
struct DeviceLookup {
    bool found = false;
    std::string reason;  // why not, when !found
    DeviceFacts facts;
};

}  // namespace gpu_topology::kernels

// The CUDA runtime's view of a device: identity and the API's figures.
#include "cuda_check.hpp"
#include "cuda_engine.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace gpu_topology::kernels {
namespace {

std::string format_uuid(const cudaUUID_t& uuid) {
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    char text[64];
    std::snprintf(text, sizeof text,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                  b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return text;
}

std::int64_t attribute(cudaDeviceAttr attr, int device, const char* what) {
    return device_attribute(attr, device, what);
}

}  // namespace

kernels::DeviceLookup find_device(int index) {
    kernels::DeviceLookup lookup;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (kernels::no_usable_device(status)) {
        lookup.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
        return lookup;
    }
    check(status, "cudaGetDeviceCount");
    if (count == 0) {
        lookup.reason = "no CUDA device is visible";
        return lookup;
    }
    if (index < 0 || index >= count) {
        lookup.reason = "device " + std::to_string(index) + " does not exist (" + std::to_string(count) +
                        " visible)";
        return lookup;
    }

    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
    auto& f = lookup.facts;
    f.index = index;
    f.name = prop.name;
    f.uuid = format_uuid(prop.uuid);
    f.cc_major = prop.major;
    f.cc_minor = prop.minor;
    f.sm_count = prop.multiProcessorCount;
    check(cudaDriverGetVersion(&f.driver_version), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&f.runtime_version), "cudaRuntimeGetVersion");
    f.sm_clock_max_khz = attribute(cudaDevAttrClockRate, index, "cudaDeviceGetAttribute(ClockRate)");
    f.l2_bytes = prop.l2CacheSize;
    f.persisting_l2_max_bytes = prop.persistingL2CacheMaxSize;
    f.shared_per_sm_bytes = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
    f.shared_per_block_bytes = static_cast<std::int64_t>(prop.sharedMemPerBlock);
    f.shared_per_block_optin_bytes = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
    f.reserved_shared_per_block_bytes = static_cast<std::int64_t>(prop.reservedSharedMemPerBlock);
    f.constant_bytes = static_cast<std::int64_t>(prop.totalConstMem);
    f.global_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
    f.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    f.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    f.registers_per_sm = prop.regsPerMultiprocessor;
    lookup.found = true;
    return lookup;
}

}  // namespace gpu_topology::kernels

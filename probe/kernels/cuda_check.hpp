#pragma once
// Every CUDA runtime call goes through check(); every launch is followed by
// check_launch(). Failures throw CudaError carrying the call site, so the probe
// reports *where* it failed instead of continuing with garbage.
#include <cuda_runtime_api.h>

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpu_topology::kernels {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

inline void check(cudaError_t result, std::string_view what,
                  std::source_location where = std::source_location::current()) {
    if (result == cudaSuccess) return;
    throw CudaError(result, std::string(what) + " failed: " + cudaGetErrorName(result) + " (" +
                                cudaGetErrorString(result) + ") at " + where.file_name() + ":" +
                                std::to_string(where.line()));
}

// A launch reports configuration errors through cudaGetLastError and execution
// errors at the next synchronising call; both are checked.
inline void check_launch(std::string_view kernel,
                         std::source_location where = std::source_location::current()) {
    check(cudaGetLastError(), std::string("launch of ") + std::string(kernel), where);
    check(cudaDeviceSynchronize(), std::string("execution of ") + std::string(kernel), where);
}

// An attribute of `device` (cudaDeviceGetAttribute), checked.
inline int device_attribute(cudaDeviceAttr attribute, int device, std::string_view what,
                            std::source_location where = std::source_location::current()) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, attribute, device), what, where);
    return value;
}

}  // namespace gpu_topology::kernels

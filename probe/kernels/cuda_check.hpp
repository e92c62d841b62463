#pragma once
// Every CUDA runtime call goes through check(); every launch is followed by
// check_launch(). Failures throw CudaError carrying the call site, so the probe
// reports *where* it failed instead of continuing with garbage.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpu_topology::kernels {

// Where a check is called: the call site's file and line, taken by default arguments as
// std::source_location does. Not std::source_location itself: libstdc++ provides it only to
// compilers with __builtin_source_location (GCC 11, Clang 15), and Clang 14 is a host
// compiler that nvcc 13 takes; __builtin_FILE and __builtin_LINE are in GCC, Clang and
// nvcc's front end.
struct CallSite {
    const char* file;
    unsigned line;
    static constexpr CallSite here(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
        return {file, line};
    }
};

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

inline void check(cudaError_t result, std::string_view what,
                  CallSite where = CallSite::here()) {
    if (result == cudaSuccess) return;
    throw CudaError(result, std::string(what) + " failed: " + cudaGetErrorName(result) + " (" +
                                cudaGetErrorString(result) + ") at " + where.file + ":" +
                                std::to_string(where.line));
}

// A launch reports configuration errors through cudaGetLastError and execution
// errors at the next synchronising call; both are checked.
inline void check_launch(std::string_view kernel,
                         CallSite where = CallSite::here()) {
    check(cudaGetLastError(), std::string("launch of ") + std::string(kernel), where);
    check(cudaDeviceSynchronize(), std::string("execution of ") + std::string(kernel), where);
}

// An attribute of `device` (cudaDeviceGetAttribute), checked.
inline int device_attribute(cudaDeviceAttr attribute, int device, std::string_view what,
                            CallSite where = CallSite::here()) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, attribute, device), what, where);
    return value;
}

// What cudaGetDeviceCount answers where this machine has no usable device (none, no driver, a
// driver older than the runtime, a system that cannot run CUDA): the probe then reports the GPU's
// facts unmeasured and a GPU program skips; any other error is a failure. The bench programs
// (bench/explore_common.cuh) take the same list.
constexpr bool no_usable_device(cudaError_t status) {
    return status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
           status == cudaErrorSystemDriverMismatch || status == cudaErrorNotSupported ||
           status == cudaErrorOperatingSystem || status == cudaErrorInitializationError;
}

}  // namespace gpu_topology::kernels

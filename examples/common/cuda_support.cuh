#pragma once
// What the examples that search launches share (examples/gemm, examples/stencil3d): checked CUDA calls,
// device memory that frees itself, a timing event, and the exit status a program without a GPU
// returns so that CTest reports it skipped.
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

inline constexpr int kNoGpu = 77;

// Every CUDA call is checked: a failure throws, naming the call.
inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

struct CudaFree {
    void operator()(void* p) const { cudaFree(p); }
};
template <typename T>
std::unique_ptr<T[], CudaFree> device_array(std::size_t count) {
    void* p = nullptr;
    check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    return std::unique_ptr<T[], CudaFree>(static_cast<T*>(p));
}

class Event {
public:
    Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_{};
};

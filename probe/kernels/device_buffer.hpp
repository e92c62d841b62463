#pragma once
// RAII owner of one device allocation.
#include "cuda_check.hpp"

#include <cstddef>
#include <memory>

namespace gpu_topology::kernels {

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        void* raw = nullptr;
        check(cudaMalloc(&raw, count * sizeof(T)), "cudaMalloc");
        memory_.reset(static_cast<T*>(raw));
    }

    T* get() const noexcept { return memory_.get(); }
    std::size_t size() const noexcept { return count_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }

private:
    struct Free {
        void operator()(T* p) const noexcept { cudaFree(p); }  // cannot throw from a deleter
    };
    std::unique_ptr<T, Free> memory_;
    std::size_t count_ = 0;
};

}  // namespace gpu_topology::kernels

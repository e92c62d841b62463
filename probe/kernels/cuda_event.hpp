#pragma once
// RAII CUDA event, for timing a stretch of device work.
#include "cuda_check.hpp"

namespace gpu_topology::kernels {

class Event {
public:
    Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
    ~Event() { cudaEventDestroy(event_); }  // cannot throw from a destructor
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

    // Seconds between recording `begin` and `end` on `stream` (default: the
    // legacy default stream) around `work`, which issues its work there.
    template <typename Work>
    static double time(Work&& work, cudaStream_t stream = nullptr) {
        Event begin, end;
        check(cudaEventRecord(begin.get(), stream), "cudaEventRecord");
        work();
        check(cudaEventRecord(end.get(), stream), "cudaEventRecord");
        check(cudaEventSynchronize(end.get()), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, begin.get(), end.get()), "cudaEventElapsedTime");
        return ms / 1e3;
    }

private:
    cudaEvent_t event_{};
};

}  // namespace gpu_topology::kernels

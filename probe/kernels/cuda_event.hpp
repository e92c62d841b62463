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

    // Seconds between recording `begin` and `end` on the current stream around `work`.
    template <typename Work>
    static double time(Work&& work) {
        Event begin, end;
        check(cudaEventRecord(begin.get()), "cudaEventRecord");
        work();
        check(cudaEventRecord(end.get()), "cudaEventRecord");
        check(cudaEventSynchronize(end.get()), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, begin.get(), end.get()), "cudaEventElapsedTime");
        return ms / 1e3;
    }

private:
    cudaEvent_t event_{};
};

}  // namespace gpu_topology::kernels

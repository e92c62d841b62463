#pragma once
// Progress on stderr, one line per step, in CMake's "-- " style so it reads
// naturally inside a configure log. stdout stays free for JSON.
#include <chrono>
#include <cstdio>
#include <string>

namespace gpu_topology::benchmarks {

class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled) {}

    void step(const std::string& what) {
        current_ = what;
        started_ = std::chrono::steady_clock::now();
    }
    void done(const std::string& result) {
        if (!enabled_) return;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        std::fprintf(stderr, "-- GPUTopology: %-44s %s  [%.2f s]\n", current_.c_str(), result.c_str(), seconds);
        std::fflush(stderr);
    }
    void note(const std::string& text) {
        if (!enabled_) return;
        std::fprintf(stderr, "-- GPUTopology: %s\n", text.c_str());
        std::fflush(stderr);
    }

private:
    bool enabled_;
    std::string current_;
    std::chrono::steady_clock::time_point started_{};
};

}  // namespace gpu_topology::benchmarks

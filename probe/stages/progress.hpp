#pragma once
// Progress on stderr, one line per step, in CMake's "-- " style so it reads
// naturally inside a configure log. stdout stays free for JSON.
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

namespace gpu_topology::stages {

class Progress {
public:
    // `prefix` starts every line ("device 1: "): devices probed at once share stderr.
    explicit Progress(bool enabled, std::string prefix = {}) : enabled_(enabled), prefix_(std::move(prefix)) {}

    void step(const std::string& what) {
        current_ = what;
        started_ = std::chrono::steady_clock::now();
    }
    void done(const std::string& result) {
        if (!enabled_) return;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        std::fprintf(stderr, "-- GPUTopology: %s%-44s %s  [%.2f s]\n", prefix_.c_str(), current_.c_str(), result.c_str(),
                     seconds);
        std::fflush(stderr);
    }
    void note(const std::string& text) {
        if (!enabled_) return;
        std::fprintf(stderr, "-- GPUTopology: %s%s\n", prefix_.c_str(), text.c_str());
        std::fflush(stderr);
    }

private:
    bool enabled_;
    std::string prefix_;
    std::string current_;
    std::chrono::steady_clock::time_point started_{};
};

}  // namespace gpu_topology::stages

#include "reference_monitor.hpp"

#include <cstdio>

namespace gpu_topology::stages {

ReferenceMonitor::ReferenceMonitor(kernels::Engine& engine, double tolerated_slowdown,
                                   std::optional<double> quiet_seconds)
    : engine_(engine), tolerated_slowdown_(tolerated_slowdown), quiet_seconds_(quiet_seconds) {}

std::string ReferenceMonitor::description() const {
    std::string text = "a fixed amount of arithmetic on every SM, timed before and after each stage";
    if (quiet_seconds_) {
        char quiet[96];
        std::snprintf(quiet, sizeof quiet, ", against %.3f ms on a quiet GPU of this model", *quiet_seconds_ * 1e3);
        text += quiet;
    }
    return text;
}

std::vector<std::string> ReferenceMonitor::disturbances() {
    const double seconds = engine_.time_reference_work();
    if (fastest_ == 0 || seconds < fastest_) fastest_ = seconds;
    char text[200];
    if (quiet_seconds_ && seconds > (1 + kOtherRunSlowdown) * *quiet_seconds_) {
        std::snprintf(text, sizeof text, "the reference work took %.3f ms, %.0f%% longer than on a quiet GPU of this model, %.3f ms",
                      seconds * 1e3, (seconds / *quiet_seconds_ - 1) * 100, *quiet_seconds_ * 1e3);
        return {text};
    }
    if (seconds <= (1 + tolerated_slowdown_) * fastest_) return {};
    std::snprintf(text, sizeof text, "the reference work took %.3f ms, %.0f%% longer than its fastest %.3f ms",
                  seconds * 1e3, (seconds / fastest_ - 1) * 100, fastest_ * 1e3);
    return {text};
}

}  // namespace gpu_topology::stages

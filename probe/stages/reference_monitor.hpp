#pragma once
// A monitor for the probe's stage runner (monitor.hpp) through the engine: a
// fixed amount of arithmetic on every SM, timed before and after every stage.
// It touches no memory, so it leaves the caches as the stages left them; when
// it takes longer than the fastest seen, another context is sharing the SMs
// (time-slicing). NVML's monitor is nvml/nvml_monitor.hpp.
#include "kernels/engine.hpp"
#include "monitor.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::stages {

class ReferenceMonitor final : public Monitor {
public:
    static constexpr double kOtherRunSlowdown = 0.6;
    // Flags a reference that takes `tolerated_slowdown` longer than the fastest
    // seen. Work that runs from before the probe starts slows every reference
    // alike, so it goes unseen unless `quiet_seconds` says what the reference
    // took on a quiet GPU of this model (conditions.reference_work_seconds of
    // an earlier profile): then a reference more than kOtherRunSlowdown slower
    // than that is flagged too. Looser, because another card of the model may
    // run at a lower clock or power limit; time slicing with another process
    // at least doubles the reference.
    explicit ReferenceMonitor(kernels::Engine& engine, double tolerated_slowdown = 0.25,
                              std::optional<double> quiet_seconds = std::nullopt);
    std::string description() const override;
    std::vector<std::string> disturbances() override;
    // The fastest reference of this run (0 before the first).
    double fastest_seen() const { return fastest_; }

private:
    kernels::Engine& engine_;
    double tolerated_slowdown_;
    std::optional<double> quiet_seconds_;
    double fastest_ = 0;  // of this run
};

}  // namespace gpu_topology::stages

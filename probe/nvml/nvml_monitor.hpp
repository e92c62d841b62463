#pragma once
// Monitors for the probe's stage runner (monitor.hpp):
//  - NVML, loaded at run time (libnvidia-ml.so.1) so the probe still runs where
//    it is missing: other processes with a compute context on the GPU, and
//    their SM utilisation;
//  - a reference measurement through the engine: a fixed amount of arithmetic
//    on every SM, timed before and after every stage. It touches no memory, so
//    it leaves the caches as the stages left them; when it takes longer than
//    the fastest seen, another context is sharing the SMs (time-slicing).
#include "../kernels/engine.hpp"
#include "monitor.hpp"

#include <memory>
#include <optional>
#include <string>

namespace gpu_topology::stages {

// An NVML monitor of the GPU with this UUID ("GPU-..."), or, when NVML cannot
// be loaded or does not know the device, a BlindMonitor saying why.
std::unique_ptr<Monitor> make_nvml_monitor(const std::string& uuid);

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

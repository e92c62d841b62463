#pragma once
// Watches for other work on the GPU while the probe measures: another process
// on the GPU changes everything from fetch granularities to bandwidth, so the
// stage runner asks the monitor before and after each stage, and measures a
// stage again (or stops vouching for it) when something was seen.
#include <string>
#include <vector>

namespace gpu_topology::stages {

class Monitor {
public:
    virtual ~Monitor() = default;
    // What watches, for the profile's conditions record ("nvml", "none: ...").
    virtual std::string description() const = 0;
    // Signs of other work on the GPU since the last call; empty when quiet.
    virtual std::vector<std::string> disturbances() = 0;
};

// Sees nothing: for replays, and where nothing can watch (the profile says so).
class BlindMonitor final : public Monitor {
public:
    explicit BlindMonitor(std::string why) : why_(std::move(why)) {}
    std::string description() const override { return "none: " + why_; }
    std::vector<std::string> disturbances() override { return {}; }

private:
    std::string why_;
};

}  // namespace gpu_topology::stages

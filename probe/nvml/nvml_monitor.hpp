#pragma once
// A monitor for the probe's stage runner (stages/monitor.hpp) through NVML,
// loaded at run time (libnvidia-ml.so.1) so the probe still runs where it is
// missing: other processes with a compute context on the GPU, and their SM
// utilisation. The other monitor, the reference work timed through the engine,
// is the stages' own (stages/reference_monitor.hpp).
#include "stages/monitor.hpp"

#include <memory>
#include <string>

namespace gpu_topology::stages {

// An NVML monitor of the GPU with this UUID ("GPU-..."), or, when NVML cannot
// be loaded or does not know the device, a BlindMonitor saying why.
std::unique_ptr<Monitor> make_nvml_monitor(const std::string& uuid);

}  // namespace gpu_topology::stages

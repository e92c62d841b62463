#pragma once
// The careful path: dense sweeps over every footprint region of interest,
// written raw. Used to study a new GPU, to record tests/data/, and as the slow
// reference that the fast probe is compared against.
#include "sweep_runner.hpp"

namespace gpu_topology::benchmarks {

struct ExploreLimits {
    std::uint64_t l2_bytes = 0;  // from the API, bounds the sweeps
};

void explore(SweepRunner& runner, const ExploreLimits& limits);

}  // namespace gpu_topology::benchmarks

#pragma once
// A sweep: latency samples (cycles, timer overhead already subtracted) for a
// series of footprints, as one benchmark measured them. The unit every
// analysis step consumes; recorded sweeps in tests/data/ are this, on disk.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpu_topology::analysis {

struct SweepPoint {
    std::uint64_t footprint_bytes = 0;
    std::vector<double> cycles;  // one per timed access, in access order
};

struct Sweep {
    std::string name;                           // e.g. "l1_size_carveout0"
    std::map<std::string, std::string> meta;    // path, stride_bytes, order, carveout, ...
    std::vector<SweepPoint> points;             // ascending footprint
};

}  // namespace gpu_topology::analysis

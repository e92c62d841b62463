#pragma once
// Reading one latency-vs-footprint curve as a hierarchy: the change points cut
// it into plateaus, and each plateau is named by where it lies relative to
// the L2 size the API reports (the only outside fact used).
#include "change_point.hpp"
#include "statistics.hpp"

#include <optional>

namespace gpu_topology::analysis {

struct Plateau {
    std::uint64_t first_bytes = 0, last_bytes = 0;  // footprints of its first and last point
    LatencySummary latency;                         // of its interior points pooled
};

struct Hierarchy {
    std::vector<ChangePoint> change_points;
    std::optional<Plateau> l1;        // only for a curve through the L1 path
    std::optional<Plateau> l2_near;   // first plateau served by L2
    std::optional<Plateau> l2_far;    // a second, slower plateau still inside the API's L2 size
    std::optional<Plateau> dram;      // the plateau beyond L2
};

Hierarchy interpret_hierarchy(const Sweep& curve, std::uint64_t api_l2_bytes, bool starts_in_l1,
                              const ChangePointOptions& options = {});

}  // namespace gpu_topology::analysis

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
    double lowest_p50 = 0, highest_p50 = 0;         // of those points' own medians
    // Every pooled point's median within 5 % of theirs together (the H100's DRAM plateau:
    // 680-694 cycles): a level, not a blend whose hits of a faster level thin out as the ring grows.
    bool flat() const {
        return lowest_p50 >= (1 - kFlatWithin) * latency.p50 && highest_p50 <= (1 + kFlatWithin) * latency.p50;
    }
    static constexpr double kFlatWithin = 0.05;
};

struct Hierarchy {
    std::vector<ChangePoint> change_points;
    std::optional<Plateau> l1;        // only for a curve through the L1 path
    std::optional<Plateau> l2_near;   // first plateau served by L2
    std::optional<Plateau> l2_far;    // a second, slower plateau inside the API's L2 size, or from it on
                                      // when a slower one follows (a far part that evicts at random)
    std::optional<Plateau> dram;      // the plateau beyond L2
};

Hierarchy interpret_hierarchy(const Sweep& curve, std::uint64_t api_l2_bytes, bool starts_in_l1,
                              const ChangePointOptions& options = {});

// The samples of a plateau without the loads a faster level served. A level
// that evicts at random keeps part of a ring it cannot hold, so the plateau
// of the level behind it mixes in hits of it. When the samples (less rare
// outliers, under 2 % of them) split into two classes of a fifth of them or
// more, whose medians differ by 1.5 times or more, or by 1.3 times or more and
// the faster class's median lies within 10 % of `faster_level_cycles` (0: none
// known), the slower class; else all. A fast class of no known level that
// holds most of the loads is the plateau's own: all are kept.
std::vector<double> without_faster_level(const std::vector<double>& samples, double faster_level_cycles);
// The same for a plateau measured at several footprints (`points`, by footprint): a faster
// level's hits thin out as the ring outgrows it, so over a doubling or more the shares decide:
// a fast class whose share holds from the first footprint to the last is the plateau's own
// level (loads through near and far L2 slices to DRAM) and every sample is kept; one whose
// share falls is left out, however many loads it holds.
std::vector<double> without_faster_level(const std::vector<SweepPoint>& points, double faster_level_cycles);

}  // namespace gpu_topology::analysis

#pragma once
// Kolmogorov–Smirnov statistics for latency samples: D is the largest gap
// between two empirical CDFs; for cache latencies it is close to "the fraction
// of loads that changed level". The probe asks only the one-sided question
// (did loads become slower?), with an indifference zone.
#include <span>
#include <vector>

namespace gpu_topology::analysis {

struct KsResult {
    double statistic = 0;  // D in [0, 1]
    double p_value = 1;    // from Smirnov's bound
};

// One-sided test with an indifference zone: D = max_x [F_ref(x) - F_cand(x + shift)],
// the share of candidate loads slower than the reference by more than `shift`.
// A level change (hit -> miss) moves loads by far more than `shift`; a small
// drift inside one level (an L1 hit at 40 instead of 27 cycles, an L2 hit a
// few cycles slower further away) does not count. p from Smirnov's bound.
KsResult ks_slower(std::span<const double> reference, std::span<const double> candidate, double shift);

// The indifference zone used for decisions: `fraction` of the reference's
// median latency, and never less than `floor_cycles`.
struct Tolerance {
    double fraction = 0.2;
    double floor_cycles = 16;
    double shift_for(std::span<const double> reference) const;
    double shift_at(double reference_median) const;  // the same, from the reference's median
};

// A reference tested against many candidates (a capacity search's): sorted, and its
// indifference zone taken, once. ks_slower(reference, candidate) is
// ks_slower(values, candidate, tolerance.shift_for(values)).
struct KsReference {
    KsReference(std::span<const double> values, const Tolerance& tolerance);  // no values: invalid_argument
    std::vector<double> sorted;  // the values, ascending
    double shift = 0;
};
KsResult ks_slower(const KsReference& reference, std::span<const double> candidate);

}  // namespace gpu_topology::analysis

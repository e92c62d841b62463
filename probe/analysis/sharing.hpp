#pragma once
// Which caches are one physical storage, and how many of a cache an SM has,
// decided from eviction experiments (thesis, "sharing" and "caches per SM"):
// a victim ring is warmed, other traffic runs, the victim is timed again. If
// the other traffic evicted the victim, both went through the same storage.
#include "ks_test.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpu_topology::analysis {

struct EvictionOptions {
    double alpha = 1e-3;
    double min_effect = 0.10;  // share of victim loads that must have become slower
    Tolerance tolerance;
};

struct EvictionDecision {
    bool evicted = false;
    KsResult test;             // disturbed vs alone, one-sided
    double alone_p50 = 0;      // victim latency with no other traffic
    double disturbed_p50 = 0;  // victim latency after the other traffic
    double confidence = 0;     // 1 - p when evicted; the test's power proxy (1 - D) when not
};

// `alone`: the victim timed after its warm-up with an idle disturbance;
// `disturbed`: the same after the other traffic.
EvictionDecision decide_eviction(std::span<const double> alone, std::span<const double> disturbed,
                                 const EvictionOptions& options = {});

// Instances of a cache per SM from the warps of the other sub-partitions
// (warps 1 .. n-1 of a block land on sub-partitions 1 .. n-1 of n): each
// warp whose traffic evicted warp 0's lines uses warp 0's instance. n warps
// sharing in groups of s means n / s instances. nullopt when the pattern fits
// no whole number of equal groups.
std::optional<std::uint32_t> instances_per_sm(const std::vector<bool>& evicted_by_other_warps,
                                              std::uint32_t sub_partitions);

}  // namespace gpu_topology::analysis

#pragma once
// Shared-memory bank geometry from one warp's accesses, independent of the
// GPU. With B banks of W bytes, lanes whose words fall in one bank are served
// one after another (a conflict of as many ways as distinct words).
//  - Strided: lane i reads 4 bytes at i * stride. The cost grows with the
//    stride until all 32 lanes share one bank, at the row B * W; 4-byte
//    strides alone cannot tell 32 x 4 B from 16 x 8 B (same ways at each stride).
//  - Width probes then split the row: lane i reads at i * row + 4 * (i mod k).
//    Banks of at least 4k bytes keep all 32 lanes in one bank (as slow as the
//    row stride); narrower banks spread them (half as slow, or less).
#include <cstdint>
#include <optional>
#include <vector>

namespace gpu_topology::analysis {

struct StridedAccessTiming {
    std::uint32_t stride_bytes = 0;  // powers of two from 4, ascending
    double latency_cycles = 0;       // one warp, dependent accesses
    double issue_cycles = 0;         // per warp-wide access, many warps in flight
};

// Lane offsets of the width probe for banks of `candidate_bytes` (8, 16, ...).
std::vector<std::uint32_t> width_probe_offsets(std::uint32_t row_bytes, std::uint32_t candidate_bytes);
struct WidthProbe {
    std::uint32_t candidate_bytes = 0;
    double issue_cycles = 0;
};

// The row (banks x width): the first stride from which doubling no longer adds
// cost; nullopt when the cost never grows or never levels off.
std::optional<std::uint32_t> bank_row_bytes(const std::vector<StridedAccessTiming>& timings);

struct BankGeometry {
    std::uint32_t bank_bytes = 0;   // W: 4, or the widest candidate whose probe stayed in one bank
    std::uint32_t banks = 0;        // B: the row over W
    double issue_per_way = 0;       // issue cycles each extra way adds (least-squares slope)
    double latency_per_way = 0;     // latency each extra way adds
    double fit_r2 = 0;              // of the issue-cycle fit against the model's ways
    double confidence = 0;          // from the fit and the saturation
};

// Ways a 32-lane access of 4-byte words at `stride_bytes` needs on `banks` banks of `bank_bytes`.
std::uint32_t conflict_ways(std::uint32_t stride_bytes, std::uint32_t banks, std::uint32_t bank_bytes);
// The same for 4-byte reads at any lane offsets.
std::uint32_t conflict_ways(const std::vector<std::uint32_t>& lane_bytes, std::uint32_t banks, std::uint32_t bank_bytes);

// nullopt without a row; `probes` in ascending candidate order from 8.
std::optional<BankGeometry> bank_geometry(const std::vector<StridedAccessTiming>& timings,
                                          const std::vector<WidthProbe>& probes);

}  // namespace gpu_topology::analysis

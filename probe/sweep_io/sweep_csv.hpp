#pragma once
// On-disk form of a Sweep (the format of `--raw DIR` and tests/data/):
//
//   # gpu-topology-sweep 1
//   # name=l1_size_carveout0
//   # path=l1
//   # stride_bytes=128
//   footprint_bytes,cycles
//   16384,33 33 34 33 ...
//
// One row per footprint; the second column is the space-separated latency of
// each recorded access in cycles, timer overhead subtracted.
#include "analysis/sweep.hpp"

#include <filesystem>
#include <istream>
#include <ostream>

namespace gpu_topology::stages {

void write_sweep_csv(std::ostream& out, const analysis::Sweep& sweep);
void write_sweep_csv(const std::filesystem::path& file, const analysis::Sweep& sweep);

// Throws std::runtime_error naming `source`, the line and what is wrong.
analysis::Sweep read_sweep_csv(std::istream& in, const std::string& source);
analysis::Sweep read_sweep_csv(const std::filesystem::path& file);

}  // namespace gpu_topology::stages

#pragma once
// What a profile must satisfy beyond each value on its own: the physics of a
// GPU. Run by profile::validate once every field passed its own check, so each
// check here may read values without guarding their types. Each problem names
// the field and the relation it breaks.
//   - the relations of the list (model::kRelations: a line is no larger than its
//     cache, L1 is faster than DRAM, a miss slower than a hit, ...);
//   - differences (model::kDifferences: a miss penalty is the miss latency less the hit's);
//   - products (model::kProducts: the TLB reach is entries x coverage);
//   - what only newer devices have (model::kNeedsComputeCapability: clusters);
//   - latencies in nanoseconds agree with their cycles and the measured clock;
//   - the L1 carveout table: one row per launch, no row beyond L1 + shared
//     memory or below an L1's size, no launch an SM cannot hold.
#include "util/json.hpp"

#include <string>
#include <vector>

namespace gpu_topology::profile {

using util::Json;  // profiles are JSON documents

class Problems;

// Adds each problem to `problems`, its field named after `prefix`.
void physical_errors(const Json& profile, Problems& problems, const std::string& prefix);

// What makes two rows of caches.l1.carveouts describe the same launch, as one
// string: rows with equal keys are duplicates (docs/profile-schema.md).
std::string carveout_launch_key(const Json& row);

}  // namespace gpu_topology::profile

#pragma once
// The one writer of profiles: a Topology becomes a JSON document in schema
// kSchema (docs/profile-schema.md). Every quantity lands at its path from the
// list; a quantity the topology lacks is written as unmeasured.
#include "../profile/json.hpp"
#include "topology.hpp"

namespace gpu_topology::model {

profile::Json to_json(const Topology& topology);

}  // namespace gpu_topology::model

#pragma once
// The one writer of profiles: a Topology becomes a JSON document in schema
// kSchema (docs/profile-schema.md). Every quantity lands at its path from the
// list; a quantity the topology lacks is written as unmeasured.
#include "util/json.hpp"
#include "topology.hpp"

namespace gpu_topology::model {

util::Json to_json(const Topology& topology);

// How repeated measurements of one value differed: {"min", "max", "repeats"}.
util::Json to_json(const Spread& spread);

// How an unmeasured quantity is written: {"value": null, "unit", "source": "unmeasured", "reason"}.
util::Json unmeasured_json(const Quantity& quantity, const std::string& reason);

}  // namespace gpu_topology::model

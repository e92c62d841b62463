#pragma once
// A node profile (model/node.hpp, schema gpu-topology-node/1) -> what the
// header, the CMake variables and the table add for a node (its picture:
// pictures/node_svg.hpp).
// Single-device profiles describe a node of one device without links.
#include "util/json.hpp"

#include <string>

namespace gpu_topology::render {

// The facts the header holds: a single profile itself, or a node's common
// facts (profile::node_facts); throws std::invalid_argument naming what
// differs when a node's devices are not one model.
util::Json facts_of(const util::Json& document);

// The header's gpu_topology::node data (devices, links) for either schema.
std::string node_section(const util::Json& document);
// The table's lines for the node: its devices and every link (`full`: every
// link quantity, else one line a link); empty for a single device.
std::string node_table(const util::Json& document, bool full = true);
// CMake variables: GPU_TOPOLOGY_DEVICE_COUNT and GPU_TOPOLOGY_DEVICE_UUIDS.
std::string node_cmake(const util::Json& document);

}  // namespace gpu_topology::render

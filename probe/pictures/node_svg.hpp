#pragma once
// The node's picture (pictures/node_svg.cpp): one self-contained SVG document in
// the style of the hierarchy picture (pictures/svg.hpp): the devices, and the
// matrix of links (from = row, to = column), each cell with its transport,
// bandwidths and latency. Single-device profiles describe a node of one device
// without links.
#include "util/json.hpp"

#include <filesystem>
#include <string>

namespace gpu_topology::render {

std::string node_svg(const util::Json& node);
// node_svg written through util::write_file_atomically.
void write_node_svg(const util::Json& node, const std::filesystem::path& file);

}  // namespace gpu_topology::render

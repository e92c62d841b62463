#pragma once
// Profile -> a picture of the memory hierarchy, as one self-contained SVG
// document (about 900x520) that a browser shows as it is:
//   - the latency curve (footprint on a log2 axis, p50 cycles) with its change
//     points shaded, when the profile carries one ("curve");
//   - every level (L1, near L2, L2, DRAM): a dashed line at its size and a line
//     at its latency, with a legend that says what is unmeasured, a lower bound
//     or not vouched for;
//   - the bandwidth of each level as bars;
//   - the device, its UUID, the probe version and the profile's source.
//
// Written directly, element by element, so the probe needs no plotting library.
// Profiles are input: every string taken from one is XML-escaped, and the same
// profile always gives the same bytes.
#include "util/json.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace gpu_topology::render {

std::string hierarchy_svg(const util::Json& profile);
// hierarchy_svg written through util::write_file_atomically.
void write_hierarchy_svg(const util::Json& profile, const std::filesystem::path& file);

// Exposed for tests.
// `text` with & < > " ' as entities, control characters and invalid UTF-8 as '?'.
std::string xml_escape(std::string_view text);

}  // namespace gpu_topology::render

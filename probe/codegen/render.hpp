#pragma once
// Profile -> artefacts, all generated from the list of quantities
// (model/quantities.hpp): the header (templates/gpu_topology.hpp.in, embedded at
// build time, filled with one profile's data: the types and helpers it includes
// are the static headers of include/gpu_topology/), a CMake script of
// GPU_TOPOLOGY_<NAME> variables for configure-time checks, a readable table, and
// the docs table of quantities.
//
// Profiles are input: render* assume a profile that profile::validate()
// accepted, and still escape every string they place in C++ or CMake.
#include "util/json.hpp"

#include <string>
#include <string_view>

namespace gpu_topology::render {

struct RenderContext {
    std::string profile_source;  // "measured", "stored:<name>" or "file:<name>"; empty: the profile's own "source"
    std::string profile_hash;    // content hash of the profile file
};

std::string render_header(const util::Json& profile, const RenderContext& context,
                          std::string_view header_template);
std::string render_cmake(const util::Json& profile, const RenderContext& context);
// `full`: every quantity, one line each; otherwise the identity, the headline
// sizes and whatever the probe does not vouch for. A reason or a doubt longer
// than a line shows is cut on a character boundary and ends in " [...]".
std::string render_table(const util::Json& profile, const RenderContext& context, bool full = true);
// docs/quantities.md: the list as a Markdown table (no profile needed).
std::string render_quantity_docs();

// The template compiled into the probe.
std::string_view embedded_header_template();

// Escaping, exposed for tests: the contents of a C/C++ string literal, and of
// a CMake quoted argument. Both throw std::invalid_argument on control
// characters or invalid UTF-8 (validation refuses such profiles first).
std::string c_string_body(std::string_view text);
std::string cmake_quoted_body(std::string_view text);

}  // namespace gpu_topology::render

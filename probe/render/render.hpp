#pragma once
// Profile -> artefacts: the header (from templates/gpu_topology.hpp.in,
// embedded at build time), a CMake script of GPU_TOPOLOGY_<NAME> variables for
// configure-time checks, and a readable table.
#include "../profile/json.hpp"

#include <string>
#include <string_view>

namespace gpu_topology::render {

struct RenderContext {
    std::string profile_source;  // "measured" or "stored:<file>"; empty: the profile's own "source"
    std::string profile_hash;    // content hash of the profile file
};

std::string render_header(const profile::Json& profile, const RenderContext& context,
                          std::string_view header_template);
std::string render_cmake(const profile::Json& profile, const RenderContext& context);
std::string render_table(const profile::Json& profile, const RenderContext& context);

// The template compiled into the probe.
std::string_view embedded_header_template();

}  // namespace gpu_topology::render

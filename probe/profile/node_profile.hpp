#pragma once
// Reading node profiles (schema model::kNodeSchema): one gpu-topology profile
// per device plus the links between them. Every device record is validated as
// a profile of its own; the links against the list in model/node.hpp.
#include "util/json.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace gpu_topology::profile {

using util::Json;  // profiles are JSON documents

bool is_node_document(const Json& document);

// Every problem found, each as "<field>: <what is wrong> (<value>)".
std::vector<std::string> validate_node(const Json& node);

// Parses either schema and validates it; throws ProfileError naming the file and each bad field.
Json load_any_profile_text(std::string_view text, const std::string& source);
Json load_any_profile(const std::filesystem::path& file);

// One set of facts for every device of a node (docs/node.md). The devices
// must be one model: the same name and the same value of every quantity the
// CUDA runtime reports (compute capability, SMs, memory, L2, ...); otherwise
// `model_differences` says what differs and there are no common facts. A
// measured value whose spread over the devices that vouch for it exceeds the
// agreement tolerance (model/agreement.hpp) is withheld: unmeasured in
// `facts`, its reason naming each device's value. A value any device does not
// vouch for is not vouched for in `facts` (its doubt names the device), and
// the conditions are quiet only if every device's were. Every other value is
// device 0's.
struct NodeFacts {
    Json facts;                                  // a gpu-topology profile; null when the models differ
    std::vector<std::string> model_differences;  // "device <i>: ..."
    std::vector<std::string> withheld;           // "<NAME>: <why>"
};
NodeFacts node_facts(const Json& document);

}  // namespace gpu_topology::profile

#pragma once
// Node profiles for tests, built from stored single-device profiles. A probe's
// node holds what each device measured (model::Topology); these tests start
// from profiles, so the devices go into the node profile's JSON.
#include "model/node.hpp"
#include "profile/profile.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace gpu_topology::test {

inline util::Json stored_profile(const std::string& name) {
    return profile::load_profile(std::filesystem::path(GPU_TOPOLOGY_PROFILES) / name);
}

// `profile` as device `index` of a node, with the UUID `uuid`.
inline util::Json as_device(util::Json profile, int index, const std::string& uuid) {
    profile["device"]["index"] = index;
    profile["device"]["uuid"] = uuid;
    return profile;
}

// The node profile of `node` (its times and links) whose devices are `devices`.
inline util::Json node_profile(const model::NodeTopology& node, const std::vector<util::Json>& devices) {
    util::Json json = model::to_json(node);
    json["devices"] = util::Json::array();
    for (const auto& d : devices) json["devices"].push_back(d);
    return json;
}

}  // namespace gpu_topology::test

#include "node.hpp"

#include "serialize.hpp"

#include <cmath>
#include <stdexcept>

namespace gpu_topology::model {

using util::Json;

namespace {

double rounded(double v) { return std::round(v * 100) / 100; }

Json value_json(const LinkQuantity& q, const LinkValue& v) {
    Json j = Json::object();
    if (!v.value) {
        j["value"] = nullptr;
        j["unit"] = std::string(to_string(q.unit));
        j["reason"] = v.reason;
        return j;
    }
    j["value"] = *v.value;
    j["unit"] = std::string(to_string(q.unit));
    j["spread"] = to_json(v.spread);
    return j;
}

Json route_json(const LinkRoute& r) {
    Json j = Json::object();
    j["peer_access"] = r.peer_access;
    j["performance_rank"] = r.performance_rank;
    j["native_atomics"] = r.native_atomics;
    j["transport"] = r.transport;
    j["nvlinks"] = r.nvlinks;
    j["nominal_bytes_per_s"] = r.nominal_bytes_per_s ? Json(*r.nominal_bytes_per_s) : Json(nullptr);
    j["source"] = r.route_source;
    return j;
}

}  // namespace

Json to_json(const NodeTopology& node) {
    Json j = Json::object();
    j["schema"] = kNodeSchema;
    Json probe = Json::object();
    probe["version"] = node.probe_version;
    probe["duration_s"] = rounded(node.duration_s);
    probe["slowest_device_s"] = rounded(node.slowest_device_s);
    probe["links_s"] = rounded(node.links_s);
    j["probe"] = std::move(probe);
    Json devices = Json::array();
    for (const auto& d : node.devices) devices.push_back(to_json(d));  // a gpu-topology profile each
    j["devices"] = std::move(devices);
    Json links = Json::array();
    for (const auto& link : node.links) {
        Json l = Json::object();
        l["from"] = link.from;
        l["to"] = link.to;
        l["route"] = route_json(link.route);
        for (std::size_t i = 0; i < kLinkQuantities.size(); ++i)
            l[kLinkQuantities[i].member] = value_json(kLinkQuantities[i], link.values[i]);
        links.push_back(std::move(l));
    }
    j["links"] = std::move(links);
    return j;
}

}  // namespace gpu_topology::model

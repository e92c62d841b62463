#include "node.hpp"

#include "util/format.hpp"

#include "model/node.hpp"
#include "profile/node_profile.hpp"
#include "render.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gpu_topology::render {

using model::kLinkQuantities;
using util::Json;

Json facts_of(const Json& document) {
    if (!profile::is_node_document(document)) return document;
    auto common = profile::node_facts(document);
    if (common.model_differences.empty()) return std::move(common.facts);
    std::string message = "the devices of this node are not one model, so no one set of facts describes them:";
    for (const auto& d : common.model_differences) message += "\n  " + d;
    throw std::invalid_argument(message + "\nProbe one device (gpu_topology_generate(... DEVICE <index>), "
                                          "GPU_TOPOLOGY_DEVICE=<index>) for each header.");
}

namespace {

std::vector<const Json*> devices_of(const Json& document) {
    std::vector<const Json*> devices;
    if (!profile::is_node_document(document)) return {&document};
    for (const auto& d : document.find("devices")->as_array()) devices.push_back(&d);
    return devices;
}

const Json::Array& links_of(const Json& document) {
    static const Json::Array none;
    const Json* links = profile::is_node_document(document) ? document.find("links") : nullptr;
    return links ? links->as_array() : none;
}

std::string number_literal(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    std::string s = text;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

// A link value in the header: known (value) or not (reason); see link_value in gpu_topology/types.hpp.
std::string link_value_literal(const Json* v) {
    const Json* number = v ? v->find("value") : nullptr;
    if (number && number->is_number()) return "{" + number_literal(number->as_number()) + ", true, \"\"}";
    const Json* reason = v ? v->find("reason") : nullptr;
    const std::string why = reason && reason->is_string() ? reason->as_string() : "absent from the profile";
    return "{0.0, false, \"" + c_string_body(why) + "\"}";
}

std::string human_value(const Json& link, const model::LinkQuantity& q) {
    const Json* v = link.find(q.member);
    const Json* number = v ? v->find("value") : nullptr;
    if (!number || !number->is_number()) {
        const Json* reason = v ? v->find("reason") : nullptr;
        return "not measured (" + (reason && reason->is_string() ? reason->as_string() : std::string("absent")) + ")";
    }
    const double x = number->as_number();
    if (q.unit == model::Unit::bytes_per_s) return util::format_bandwidth(x);
    return util::format_fixed(x, 0) + " " + std::string(to_string(q.unit));
}

}  // namespace

std::string node_section(const Json& document) {
    const auto devices = devices_of(document);
    const auto& links = links_of(document);
    std::string out;
    out += "// From device `from` to device `to`: what a copy or kernel on `from` gets from `to`'s memory.\n";
    out += "struct peer_link {\n";
    out += "    int from, to;\n";
    out += "    bool peer_access;                // cudaDeviceCanAccessPeer(from, to)\n";
    out += "    link_transport transport;        // NVML: NVLink to the peer, through an NVSwitch, or PCIe\n";
    out += "    std::uint32_t nvlinks;           // NVLinks of `from` to `to` (nvswitch: all, into the switches)\n";
    out += "    link_value nominal_bytes_per_s;  // those links' NVML speeds summed, one direction\n";
    for (const auto& q : kLinkQuantities)
        out += "    link_value " + std::string(q.member) + ";  // " + std::string(q.label) + "\n";
    out += "};\n";
    out += "namespace node {\n";
    out += "// Devices these facts describe: 1 unless the profile measured every device of the node\n";
    out += "// (gpu_topology_generate(... DEVICES ALL)); their facts agree (docs/node.md).\n";
    out += "inline constexpr int device_count = " + std::to_string(devices.size()) + ";\n";
    out += "inline constexpr node_device devices[] = {\n";
    for (std::size_t i = 0; i < devices.size(); ++i)
        out += "    {" + std::to_string(i) + ", \"" + c_string_body(util::string_at(*devices[i], "device.name")) + "\", \"" +
               c_string_body(util::string_at(*devices[i], "device.uuid")) + "\"},\n";
    out += "};\n";
    out += "// Every ordered pair of devices (from, to), measured by the probe.\n";
    out += "inline constexpr std::size_t link_count = " + std::to_string(links.size()) + ";\n";
    if (links.empty()) {
        out += "inline constexpr const peer_link* links = nullptr;\n";
    } else {
        out += "inline constexpr peer_link links[] = {\n";
        for (const auto& l : links) {
            const Json& route = *l.find("route");
            const Json* nominal = route.find("nominal_bytes_per_s");
            out += "    {" + util::format_number(l.find("from")->as_number()) + ", " +
                   util::format_number(l.find("to")->as_number()) + ", " +
                   (route.find("peer_access")->as_bool() ? "true" : "false") + ", link_transport::" +
                   route.find("transport")->as_string() + ", " +
                   util::format_number(route.find("nvlinks")->as_number()) + "u,\n     " +
                   (nominal && nominal->is_number() ? "{" + number_literal(nominal->as_number()) + ", true, \"\"}"
                                                    : std::string("{0.0, false, \"NVML did not report the link rate\"}"));
            for (const auto& q : kLinkQuantities) out += ",\n     " + link_value_literal(l.find(q.member));
            out += "},\n";
        }
        out += "};\n";
    }
    out += "}  // namespace node\n";
    return out;
}

std::string node_table(const Json& document, bool full) {
    const auto& links = links_of(document);
    if (!profile::is_node_document(document)) return {};
    const auto devices = devices_of(document);
    std::string out = "node: " + std::to_string(devices.size()) + " devices\n";
    for (std::size_t i = 0; i < devices.size(); ++i)
        out += "  device " + std::to_string(i) + ": " + util::string_at(*devices[i], "device.name") + " (" +
               util::string_at(*devices[i], "device.uuid") + ")\n";
    for (const auto& l : links) {
        const Json& route = *l.find("route");
        const std::string transport = route.find("transport")->as_string();
        const int nvlinks = int(route.find("nvlinks")->as_number());
        out += "  link " + util::format_number(l.find("from")->as_number()) + " -> " +
               util::format_number(l.find("to")->as_number()) + ": " + transport +
               (nvlinks > 0 ? " x" + std::to_string(nvlinks) : "") +
               (route.find("peer_access")->as_bool() ? "" : ", no peer access");
        if (const Json* nominal = route.find("nominal_bytes_per_s"); nominal && nominal->is_number()) {
            out += ", nominal " + util::format_bandwidth(nominal->as_number());
        }
        if (!full) {  // one line a link: a node of 8 GPUs has 56
            out += ": SM read " + human_value(l, model::kLinkQuantities[model::link_quantity_index("sm_read_bytes_per_s")]) +
                   ", load " + human_value(l, model::kLinkQuantities[model::link_quantity_index("load_latency_ns")]) + "\n";
            continue;
        }
        out += "\n";
        for (const auto& q : kLinkQuantities) {
            char line[512];
            std::snprintf(line, sizeof line, "    %-24s %s\n", std::string(q.member).c_str(), human_value(l, q).c_str());
            out += line;
        }
    }
    return out;
}

std::string node_cmake(const Json& document) {
    const auto devices = devices_of(document);
    std::string uuids;
    for (const auto* d : devices) uuids += (uuids.empty() ? "" : ";") + cmake_quoted_body(util::string_at(*d, "device.uuid"));
    return "set(GPU_TOPOLOGY_DEVICE_COUNT " + std::to_string(devices.size()) + ")\n" +
           "set(GPU_TOPOLOGY_DEVICE_UUIDS \"" + uuids + "\")\n";
}

}  // namespace gpu_topology::render

// Node profiles: validation, whether the devices are alike, and what the header
// and the table say of a node. The devices are the stored, measured profiles;
// the link numbers below are synthetic test inputs, not measurements.
#include "nvml/nvml_links.hpp"
#include "model/agreement.hpp"
#include "model/node.hpp"
#include "profile/node_profile.hpp"
#include "profile/profile.hpp"
#include "codegen/node.hpp"
#include "codegen/render.hpp"
#include "node_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using namespace gpu_topology;
using util::Json;

using test::as_device;
Json stored(const char* name) { return test::stored_profile(name); }

model::Link synthetic_link(int from, int to) {
    model::Link link;
    link.from = from;
    link.to = to;
    link.route = {.peer_access = true, .performance_rank = 0, .native_atomics = true, .transport = "nvlink",
                  .nvlinks = 18, .nominal_bytes_per_s = 450e9, .route_source = "test input"};
    for (std::size_t i = 0; i < link.values.size(); ++i) {
        const double typical = model::kLinkQuantities[i].unit == model::Unit::bytes_per_s ? 300e9 : 1000;
        link.values[i] = {.value = typical, .spread = {0.9 * typical, 1.1 * typical, 5}};
    }
    link.values[model::link_quantity_index("load_latency_ns")].value.reset();
    link.values[model::link_quantity_index("load_latency_ns")].reason = "a reason \"with quotes\"";
    return link;
}

Json two_h200s() {
    model::NodeTopology node;
    node.probe_version = "test";
    node.duration_s = 4;
    node.slowest_device_s = 3.5;
    node.links_s = 0.5;
    node.links = {synthetic_link(0, 1), synthetic_link(1, 0)};
    return test::node_profile(node, {as_device(stored("nvidia-h200.json"), 0, "GPU-aaaa"),
                               as_device(stored("nvidia-h200.json"), 1, "GPU-bbbb")});
}

bool names(const std::vector<std::string>& errors, const std::string& field) {
    for (const auto& e : errors)
        if (e.rfind(field, 0) == 0) return true;
    return false;
}

TEST(Node, TwoStoredDevicesWithLinksAreAValidNodeProfile) {
    const auto node = two_h200s();
    EXPECT_TRUE(profile::is_node_document(node));
    EXPECT_EQ(profile::validate_node(node), std::vector<std::string>{});
    // and it survives printing and loading again
    EXPECT_NO_THROW(profile::load_any_profile_text(node.dump(), "node.json"));
}

TEST(Node, SingleProfilesStillLoadThroughEitherReader) {
    const auto single = stored("nvidia-h100.json");
    EXPECT_FALSE(profile::is_node_document(single));
    // Both readers give back the document as it was...
    EXPECT_EQ(profile::load_profile_text(single.dump(), "single.json").dump(), single.dump());
    EXPECT_EQ(profile::load_any_profile_text(single.dump(), "single.json").dump(), single.dump());
    // ...and refuse the same broken one, naming the file and the field.
    auto broken = single;
    broken["caches"]["l1"]["size_bytes"]["value"] = 0;
    for (const auto& read : {profile::load_profile_text, profile::load_any_profile_text}) {
        try {
            read(broken.dump(), "broken.json");
            ADD_FAILURE() << "a profile with a zero L1 size was loaded";
        } catch (const profile::ProfileError& e) {
            EXPECT_NE(std::string(e.what()).find("broken.json"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("caches.l1.size_bytes.value"), std::string::npos) << e.what();
        }
    }
}

TEST(Node, BadLinkValuesAreNamedByField) {
    auto node = two_h200s();
    auto& link = node["links"].as_array()[0];
    link["ce_read_bytes_per_s"]["value"] = -5;
    link["sm_read_bytes_per_s"]["unit"] = "GB/s";
    link["sm_write_bytes_per_s"]["spread"]["min"] = 400e9;  // above the value: no longer brackets it
    link["load_latency_ns"]["reason"] = "";
    link["route"]["transport"] = "carrier pigeon";
    link["route"]["nvlinks"] = 1.5;
    const auto errors = profile::validate_node(node);
    EXPECT_TRUE(names(errors, "links[0].ce_read_bytes_per_s.value: must lie in")) << errors.front();
    EXPECT_TRUE(names(errors, "links[0].sm_read_bytes_per_s.unit: must be bytes/s"));
    EXPECT_TRUE(names(errors, "links[0].sm_write_bytes_per_s.spread: must bracket the value"));
    EXPECT_TRUE(names(errors, "links[0].load_latency_ns.reason: must not be empty"));
    EXPECT_TRUE(names(errors, "links[0].route.transport"));
    EXPECT_TRUE(names(errors, "links[0].route.nvlinks: must be a whole number"));
}

TEST(Node, LinksJoinTwoDifferentListedDevicesOnce) {
    auto node = two_h200s();
    auto& links = node["links"].as_array();
    links[1]["from"] = 0;
    links[1]["to"] = 1;  // the pair 0 -> 1 again
    EXPECT_TRUE(names(profile::validate_node(node), "links[1]: a second link from 0 to 1"));
    links[1]["to"] = 0;
    EXPECT_TRUE(names(profile::validate_node(node), "links[1].to: a link joins two different devices"));
    links[1]["to"] = 2;
    EXPECT_TRUE(names(profile::validate_node(node), "links[1].to: must lie in [0, 1]"));
}

// One link per ordered pair: no links at all, or one direction only, is not a node profile.
TEST(Node, EveryOrderedPairHasItsLink) {
    auto node = two_h200s();
    node["links"] = Json::array();
    EXPECT_TRUE(names(profile::validate_node(node), "links: a node of 2 devices has a link for each of the 2 ordered "
                                                    "pairs; 2 missing: 0 -> 1, 1 -> 0"));
    node = two_h200s();
    auto& links = node["links"].as_array();
    links.pop_back();  // 0 -> 1 only
    EXPECT_TRUE(names(profile::validate_node(node), "links: a node of 2 devices has a link for each of the 2 ordered "
                                                    "pairs; 1 missing: 1 -> 0"));
    EXPECT_THROW(profile::load_any_profile_text(node.dump(), "one-way.json"), profile::ProfileError);
}

// Doubts joined from every device are cut to the text limit on a character
// boundary, so the common facts still render.
TEST(Node, JoinedDoubtsAreCutOnCharacters) {
    auto node = two_h200s();
    std::string doubt;
    for (int i = 0; i < 2040; ++i) doubt += "\xc3\xa9";  // 4080 bytes of 'é'
    for (auto& device : node["devices"].as_array())
        device["caches"]["l1"]["size_bytes"]["doubt"] = doubt;
    ASSERT_EQ(profile::validate_node(node), std::vector<std::string>{});
    const auto facts = profile::node_facts(node).facts;
    const auto joined = profile::read_quantity(facts, "L1_SIZE_BYTES").doubt;
    EXPECT_LE(joined.size(), profile::kMaxTextBytes);
    EXPECT_TRUE(util::is_safe_text(joined));
    EXPECT_EQ(joined.substr(joined.size() - 6), " [...]");
    EXPECT_NO_THROW(render::render_cmake(node, {}));
    EXPECT_NO_THROW(render::render_header(node, {}, render::embedded_header_template()));
}

TEST(Node, EveryDeviceIsValidatedAsAProfileOfItsOwn) {
    auto node = two_h200s();
    auto& devices = node["devices"].as_array();
    devices[1]["caches"]["l1"]["line_bytes"]["value"] = 100;  // not a power of two
    EXPECT_TRUE(names(profile::validate_node(node), "devices[1].caches.l1.line_bytes.value"));
    devices[1] = as_device(stored("nvidia-h200.json"), 1, "GPU-aaaa");
    EXPECT_TRUE(names(profile::validate_node(node), "devices[1].device.uuid: appears twice"));
    devices[1] = as_device(stored("nvidia-h200.json"), 3, "GPU-bbbb");
    EXPECT_TRUE(names(profile::validate_node(node), "devices[1].device.index: must be 1"));
    node["devices"] = Json::array();
    EXPECT_TRUE(names(profile::validate_node(node), "devices: must list 1 to 64 devices"));
}

// Two cards of one model never measure exactly alike: the second card's every measured
// value moved by half of what a re-measurement may differ by. Every fact is still shared,
// and it is the first card's value, not an average.
TEST(Node, TwoCardsOfOneModelShareEveryFact) {
    auto node = two_h200s();
    auto& second = node["devices"].as_array()[1];
    std::size_t moved = 0;
    for (const auto& q : model::kQuantities) {
        const auto v = profile::read_quantity(second, q);
        if (!v.value || v.source == model::Source::api || !model::is_remeasurable(q)) continue;
        const double shift = model::agreement_tolerance(q, *v.value) / 2;
        if (shift < 1) continue;
        second.path_to(q.path)[q.shape == model::Shape::latency ? "p50" : "value"] = std::floor(*v.value + shift);
        ++moved;
    }
    EXPECT_GE(moved, 30u);
    const auto common = profile::node_facts(node);
    EXPECT_EQ(common.model_differences, std::vector<std::string>{});
    EXPECT_EQ(common.withheld, std::vector<std::string>{});
    for (const char* name : {"L2_NEAR_SIZE_BYTES", "DRAM_LATENCY_CYCLES", "L2_BANDWIDTH_BYTES_PER_S"})
        EXPECT_EQ(profile::read_quantity(common.facts, name).value,
                  profile::read_quantity(stored("nvidia-h200.json"), name).value)
            << name;
}

TEST(Node, AMeasuredValueBeyondTheToleranceIsWithheldNotAveraged) {
    auto node = two_h200s();
    auto& latency = node["devices"].as_array()[1]["caches"]["dram"]["latency_cycles"]["p50"];
    const double first = latency.as_number();
    // 7 %, as two H100s of one pool differed (docs/records/probe.md): beyond what runs of one card
    // differ by, within what cards of one model do, so the node shares the first device's value.
    latency = std::round(first * 1.07);
    EXPECT_EQ(profile::node_facts(node).withheld, std::vector<std::string>{});
    EXPECT_EQ(profile::read_quantity(profile::node_facts(node).facts, "DRAM_LATENCY_CYCLES").value, first);
    latency = first * 1.15;  // 15 %: beyond the 12 % cards of one model may differ by
    const auto common = profile::node_facts(node);
    EXPECT_EQ(common.model_differences, std::vector<std::string>{});
    ASSERT_EQ(common.withheld.size(), 1u);
    EXPECT_EQ(common.withheld[0].rfind("DRAM_LATENCY_CYCLES: differs between the node's devices", 0), 0u)
        << common.withheld[0];
    const auto v = profile::read_quantity(common.facts, "DRAM_LATENCY_CYCLES");
    EXPECT_FALSE(v.value);
    EXPECT_NE(v.reason.find("on device 1"), std::string::npos) << v.reason;
    EXPECT_EQ(profile::validate(common.facts), std::vector<std::string>{});  // still a valid profile
    // and the header makes it unknown: code that uses it does not compile
    const auto header = render::render_header(node, {}, render::embedded_header_template());
    EXPECT_NE(header.find("GPU_TOPOLOGY_DRAM_LATENCY_CYCLES_UNMEASURED"), std::string::npos);
}

TEST(Node, WhatAnyDeviceDoesNotVouchForTheCommonFactsDoNotVouchFor) {
    auto node = two_h200s();
    auto& busy = node["devices"].as_array()[1];
    busy["conditions"]["quiet"] = false;
    busy["conditions"]["events"] = Json::array();
    busy["conditions"]["events"].push_back("another process on the GPU");
    busy["caches"]["l2"]["near_size_bytes"]["doubt"] = "measured while busy";
    const auto common = profile::node_facts(node);
    const auto near = profile::read_quantity(common.facts, "L2_NEAR_SIZE_BYTES");
    EXPECT_EQ(near.doubt, "device 1: measured while busy");
    EXPECT_FALSE(common.facts.at_path("conditions.quiet")->as_bool());
    EXPECT_EQ(common.facts.at_path("conditions.events")->as_array().back().as_string(),
              "device 1: another process on the GPU");
    const auto cmake = render::render_cmake(node, {});
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_NOT_VOUCHED_FOR \"L2_NEAR_SIZE_BYTES\")"), std::string::npos);
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_CONDITIONS_QUIET FALSE)"), std::string::npos);
}

TEST(Node, TheSpreadOverEveryDeviceDecidesNotEachAgainstDeviceZero) {
    model::NodeTopology three;
    three.probe_version = "test";
    std::vector<Json> devices_of_three;
    for (int i = 0; i < 3; ++i) devices_of_three.push_back(as_device(stored("nvidia-h200.json"), i, "GPU-000" + std::to_string(i)));
    auto node = test::node_profile(three, std::move(devices_of_three));
    auto& devices = node["devices"].as_array();
    const double dram = devices[0].at_path("caches.dram.latency_cycles.p50")->as_number();
    devices[1]["caches"]["dram"]["latency_cycles"]["p50"] = dram * 1.07;  // each within 12 % of device 0,
    devices[2]["caches"]["dram"]["latency_cycles"]["p50"] = dram * 0.93;  // 14 % apart from each other
    const auto common = profile::node_facts(node);
    ASSERT_EQ(common.withheld.size(), 1u);
    EXPECT_EQ(common.withheld[0].rfind("DRAM_LATENCY_CYCLES", 0), 0u);
    EXPECT_NE(common.withheld[0].find("on device 2"), std::string::npos) << common.withheld[0];
}

TEST(Node, DeviceUuidsAreCudaUuids) {
    auto node = two_h200s();
    node["devices"].as_array()[1]["device"]["uuid"] = "GPU-a;GPU-b";  // would split the CMake list of UUIDs
    EXPECT_TRUE(names(profile::validate_node(node), "devices[1].device.uuid: must be a CUDA UUID"));
}

TEST(Node, AnotherModelHasNoCommonFactsAndTheHeaderRefusesIt) {
    auto node = two_h200s();
    node["devices"].as_array()[1] = as_device(stored("nvidia-h100.json"), 1, "GPU-bbbb");
    const auto common = profile::node_facts(node);
    ASSERT_FALSE(common.model_differences.empty());
    EXPECT_EQ(common.model_differences[0], "device 1: model NVIDIA H100 80GB HBM3, device 0: NVIDIA H200");
    EXPECT_TRUE(common.facts.is_null());
    EXPECT_THROW(render::render_header(node, {}, render::embedded_header_template()), std::invalid_argument);
    // The table still shows the node, and says why there are no common facts.
    EXPECT_NE(render::render_table(node, {}, false).find("not one model"), std::string::npos);
}

TEST(Node, HeaderListsTheDevicesAndEveryLinkWithItsUnmeasuredReason) {
    const auto node = two_h200s();
    const auto header = render::render_header(node, {}, render::embedded_header_template());
    EXPECT_NE(header.find("inline constexpr int device_count = 2;"), std::string::npos);
    EXPECT_NE(header.find("{1, \"NVIDIA H200\", \"GPU-bbbb\"}"), std::string::npos);
    EXPECT_NE(header.find("inline constexpr std::size_t link_count = 2;"), std::string::npos);
    EXPECT_NE(header.find("link_value load_latency_ns;"), std::string::npos);
    EXPECT_NE(header.find("{0.0, false, \"a reason \\\"with quotes\\\"\"}"), std::string::npos);
    // The facts are device 0's.
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_DEVICE_UUID \"GPU-aaaa\""), std::string::npos);
}

TEST(Node, SingleProfileIsANodeOfOneWithoutLinks) {
    const auto header = render::render_header(stored("nvidia-h100.json"), {}, render::embedded_header_template());
    EXPECT_NE(header.find("inline constexpr int device_count = 1;"), std::string::npos);
    EXPECT_NE(header.find("inline constexpr std::size_t link_count = 0;\ninline constexpr const peer_link* links = nullptr;"),
              std::string::npos);
    EXPECT_EQ(render::node_table(stored("nvidia-h100.json")), "");
}

TEST(Node, TableAndCMakeNameEveryDeviceAndLink) {
    const auto node = two_h200s();
    const auto table = render::render_table(node, {}, true);
    EXPECT_NE(table.find("node: 2 devices"), std::string::npos);
    EXPECT_NE(table.find("link 1 -> 0: nvlink x18, nominal 450 GB/s\n"), std::string::npos);
    EXPECT_NE(table.find("not measured (a reason \"with quotes\")"), std::string::npos);
    const auto summary = render::render_table(node, {}, false);  // one line a link
    EXPECT_NE(summary.find("link 1 -> 0: nvlink x18, nominal 450 GB/s: SM read 300 GB/s, load not measured"),
              std::string::npos) << summary;
    const auto cmake = render::render_cmake(node, {});
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_DEVICE_COUNT 2)"), std::string::npos);
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_DEVICE_UUIDS \"GPU-aaaa;GPU-bbbb\")"), std::string::npos);
}

// What NVML says becomes the route; the answers below are made up, one per kind of machine.
TEST(Node, TheRouteFollowsWhereTheLinksEnd) {
    using stages::NvlinkRoute;
    const auto route_of = [](const std::optional<NvlinkRoute>& nvml) {
        model::LinkRoute route;
        stages::apply_nvlink_route(nvml, route);
        return route;
    };
    const auto switched = route_of(NvlinkRoute{.known = true, .to_switch = 18, .active = 18, .bytes_per_s = 478e9});
    EXPECT_EQ(switched.transport, "nvswitch");
    EXPECT_EQ(switched.nvlinks, 18u);
    EXPECT_EQ(switched.nominal_bytes_per_s, 478e9);
    const auto direct = route_of(NvlinkRoute{.known = true, .to_peer = 4, .active = 12, .bytes_per_s = 100e9});
    EXPECT_EQ(direct.transport, "nvlink");
    EXPECT_EQ(direct.nvlinks, 4u);
    // An NVLink bridge to a third card: active links, none to the peer or a switch.
    const auto bridged_elsewhere = route_of(NvlinkRoute{.known = true, .active = 4, .bytes_per_s = 100e9});
    EXPECT_EQ(bridged_elsewhere.transport, "pcie");
    EXPECT_EQ(bridged_elsewhere.nvlinks, 0u);
    EXPECT_FALSE(bridged_elsewhere.nominal_bytes_per_s) << "the bridge's rate is not this pair's";
    const auto slow = route_of(NvlinkRoute{.known = true, .to_peer = 2, .active = 2,
                                           .rate_reason = "NVML reported no speed for some active link"});
    EXPECT_EQ(slow.route_source, "CUDA runtime and NVML (NVML reported no speed for some active link)");
    EXPECT_FALSE(slow.nominal_bytes_per_s);
    const auto absent = route_of(NvlinkRoute{.known = false, .reason = "libnvidia-ml.so.1 could not be loaded"});
    EXPECT_EQ(absent.transport, "unknown");
    EXPECT_EQ(absent.route_source, "CUDA runtime; NVML: libnvidia-ml.so.1 could not be loaded");
    const auto not_asked = route_of(std::nullopt);
    EXPECT_EQ(not_asked.transport, "unknown");
    EXPECT_EQ(not_asked.route_source, "CUDA runtime; NVML not consulted (--no-nvml)");
}

}  // namespace

// Node profile -> SVG picture of its devices and links: a document a browser can
// parse, profile text that stays text, the reason of every unmeasured link value
// in a tooltip, the same bytes each time, and nodes of 1 to 64 devices.
#include "util/format.hpp"
#include "model/node.hpp"
#include "profile/node_profile.hpp"
#include "profile/profile.hpp"
#include "pictures/node_svg.hpp"
#include "pictures/svg.hpp"
#include "node_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace {
using namespace gpu_topology;
using util::Json;

// The stored H200 profile as device `index` of a node, with a UUID of its own.
Json device(const Json& h200, int index) {
    return test::as_device(h200, index, "GPU-00000000-0000-0000-0000-" + std::to_string(100000000000 + index));
}

model::LinkValue measured(double value, double min, double max) { return {value, {min, max, 5}, {}}; }
model::LinkValue unmeasured(const std::string& why) { return {std::nullopt, {}, why}; }

// SYNTHETIC TEST INPUTS, NOT MEASUREMENTS: the route and every link number
// below are made up to exercise the picture; no GPU measured them.
model::Link nvlink(int from, int to) {
    model::Link link;
    link.from = from;
    link.to = to;
    link.route = {true, 0, true, "nvlink", 18, 450e9, "synthetic test route"};
    link.values[model::link_quantity_index("ce_read_bytes_per_s")] = measured(370e9, 365e9, 372e9);
    link.values[model::link_quantity_index("ce_write_bytes_per_s")] = measured(380e9, 378e9, 383e9);
    link.values[model::link_quantity_index("sm_read_bytes_per_s")] = measured(400e9 - 50e9 * from, 390e9 - 50e9 * from,
                                                                               410e9 - 50e9 * from);
    link.values[model::link_quantity_index("sm_write_bytes_per_s")] = unmeasured("synthetic: store kernel not run");
    link.values[model::link_quantity_index("load_latency_ns")] = measured(1234, 1200, 1300);
    link.values[model::link_quantity_index("load_latency_cycles")] = measured(2443, 2400, 2570);
    return link;
}

// A node whose devices are stored profiles (node_fixture.hpp).
struct TestNode : model::NodeTopology {
    std::vector<Json> device_profiles;
};
Json to_json(const TestNode& node) { return test::node_profile(node, node.device_profiles); }

// `count` copies of the stored H200, the links of every ordered pair when `with_links`.
TestNode node_of(int count, bool with_links = true) {
    const Json h200 = test::stored_profile("nvidia-h200.json");
    TestNode node;
    node.probe_version = "1.0.0";
    node.duration_s = 12.34;  // synthetic
    node.slowest_device_s = 3.34;
    node.links_s = 9;
    for (int i = 0; i < count; ++i) node.device_profiles.push_back(device(h200, i));
    if (with_links)
        for (int from = 0; from < count; ++from)
            for (int to = 0; to < count; ++to)
                if (from != to) node.links.push_back(nvlink(from, to));
    return node;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

void expect_well_formed(const std::string& svg) {
    ASSERT_FALSE(svg.empty());
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    ASSERT_GE(svg.size(), 7u);
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
    EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
    EXPECT_EQ(count(svg, "<title>"), count(svg, "</title>"));
    EXPECT_EQ(count(svg, "<text"), count(svg, "</text>"));
    EXPECT_NE(svg.find("font-family=\"sans-serif\""), std::string::npos);
}

void expect_valid(const Json& node) {
    const auto errors = profile::validate_node(node);
    std::string all;
    for (const auto& e : errors) all += e + "\n";
    EXPECT_TRUE(errors.empty()) << all;
}

TEST(NodeSvg, TwoDevicesAreAWellFormedDocument) {
    expect_valid(to_json(node_of(2)));
    const auto svg = render::node_svg(to_json(node_of(2)));
    expect_well_formed(svg);
    EXPECT_NE(svg.find(">2 devices: NVIDIA H200</text>"), std::string::npos);
    EXPECT_NE(svg.find("probe 1.0.0"), std::string::npos);
    EXPECT_NE(svg.find("node probe 12.3 s"), std::string::npos);
    EXPECT_EQ(count(svg, "<g class=\"device\">"), 2u);
    EXPECT_EQ(count(svg, "<g class=\"link\">"), 2u);
    EXPECT_EQ(count(svg, "<g class=\"same-device\">"), 2u);
    // The cell text: transport and NVLink count, both bandwidths, the latency.
    EXPECT_NE(svg.find(">NVLink x18</text>"), std::string::npos);
    EXPECT_NE(svg.find(">SM read 400 GB/s</text>"), std::string::npos);
    EXPECT_NE(svg.find(">CE read 370 GB/s</text>"), std::string::npos);
    EXPECT_NE(svg.find(">latency 1234 ns</text>"), std::string::npos);
    // The stored H200's own facts in its row: 132 SMs, 60 MiB of L2.
    EXPECT_NE(svg.find(">132</text>"), std::string::npos);
    EXPECT_NE(svg.find(">60 MiB</text>"), std::string::npos);
}

TEST(NodeSvg, CellTooltipListsEveryLinkQuantityAndTheNominalRate) {
    const auto svg = render::node_svg(to_json(node_of(2)));
    for (const auto& q : model::kLinkQuantities)
        EXPECT_EQ(count(svg, std::string(q.member) + ": "), 2u) << q.member;
    EXPECT_NE(svg.find("nominal 450 GB/s per direction"), std::string::npos);
    EXPECT_NE(svg.find("load_latency_ns: 1234 ns (1200 ns..1300 ns, 5 repeats)"), std::string::npos);

    auto node = node_of(2);
    node.links[0].route.nominal_bytes_per_s.reset();
    EXPECT_NE(render::node_svg(to_json(node)).find("nominal rate unknown"), std::string::npos);
}

TEST(NodeSvg, SlowerLinksAreLighter) {
    // Link 0->1 reads at 400 GB/s (the best, darkest), 1->0 at 350 GB/s.
    const auto svg = render::node_svg(to_json(node_of(2)));
    EXPECT_NE(svg.find("fill=\"#4a90d9\""), std::string::npos);
    EXPECT_NE(svg.find("best measured link (400 GB/s)"), std::string::npos);
}

TEST(NodeSvg, ProfileTextIsEscaped) {
    auto node = node_of(2);
    node.device_profiles[1]["device"]["name"] = "Evil <script>& GPU";
    const Json document = to_json(node);
    expect_valid(document);
    const auto svg = render::node_svg(document);
    expect_well_formed(svg);
    EXPECT_EQ(svg.find("<script>"), std::string::npos);
    EXPECT_EQ(svg.find("<script>&"), std::string::npos);
    EXPECT_NE(svg.find("Evil &lt;script&gt;&amp; GPU"), std::string::npos);
    // Both models named in the title, each once.
    EXPECT_NE(svg.find(">2 devices: NVIDIA H200, Evil &lt;script&gt;&amp; GPU</text>"), std::string::npos);
}

TEST(NodeSvg, UnmeasuredLinkValueShowsItsReason) {
    auto node = node_of(2);
    node.links[0].values[model::link_quantity_index("sm_read_bytes_per_s")] =
        unmeasured("synthetic: the read kernel & its <timer> failed");
    const Json document = to_json(node);
    expect_valid(document);
    const auto svg = render::node_svg(document);
    expect_well_formed(svg);
    EXPECT_NE(svg.find("sm_read_bytes_per_s: not measured: synthetic: the read kernel &amp; its &lt;timer&gt; failed"),
              std::string::npos);
    EXPECT_NE(svg.find("sm_write_bytes_per_s: not measured: synthetic: store kernel not run"), std::string::npos);
    EXPECT_NE(svg.find(">SM read \xe2\x80\x94</text>"), std::string::npos);  // "—" in the cell
    EXPECT_NE(svg.find("fill=\"url(#node-unmeasured)\""), std::string::npos);
}

TEST(NodeSvg, UnmeasuredDeviceValueShowsItsReason) {
    auto node = node_of(2);
    Json unmeasured_dram = Json::object();
    unmeasured_dram["value"] = nullptr;
    unmeasured_dram["unit"] = "bytes/s";
    unmeasured_dram["source"] = "unmeasured";
    unmeasured_dram["reason"] = "synthetic: the bandwidth stage was skipped";
    node.device_profiles[1]["caches"]["dram"]["bandwidth_bytes_per_s"] = unmeasured_dram;
    const auto svg = render::node_svg(to_json(node));
    expect_well_formed(svg);
    EXPECT_NE(svg.find("<g class=\"not-measured\"><title>DRAM_BANDWIDTH_BYTES_PER_S (DRAM read bandwidth, all SMs): "
                       "not measured: synthetic: the bandwidth stage was skipped</title>"),
              std::string::npos);
    EXPECT_EQ(count(svg, ">not measured</text>"), 1u);
    // device 0 keeps its measured value
    const auto dram = profile::read_quantity(node.device_profiles[0], "DRAM_BANDWIDTH_BYTES_PER_S").value;
    ASSERT_TRUE(dram);
    EXPECT_NE(svg.find(">" + util::format_bandwidth(*dram) + "</text>"), std::string::npos);
}

TEST(NodeSvg, NoPeerAccessIsSaid) {
    auto node = node_of(2);
    node.links[1].route.peer_access = false;
    EXPECT_NE(render::node_svg(to_json(node)).find(">no P2P</text>"), std::string::npos);
}

TEST(NodeSvg, OneDeviceWithoutLinksRenders) {
    const Json document = to_json(node_of(1, false));
    expect_valid(document);
    const auto svg = render::node_svg(document);
    expect_well_formed(svg);
    EXPECT_NE(svg.find(">1 device: NVIDIA H200</text>"), std::string::npos);
    EXPECT_EQ(count(svg, "<g class=\"link\">"), 0u);
    EXPECT_EQ(count(svg, "<g class=\"same-device\">"), 1u);
}

TEST(NodeSvg, SixtyFourDevicesRender) {
    const Json document = to_json(node_of(64));
    std::string svg;
    ASSERT_NO_THROW(svg = render::node_svg(document));
    expect_well_formed(svg);
    EXPECT_EQ(count(svg, "<g class=\"link\">"), 64u * 63u);
    EXPECT_NE(svg.find("hover a cell for its values"), std::string::npos);
}

TEST(NodeSvg, MalformedDocumentsStillRender) {
    // Parsed, not validated: missing links, an empty node and a link to nowhere draw, they do not throw.
    auto node = node_of(3);
    node.links.resize(2);
    node.links[1].to = 7;
    const auto svg = render::node_svg(to_json(node));
    expect_well_formed(svg);
    EXPECT_EQ(count(svg, "<g class=\"missing-link\">"), 5u);
    expect_well_formed(render::node_svg(Json::object()));
    expect_well_formed(render::node_svg(Json::parse(R"({"devices": [1, "x"], "links": [{"from": 0, "to": 1}]})")));
}

}  // namespace

// Profile -> SVG picture of the hierarchy: a document a browser can parse, every
// curve point and change point drawn, every level labelled (unmeasured, bounds
// and doubts said so), profile text that stays text, and the same bytes each time.
#include "util/format.hpp"
#include "profile/profile.hpp"
#include "pictures/svg.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
using namespace gpu_topology;
using util::Json;

const std::string kDot = " \xc2\xb7 ";     // " · "
const std::string kAtLeast = "\xe2\x89\xa5 ";  // "≥ "

// Parsed, not validated: the picture is drawn from whatever a profile holds
// (validation is profile_test's subject). svg_h100_profile.json is an H100
// profile of an earlier probe version, kept fixed so these expectations hold.
Json load(const std::string& name) {
    const auto file = std::filesystem::path(GPU_TOPOLOGY_TEST_DATA) / name;
    return Json::parse(profile::read_profile_bytes(file), file.string());
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

std::size_t array_size(const Json& root, const std::string& path) {
    const Json* node = root.at_path(path);
    return node && node->is_array() ? node->as_array().size() : 0;
}

// The profile less one top-level member (Json has no erase).
Json without(const Json& root, const std::string& key) {
    Json out = Json::object();
    for (const auto& [k, v] : root.as_object())
        if (k != key) out[k] = v;
    return out;
}

Json unmeasured(const std::string& unit, const std::string& why) {
    Json u = Json::object();
    u["value"] = nullptr;
    u["unit"] = unit;
    u["source"] = "unmeasured";
    u["reason"] = why;
    return u;
}

// Empty when `svg` is a well-formed document as far as this picture goes: one
// <svg> root, every element closed in order, every '&' an entity, no raw '<' in text.
std::string structure_problem(const std::string& svg) {
    std::vector<std::string> open;
    for (std::size_t i = 0; i < svg.size(); ++i) {
        if (svg[i] == '&') {
            const auto end = svg.find(';', i);
            const std::string entity = end == std::string::npos ? "" : svg.substr(i, end - i + 1);
            if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&#39;" &&
                entity != "&#10;")
                return "bare '&' at " + std::to_string(i);
            continue;
        }
        if (svg[i] != '<') continue;
        const auto end = svg.find('>', i);
        if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
        const std::string tag = svg.substr(i + 1, end - i - 1);
        if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(i);
        const bool closing = tag.front() == '/';
        const bool empty = tag.back() == '/';
        const std::string name = tag.substr(closing, tag.find_first_of(" />", closing) - closing);
        if (closing) {
            if (open.empty() || open.back() != name)
                return "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
            open.pop_back();
            if (open.empty() && svg.find('<', end) != std::string::npos) return "content after the root";
        } else if (!empty) {
            if (open.empty() && name != "svg") return "root is <" + name + ">";
            open.push_back(name);
        }
        i = end;
    }
    return open.empty() ? "" : "<" + open.back() + "> is never closed";
}

void expect_well_formed(const std::string& svg) {
    ASSERT_FALSE(svg.empty());
    EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
    std::string trimmed = svg;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
    EXPECT_EQ(trimmed.substr(trimmed.size() - 6), "</svg>");
    EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
    EXPECT_EQ(structure_problem(svg), "");
    EXPECT_NE(svg.find("font-family=\"sans-serif\""), std::string::npos);
}

TEST(Svg, H100ProfileIsAWellFormedDocument) {
    expect_well_formed(render::hierarchy_svg(load("svg_h100_profile.json")));
}

TEST(Svg, EveryCurvePointAndChangePointIsDrawn) {
    const auto profile = load("svg_h100_profile.json");
    const auto svg = render::hierarchy_svg(profile);
    const auto points = array_size(profile, "curve.points");
    const auto changes = array_size(profile, "curve.change_points");
    ASSERT_GT(points, 10u) << "the test profile should carry a curve";
    ASSERT_GT(changes, 0u);
    EXPECT_EQ(count(svg, "<circle"), points);
    EXPECT_EQ(count(svg, "<circle class=\"curve-point\""), points);
    EXPECT_EQ(count(svg, "<polyline"), 1u);
    EXPECT_EQ(count(svg, "class=\"change-point\""), changes);
    EXPECT_EQ(svg.find("no latency curve"), std::string::npos);
}

TEST(Svg, LevelsAndBandwidthsAreLabelled) {
    const auto svg = render::hierarchy_svg(load("svg_h100_profile.json"));
    // L1 247808 bytes = 242 KiB, p50 32 cycles; DRAM p50 695; DRAM 3059180998736 bytes/s.
    EXPECT_NE(svg.find(">L1 242 KiB" + kDot + "32 cyc</text>"), std::string::npos);
    EXPECT_NE(svg.find(">L2 near 23.5 MiB" + kDot + "269 cyc</text>"), std::string::npos);
    EXPECT_NE(svg.find(">L2 50 MiB" + kDot + "501.5 cyc</text>"), std::string::npos);
    EXPECT_NE(svg.find(">DRAM 695 cyc</text>"), std::string::npos);
    EXPECT_NE(svg.find(">DRAM" + kDot + "3.06 TB/s</text>"), std::string::npos);
    EXPECT_NE(svg.find(">L1" + kDot + "24.2 TB/s</text>"), std::string::npos);
    EXPECT_EQ(count(svg, "class=\"bandwidth\""), 4u);
    // Ticks of the log2 axis in binary units.
    for (const char* tick : {">16 KiB<", ">1 MiB<", ">64 MiB<"}) EXPECT_NE(svg.find(tick), std::string::npos) << tick;
}

TEST(Svg, TitleNamesDeviceUuidVersionAndSource) {
    const auto svg = render::hierarchy_svg(load("svg_h100_profile.json"));
    EXPECT_NE(svg.find(">NVIDIA H100 80GB HBM3</text>"), std::string::npos);
    EXPECT_NE(svg.find(">GPU-120ea103-a8b8-0900-a693-584ada2a7d00" + kDot + "probe 1.0.0" + kDot + "measured</text>"),
              std::string::npos);
}

TEST(Svg, ProfileWithoutCurveSaysSoAndStillDrawsLevels) {
    const auto svg = render::hierarchy_svg(without(load("svg_h100_profile.json"), "curve"));
    expect_well_formed(svg);
    EXPECT_NE(svg.find("no latency curve in this profile"), std::string::npos);
    EXPECT_EQ(count(svg, "<circle"), 0u);
    EXPECT_EQ(count(svg, "change-point"), 0u);
    EXPECT_NE(svg.find(">L1 242 KiB" + kDot + "32 cyc</text>"), std::string::npos);
    EXPECT_NE(svg.find(">DRAM" + kDot + "3.06 TB/s</text>"), std::string::npos);
}

TEST(Svg, H200ProfileRendersEveryCurvePoint) {
    const auto file = std::filesystem::path(GPU_TOPOLOGY_PROFILES) / "nvidia-h200.json";
    const auto profile = Json::parse(profile::read_profile_bytes(file), file.string());
    const auto svg = render::hierarchy_svg(profile);
    expect_well_formed(svg);
    ASSERT_TRUE(profile.find("curve"));
    EXPECT_EQ(count(svg, "<circle"), array_size(profile, "curve.points"));
    EXPECT_NE(svg.find(">DRAM" + kDot), std::string::npos);
}

TEST(Svg, UnmeasuredBandwidthSaysWhy) {
    auto profile = load("svg_h100_profile.json");
    profile["caches"]["dram"]["bandwidth_bytes_per_s"] = unmeasured("bytes/s", "the runs contradict each other");
    const auto svg = render::hierarchy_svg(profile);
    expect_well_formed(svg);
    EXPECT_NE(svg.find(">DRAM" + kDot + "unmeasured</text>"), std::string::npos);
    EXPECT_NE(svg.find("contradict"), std::string::npos) << "the reason belongs in the tooltip";
}

TEST(Svg, ProfileTextIsEscapedEverywhere) {
    auto profile = load("svg_h100_profile.json");
    const std::string hostile = "GPU <script>&\"'x";
    profile["device"]["name"] = hostile;
    profile["device"]["uuid"] = "<uuid>";
    profile["source"] = "a&b";
    profile["curve"]["path"] = "</text><script>";
    const auto svg = render::hierarchy_svg(profile);
    expect_well_formed(svg);
    EXPECT_EQ(svg.find("<script"), std::string::npos);
    EXPECT_EQ(svg.find("<uuid"), std::string::npos);
    EXPECT_NE(svg.find(">GPU &lt;script&gt;&amp;&quot;&#39;x</text>"), std::string::npos);
    EXPECT_NE(svg.find("&lt;uuid&gt;"), std::string::npos);
    EXPECT_NE(svg.find("a&amp;b"), std::string::npos);
    EXPECT_NE(svg.find("&lt;/text&gt;&lt;script&gt;"), std::string::npos);
}

TEST(Svg, UnmeasuredBoundAndDoubtedValuesAreSaidSo) {
    auto profile = load("svg_h100_profile.json");
    profile["caches"]["l1"]["latency_cycles"] = unmeasured("cycles", "the <timer> stalled");
    profile["caches"]["l2"]["near_size_bytes"]["bound"] = "lower";
    profile["caches"]["l2"]["far_latency_cycles"]["doubt"] = "the GPU was busy";
    const auto svg = render::hierarchy_svg(profile);
    expect_well_formed(svg);
    EXPECT_NE(svg.find(">L1 242 KiB" + kDot + "latency unmeasured</text>"), std::string::npos);
    EXPECT_NE(svg.find("<title>L1_SIZE_BYTES"), std::string::npos);
    EXPECT_NE(svg.find("L1_LATENCY_CYCLES (L1 hit latency): unmeasured: the &lt;timer&gt; stalled"), std::string::npos);
    EXPECT_NE(svg.find(">L2 near " + kAtLeast + "23.5 MiB" + kDot + "269 cyc</text>"), std::string::npos);
    EXPECT_NE(svg.find(">L2 50 MiB" + kDot + "501.5 cyc (not vouched)</text>"), std::string::npos);
    EXPECT_NE(svg.find("not vouched for: the GPU was busy"), std::string::npos);
}

TEST(Svg, SameProfileGivesTheSameBytes) {
    const auto profile = load("svg_h100_profile.json");
    const auto first = render::hierarchy_svg(profile);
    EXPECT_EQ(first, render::hierarchy_svg(profile));
    EXPECT_EQ(first, render::hierarchy_svg(Json::parse(profile.dump(), "round trip")));
}

TEST(Svg, WriterWritesTheDocument) {
    const auto profile = load("svg_h100_profile.json");
    const auto dir = std::filesystem::path(testing::TempDir()) / "gpu_topology_svg_writer_test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "h100.svg";
    render::write_hierarchy_svg(profile, file);
    std::ifstream in(file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(bytes.str(), render::hierarchy_svg(profile));
    std::filesystem::remove_all(dir);
}

// GPU_TOPOLOGY_SVG_PREVIEW=<dir>: also write the pictures there, to look at them.
TEST(Svg, NumbersAreCompact) {
    EXPECT_EQ(util::format_bytes(512), "512 B");
    EXPECT_EQ(util::format_bytes(16384), "16 KiB");
    EXPECT_EQ(util::format_bytes(1 << 20), "1 MiB");
    EXPECT_EQ(util::format_bytes(64.0 * (1 << 20)), "64 MiB");
    EXPECT_EQ(util::format_bytes(24641536), "23.5 MiB");
    EXPECT_EQ(util::format_bytes(1048575), "1 MiB");
    EXPECT_EQ(util::format_bandwidth(3059180998736), "3.06 TB/s");
    EXPECT_EQ(util::format_bandwidth(850e9), "850 GB/s");
}

TEST(Svg, EscapingCoversMarkupAndBadBytes) {
    EXPECT_EQ(render::xml_escape("a&b<c>\"d'"), "a&amp;b&lt;c&gt;&quot;d&#39;");
    EXPECT_EQ(render::xml_escape("na\xc3\xafve"), "na\xc3\xafve");
    EXPECT_EQ(render::xml_escape("x\xff\x01y"), "x??y");
    EXPECT_EQ(render::xml_escape("\xed\xa0\x80"), "???") << "a UTF-16 surrogate is no XML character";
}

}  // namespace

// Profile -> header / CMake variables / table: values in the right places,
// unmeasured ones that cannot be used, and text that stays text.
#include "model/quantities.hpp"
#include "profile/profile.hpp"
#include "codegen/render.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {
using namespace gpu_topology;

util::Json stored() { return profile::load_profile(std::string(GPU_TOPOLOGY_PROFILES) + "/nvidia-h200.json"); }

void set_unmeasured(util::Json& p, const std::string& object, const std::string& member, const std::string& why) {
    util::Json u = util::Json::object();
    u["value"] = nullptr;
    u["unit"] = "cycles";
    u["source"] = "unmeasured";
    u["reason"] = why;
    const_cast<util::Json&>(*p.at_path(object))[member] = u;
}

TEST(Render, HeaderCarriesIdentityAndEveryKnownValue) {
    const auto profile = stored();
    const auto header = render::render_header(profile, {"stored:nvidia-h200.json", "fnv1a64:0"},
                                              render::embedded_header_template());
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_DEVICE_NAME \"NVIDIA H200\""), std::string::npos);
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_PROFILE_SOURCE \"stored:nvidia-h200.json\""), std::string::npos);
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_PROFILE_IS_STORED 1"), std::string::npos);
    EXPECT_EQ(header.find('@'), std::string::npos) << "a placeholder was left unfilled";
    for (const auto& q : model::kQuantities) {
        const auto v = profile::read_quantity(profile, q);
        const std::string macro = "#define GPU_TOPOLOGY_" + std::string(q.name);
        if (v.value)
            EXPECT_NE(header.find(macro + " " + util::format_number(std::round(*v.value)) + "\n"), std::string::npos)
                << q.name;
        else
            EXPECT_NE(header.find(macro + "_UNMEASURED 1\n"), std::string::npos) << q.name;
    }
}

TEST(Render, UnmeasuredQuantityIsAnUnknownTypeWithItsReason) {
    auto profile = stored();
    set_unmeasured(profile, "caches.l2", "far_latency_cycles", "no second plateau");
    const auto header = render::render_header(profile, {}, render::embedded_header_template());
    EXPECT_EQ(header.find("#define GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES "), std::string::npos);
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES_UNMEASURED 1"), std::string::npos);
    EXPECT_NE(header.find("struct L2_FAR_LATENCY_CYCLES {\n    static constexpr const char* reason = \"no second plateau\";"),
              std::string::npos);
    EXPECT_NE(header.find("unknown<std::uint32_t, not_measured::L2_FAR_LATENCY_CYCLES> far_latency_cycles;"),
              std::string::npos);
    const auto cmake = render::render_cmake(profile, {});
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES_UNMEASURED \"no second plateau\")"), std::string::npos);
}

// A quantity added to the list after a profile was written is not in it: the
// profile stays valid, and the quantity reads, renders and exports as unmeasured.
TEST(Render, QuantityNewerThanTheProfileIsUnmeasured) {
    auto profile = stored();
    profile.path_to("probe.version") = "1.0.0";  // a probe before model::kEveryQuantitySince
    auto& l2 = const_cast<util::Json&>(*profile.at_path("caches.l2")).as_object();
    ASSERT_EQ(std::erase_if(l2, [](const auto& member) { return member.first == "far_latency_cycles"; }), 1u);
    EXPECT_TRUE(profile::validate(profile).empty());
    const auto v = profile::read_quantity(profile, "L2_FAR_LATENCY_CYCLES");
    EXPECT_FALSE(v.value);
    EXPECT_FALSE(v.source);
    EXPECT_NE(v.reason.find("not in this profile: the probe that wrote it (version "), std::string::npos) << v.reason;
    const auto header = render::render_header(profile, {}, render::embedded_header_template());
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES_UNMEASURED 1"), std::string::npos);
    EXPECT_NE(header.find("unknown<std::uint32_t, not_measured::L2_FAR_LATENCY_CYCLES> far_latency_cycles;"),
              std::string::npos);
    EXPECT_NE(render::render_cmake(profile, {}).find("set(GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES_UNMEASURED \"not in this profile"),
              std::string::npos);
}

TEST(Render, CMakeVariablesMatchTheProfile) {
    const auto profile = stored();
    const auto cmake = render::render_cmake(profile, {});
    for (const auto& q : model::kQuantities) {
        const auto v = profile::read_quantity(profile, q);
        if (v.value)
            EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_" + std::string(q.name) + " " +
                                 util::format_number(std::round(*v.value)) + ")"),
                      std::string::npos)
                << q.name;
    }
}

TEST(Render, TextIsEscapedForCAndCMake) {
    EXPECT_EQ(render::c_string_body(R"(a"b\c??=d)"), R"(a\"b\\c\?\?=d)");
    EXPECT_EQ(render::c_string_body("na\xc3\xafve"), "na\\303\\257ve");
    EXPECT_EQ(render::cmake_quoted_body(R"(x]==] ${PWNED} "q" \ ; @)"), R"(x]==] \${PWNED} \"q\" \\ ; \@)");
    EXPECT_THROW(render::c_string_body("a\nb"), std::invalid_argument);
    EXPECT_THROW(render::cmake_quoted_body("a\rb"), std::invalid_argument);
}

TEST(Render, HostileNamesStayStrings) {
    auto profile = stored();
    const std::string name = R"(GPU ]==] message(FATAL_ERROR x) #[==[ "*/ #define l1 0 /*" \ $ENV{HOME})";
    const_cast<util::Json&>(*profile.at_path("device"))["name"] = name;
    const auto header = render::render_header(profile, {}, render::embedded_header_template());
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_DEVICE_NAME \"" + render::c_string_body(name) + "\""), std::string::npos);
    EXPECT_EQ(header.find("\n#define l1 0"), std::string::npos);
    const auto cmake = render::render_cmake(profile, {});
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_DEVICE_NAME \"" + render::cmake_quoted_body(name) + "\")"), std::string::npos);
}

// What validates renders: long doubts and reasons, of multi-byte characters or
// plain ASCII, are cut on a character boundary and marked, one line each.
TEST(Render, LongTextIsCutOnCharactersAndMarked) {
    std::string accented = "x";
    for (int i = 0; i < 1000; ++i) accented += "\xc3\xa9";  // 'é': 2001 bytes
    for (const std::string& doubt : {accented, std::string(1600, 'a'), std::string(4096, 'b')}) {
        auto profile = stored();
        const_cast<util::Json&>(*profile.at_path("caches.l2.near_size_bytes"))["doubt"] = doubt;
        set_unmeasured(profile, "caches.l2", "far_latency_cycles", doubt);
        ASSERT_EQ(profile::validate(profile), std::vector<std::string>{});
        const auto table = render::render_table(profile, {}, true);
        std::size_t lines = 0, cut = 0;
        for (std::size_t begin = table.find('\n') + 1; begin < table.size();) {
            const auto end = table.find('\n', begin);
            const std::string line = table.substr(begin, end - begin);
            EXPECT_EQ(line.rfind("  ", 0), 0u) << "a line glued onto another: " << line.substr(0, 80);
            EXPECT_LT(line.size(), 700u);
            EXPECT_TRUE(util::is_safe_text(line));
            cut += line.find(" [...]") != std::string::npos;
            ++lines;
            begin = end + 1;
        }
        EXPECT_EQ(lines, model::kQuantities.size());
        EXPECT_EQ(cut, 2u);
        EXPECT_NO_THROW(render::render_cmake(profile, {}));
        EXPECT_NO_THROW(render::render_header(profile, {}, render::embedded_header_template()));
    }
}

TEST(Render, UnknownPlaceholderIsAnError) {
    EXPECT_THROW(render::render_header(stored(), {}, "x @NOT_A_QUANTITY@ y"), std::runtime_error);
}

TEST(Render, SummaryTableNamesWhatIsNotVouchedFor) {
    auto profile = stored();
    const_cast<util::Json&>(*profile.at_path("caches.l2.near_size_bytes"))["doubt"] = "the GPU was busy";
    const auto table = render::render_table(profile, {}, false);
    EXPECT_NE(table.find("NOT VOUCHED FOR: the GPU was busy"), std::string::npos) << table;
    EXPECT_NE(table.find("quantities known"), std::string::npos);
    EXPECT_LT(std::count(table.begin(), table.end(), '\n'), 10);
}

}  // namespace

// Profile -> header / CMake variables / table.
#include "profile/profile.hpp"
#include "render/render.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace {
using namespace gpu_topology;

profile::Json stored() {
    return profile::load_profile(std::string(GPU_TOPOLOGY_PROFILES) + "/nvidia-h200.json");
}

TEST(Render, HeaderCarriesIdentityAndMeasuredMacros) {
    const auto header = render::render_header(stored(), {"stored:nvidia-h200.json", "fnv1a64:0"},
                                              render::embedded_header_template());
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_DEVICE_NAME \"NVIDIA H200\""), std::string::npos);
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_PROFILE_SOURCE \"stored:nvidia-h200.json\""), std::string::npos);
    EXPECT_NE(header.find("#define GPU_TOPOLOGY_L1_SIZE_BYTES "), std::string::npos);
    EXPECT_EQ(header.find('@'), std::string::npos) << "a placeholder was left unfilled";
}

TEST(Render, UnmeasuredQuantityHasNoMacroAndZeroConstant) {
    auto profile = stored();
    const_cast<profile::Json&>(*profile.at_path("caches.l2"))["far_latency_cycles"] =
        profile::unmeasured("cycles", "no second plateau");
    const auto header = render::render_header(profile, {}, render::embedded_header_template());
    EXPECT_EQ(header.find("#define GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES"), std::string::npos);
    EXPECT_NE(header.find("GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES: not measured: no second plateau"), std::string::npos);
    EXPECT_NE(header.find("l2_far_latency_cycles = 0;"), std::string::npos);
    const auto cmake = render::render_cmake(profile, {});
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES_UNMEASURED [==[no second plateau]==])"),
              std::string::npos);
}

TEST(Render, CMakeVariablesMatchTheProfile) {
    const auto profile = stored();
    const auto cmake = render::render_cmake(profile, {});
    const auto l1 = profile::read_quantity(profile, *profile::find_quantity("L1_SIZE_BYTES"));
    ASSERT_TRUE(l1.value);
    EXPECT_NE(cmake.find("set(GPU_TOPOLOGY_L1_SIZE_BYTES " + profile::format_number(*l1.value) + ")"),
              std::string::npos);
}

TEST(Render, UnknownPlaceholderIsAnError) {
    EXPECT_THROW(render::render_header(stored(), {}, "x @NOT_A_QUANTITY@ y"), std::runtime_error);
}

}  // namespace

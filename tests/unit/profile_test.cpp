// Profile read / validate / write, and the errors a user sees for bad input.
#include "profile/profile.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace {
using namespace gpu_topology::profile;

std::string stored_text() {
    std::ifstream in(std::string(GPU_TOPOLOGY_PROFILES) + "/nvidia-h200.json");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string error_of(const std::string& text) {
    try {
        load_profile_text(text, "broken.json");
    } catch (const ProfileError& e) {
        return e.what();
    }
    return "";
}

TEST(Profile, StoredProfileIsValid) {
    const auto profile = load_profile_text(stored_text(), "nvidia-h200.json");
    EXPECT_EQ(profile.at_path("schema")->as_string(), kSchema);
}

TEST(Profile, RoundTripKeepsEveryValue) {
    const auto original = load_profile_text(stored_text(), "a.json");
    const auto again = load_profile_text(original.dump(), "b.json");
    EXPECT_EQ(original.dump(), again.dump());
    for (const auto& spec : kQuantities) {
        const auto a = read_quantity(original, spec), b = read_quantity(again, spec);
        EXPECT_EQ(a.value, b.value) << spec.name;
        EXPECT_EQ(a.source, b.source) << spec.name;
    }
}

TEST(Profile, MissingFieldIsNamed) {
    auto profile = Json::parse(stored_text());
    auto& l1 = const_cast<Json&>(*profile.at_path("caches.l1"));
    auto object = l1.as_object();
    Json pruned = Json::object();
    for (auto& [k, v] : object)
        if (k != "line_bytes") pruned[k] = v;
    l1 = pruned;
    EXPECT_NE(error_of(profile.dump()).find("caches.l1.line_bytes: missing"), std::string::npos);
}

TEST(Profile, WrongTypeIsNamedWithItsValue) {
    auto profile = Json::parse(stored_text());
    const_cast<Json&>(*profile.at_path("caches.l1.size_bytes"))["value"] = "big";
    const auto error = error_of(profile.dump());
    EXPECT_NE(error.find("broken.json"), std::string::npos);
    EXPECT_NE(error.find("caches.l1.size_bytes.value: expected number, got string (\"big\")"), std::string::npos)
        << error;
}

TEST(Profile, UnknownSchemaIsRefused) {
    auto profile = Json::parse(stored_text());
    profile["schema"] = "gpu-topology/99";
    EXPECT_NE(error_of(profile.dump()).find("schema: unknown schema \"gpu-topology/99\""), std::string::npos);
}

TEST(Profile, TruncatedFileGivesLineAndColumn) {
    const auto text = stored_text();
    const auto error = error_of(text.substr(0, text.size() / 2));
    EXPECT_NE(error.find("broken.json:"), std::string::npos);
    EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

TEST(Profile, UnmeasuredValueMustSayWhy) {
    auto profile = Json::parse(stored_text());
    const_cast<Json&>(*profile.at_path("caches.l2"))["far_latency_cycles"] = unmeasured("cycles", "");
    EXPECT_NE(error_of(profile.dump()).find("caches.l2.far_latency_cycles.reason"), std::string::npos);
}

// A probe that skipped a stage marks only that stage's quantities, with its reason.
TEST(Profile, SkippedStageMarksOnlyItsQuantities) {
    auto profile = Json::parse(stored_text());
    profile["caches"]["texture"] = Json::object();
    profile["caches"]["l2"] = Json::object();
    mark_absent_unmeasured(profile, "skipped: stage 'texture readonly' (not part of the quick level)",
                           [](std::string_view path) { return path.substr(0, 15) == "caches.texture."; });
    const auto texture = read_quantity(profile, *find_quantity("TEXTURE_SIZE_BYTES"));
    EXPECT_EQ(texture.source, "unmeasured");
    EXPECT_EQ(texture.reason, "skipped: stage 'texture readonly' (not part of the quick level)");
    EXPECT_EQ(profile.at_path("caches.l2.line_bytes"), nullptr);  // not selected: still absent
    mark_absent_unmeasured(profile, "not measured");
    EXPECT_EQ(read_quantity(profile, *find_quantity("L2_LINE_BYTES")).reason, "not measured");
    EXPECT_EQ(error_of(profile.dump()), "");
}

TEST(Json, ParsesEscapesAndRejectsDuplicates) {
    EXPECT_EQ(Json::parse(R"({"a": "x\"y\u0041"})").find("a")->as_string(), "x\"yA");
    EXPECT_THROW(Json::parse(R"({"a": 1, "a": 2})"), JsonError);
    EXPECT_THROW(Json::parse("[1, 2"), JsonError);
}

}  // namespace

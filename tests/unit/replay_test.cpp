// Every stage, the SweepRunner and the analysis on the CPU: the engine calls
// of whole probes on real GPUs (tests/data/*.enginelog.tar.gz, recorded with
// `gpu-topology-probe probe --record`) are replayed, and the profile must be
// the one the GPU run wrote (tests/data/*_probe.json), value for value.
#include "replay/recorded_engine.hpp"
#include "stages/stages.hpp"
#include "model/serialize.hpp"
#include "profile/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace {
using namespace gpu_topology;
namespace fs = std::filesystem;

// Each stored profile is a probe's profile of a whole run; its engine log replays it.
const std::vector<std::string> kRecordings{"nvidia-h200", "nvidia-h100"};

fs::path log_of(const std::string& name) { return fs::path(GPU_TOPOLOGY_REPLAY_DIR) / (name + ".enginelog"); }

model::Topology replay(const fs::path& log, stages::ProbeOptions options = {}, stages::Monitor* watch = nullptr) {
    // The recordings are of full runs: a quick one leaves some of their calls out.
    stages::ReplayEngine engine(log, options.level == stages::Level::quick
                                             ? stages::ReplayEngine::Matching::subsequence
                                             : stages::ReplayEngine::Matching::every_call);
    stages::Progress quiet(false);
    stages::BlindMonitor blind("replay");
    return stages::measure_topology(engine, engine.facts(), options, quiet, watch ? *watch : blind);
}

class Recorded : public ::testing::TestWithParam<std::string> {};

TEST_P(Recorded, ReplayReproducesTheProfileOfTheGpuRun) {
    const auto recorded = profile::load_profile(fs::path(GPU_TOPOLOGY_PROFILES) / (GetParam() + ".json"));
    stages::ReplayEngine engine(log_of(GetParam()));
    stages::Progress quiet(false);
    stages::BlindMonitor blind("replay");
    const auto replayed = model::to_json(stages::measure_topology(engine, engine.facts(), {}, quiet, blind));
    EXPECT_EQ(engine.calls_replayed(), engine.calls_recorded()) << "the probe made fewer calls than were recorded";
    EXPECT_TRUE(profile::validate(replayed).empty());
    for (const auto& q : model::kQuantities) {
        if (!recorded.at_path(q.path)) continue;  // newer than the recording: nothing to compare it with
        const auto want = profile::read_quantity(recorded, q), got = profile::read_quantity(replayed, q);
        EXPECT_EQ(got.value, want.value) << q.name;
        EXPECT_EQ(got.source, want.source) << q.name;
        EXPECT_EQ(got.reason, want.reason) << q.name;
        EXPECT_EQ(got.lower_bound, want.lower_bound) << q.name;
    }
    EXPECT_EQ(replayed.at_path("caches.l1.carveouts")->dump(), recorded.at_path("caches.l1.carveouts")->dump());
    const auto& checks = replayed.at_path("cross_checks")->as_array();
    ASSERT_EQ(checks.size(), recorded.at_path("cross_checks")->as_array().size());
    for (const auto& c : checks) EXPECT_TRUE(c.find("passed")->as_bool()) << c.dump(-1);
}

// The quick level runs the first stages of the full one, one L2 placement fewer: a subsequence of its calls.
TEST_P(Recorded, QuickLevelSkipsWhatItLeavesOut) {
    stages::ProbeOptions quick;
    quick.level = stages::Level::quick;
    const auto json = model::to_json(replay(log_of(GetParam()), quick));
    EXPECT_TRUE(profile::validate(json).empty());
    EXPECT_TRUE(profile::read_quantity(json, "L1_SIZE_BYTES").value);
    EXPECT_TRUE(profile::read_quantity(json, "L2_BANDWIDTH_BYTES_PER_S").value);
    const auto texture = profile::read_quantity(json, "TEXTURE_SIZE_BYTES");
    EXPECT_FALSE(texture.value);
    EXPECT_EQ(texture.reason, "skipped: stage 'texture readonly' (not part of the quick level)");
    EXPECT_EQ(json.at_path("probe.level")->as_string(), "quick");
    // One L2 placement: the first of the full run's two.
    const auto* near = json.at_path("caches.l2.near_size_bytes");
    ASSERT_TRUE(near);
    EXPECT_NE(near->find("method")->as_string().find("one ring placement (quick level)"), std::string::npos);
    const auto full = profile::load_profile(fs::path(GPU_TOPOLOGY_PROFILES) / (GetParam() + ".json"));
    EXPECT_EQ(near->find("value")->as_number(),
              full.at_path("caches.l2.near_size_bytes.placement_1_bytes")->as_number());
}

// Replaying every call: a probe that makes a call the recording does not have there fails at once.
TEST_P(Recorded, EveryCallMatchingRefusesALeftOutCall) {
    stages::ProbeOptions quick;
    quick.level = stages::Level::quick;
    stages::ReplayEngine engine(log_of(GetParam()));
    stages::Progress quiet(false);
    stages::BlindMonitor blind("replay");
    EXPECT_THROW(stages::measure_topology(engine, engine.facts(), quick, quiet, blind), stages::ReplayError);
}

// A budget spent before a stage starts skips it, and everything after.
TEST_P(Recorded, SpentBudgetSkipsTheRest) {
    stages::ProbeOptions tight;
    tight.budget_seconds = 1e-9;
    const auto t = replay(log_of(GetParam()), tight);
    ASSERT_FALSE(t.probe.skipped.empty());
    EXPECT_EQ(t.probe.stages.size() + t.probe.skipped.size(), stages::kStages.size());
    EXPECT_NE(t.probe.skipped.front().reason.find("time budget of 1e-09 s spent"), std::string::npos);
    EXPECT_TRUE(profile::validate(model::to_json(t)).empty());
}

// A monitor that sees other work from some stage on: that stage and those after
// are measured once (the GPU stays busy) and not vouched for; the rest is.
class BusyFrom : public stages::Monitor {
public:
    explicit BusyFrom(int look) : busy_from_(look) {}
    std::string description() const override { return "test"; }
    std::vector<std::string> disturbances() override {
        return ++looks_ >= busy_from_ ? std::vector<std::string>{"another process"} : std::vector<std::string>{};
    }

private:
    int busy_from_, looks_ = 0;
};

TEST_P(Recorded, DisturbedStagesAreNotVouchedFor) {
    // Each stage looks twice, before and after it runs (looks 2i + 1 and 2i + 2): busy from the look before 'sharing'.
    const auto sharing = std::find_if(stages::kStages.begin(), stages::kStages.end(),
                                      [](const stages::Stage& s) { return s.name == "sharing"; });
    ASSERT_NE(sharing, stages::kStages.end());
    BusyFrom monitor(2 * int(sharing - stages::kStages.begin()) + 1);
    stages::ProbeOptions once;
    once.max_attempts = 1;  // no second attempt: a replay holds only the calls of the recorded run
    const auto t = replay(log_of(GetParam()), once, &monitor);
    EXPECT_FALSE(t.conditions.quiet);
    ASSERT_FALSE(t.conditions.events.empty());
    const auto json = model::to_json(t);
    EXPECT_TRUE(profile::validate(json).empty());
    const auto early = profile::read_quantity(json, "L2_DRAM_FETCH_BYTES");  // stage 'latencies', quiet
    EXPECT_TRUE(early.doubt.empty()) << early.doubt;
    const auto late = profile::read_quantity(json, "L1_READONLY_SAME_STORAGE");  // stage 'sharing', busy
    EXPECT_NE(late.doubt.find("the GPU was busy with other work during stage 'sharing'"), std::string::npos);
}

// Work that runs from before the probe starts slows every reference alike: the
// reference monitor sees it only against a quiet run of the same model. The
// recorded run with every reference three times slower stands in for it.
TEST_P(Recorded, WorkRunningFromTheStartIsSeenAgainstAQuietReference) {
    const auto slowed = fs::temp_directory_path() / ("gpu-topology-slowed-" + GetParam() + ".enginelog");
    {
        std::ifstream in(log_of(GetParam()));
        std::ofstream out(slowed);
        std::string line;
        bool reference = false;
        while (std::getline(in, line)) {
            if (reference && line.rfind("< seconds ", 0) == 0)
                line = "< seconds " + std::to_string(3 * std::stod(line.substr(10)));
            reference = line == "> reference_work";
            out << line << '\n';
        }
    }
    const auto recorded = profile::load_profile(fs::path(GPU_TOPOLOGY_PROFILES) / (GetParam() + ".json"));
    const double quiet_seconds = recorded.at_path("conditions.reference_work_seconds")->as_number();
    stages::ProbeOptions once;
    once.max_attempts = 1;
    EXPECT_TRUE(replay(slowed, once).conditions.quiet) << "without a quiet reference the slowdown is invisible";
    once.quiet_reference_seconds = quiet_seconds;
    const auto t = replay(slowed, once);
    EXPECT_FALSE(t.conditions.quiet);
    ASSERT_FALSE(t.conditions.events.empty());
    EXPECT_NE(t.conditions.events.front().find("on a quiet GPU of this model"), std::string::npos)
        << t.conditions.events.front();
    EXPECT_NE(profile::read_quantity(model::to_json(t), "L1_SIZE_BYTES").doubt, "");
    // The unslowed run stays quiet against the same reference.
    EXPECT_TRUE(replay(log_of(GetParam()), once).conditions.quiet);
    fs::remove(slowed);
}

// Recording a replay writes the log it replays, call for call: what the
// recording engine writes is what the replaying engine reads.
TEST_P(Recorded, RecordingAReplayWritesTheSameLog) {
    const auto again = fs::temp_directory_path() / ("gpu-topology-again-" + GetParam() + ".enginelog");
    {
        stages::ReplayEngine replaying(log_of(GetParam()));
        stages::RecordingEngine recording(replaying, replaying.facts(), again);
        stages::Progress quiet(false);
        stages::BlindMonitor blind("replay");
        stages::measure_topology(recording, replaying.facts(), {}, quiet, blind);
        EXPECT_EQ(replaying.calls_replayed(), replaying.calls_recorded());
    }
    const auto lines = [](const fs::path& file) {
        std::ifstream in(file);
        std::vector<std::string> all;
        for (std::string line; std::getline(in, line);) all.push_back(line);
        return all;
    };
    const auto original = lines(log_of(GetParam())), written = lines(again);
    ASSERT_EQ(written.size(), original.size());
    for (std::size_t i = 0; i < original.size(); ++i) ASSERT_EQ(written[i], original[i]) << "line " << i + 1;
    fs::remove(again);
}

INSTANTIATE_TEST_SUITE_P(Gpus, Recorded, ::testing::ValuesIn(kRecordings));

TEST(Replay, ADivergingProbeIsNamed) {
    const auto original = log_of(kRecordings.front());
    const auto tampered = fs::temp_directory_path() / "gpu-topology-tampered.enginelog";
    {
        std::ifstream in(original);
        std::ofstream out(tampered);
        std::string line;
        bool changed = false;
        while (std::getline(in, line)) {
            if (!changed && line.rfind("> chase l1 ", 0) == 0) {
                line.replace(line.find("carveout "), 9, "carveout 7");  // the probe never asks for this
                changed = true;
            }
            out << line << '\n';
        }
    }
    try {
        replay(tampered);
        FAIL() << "a tampered log replayed";
    } catch (const stages::ReplayError& e) {
        EXPECT_NE(std::string(e.what()).find("the replay diverged at call"), std::string::npos) << e.what();
    }
    fs::remove(tampered);
}

TEST(Replay, SamplesRoundTripThroughRunLengths) {
    const std::vector<std::uint32_t> samples{33, 33, 33, 34, 280, 280, 33};
    EXPECT_EQ(stages::encode_samples(samples), "33*3 34 280*2 33");
    EXPECT_EQ(stages::decode_samples("33*3 34 280*2 33", 7), samples);
    EXPECT_THROW(stages::decode_samples("33*x", 7), stages::ReplayError);
}

}  // namespace

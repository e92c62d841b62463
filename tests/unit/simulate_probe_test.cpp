// The whole probe on simulated GPUs (probe/simulate): every description in
// architectures/ is recovered within the tolerance a real card gets, or
// unmeasured with a reason; nothing the description contradicts is vouched
// for, on a quiet GPU or a busy one. The H100 description agrees with the
// profile measured on a real H100, within the real card's tolerance and the
// allowances the description states for sources that measured another way.
#include "model/agreement.hpp"
#include "model/serialize.hpp"
#include "profile/profile.hpp"
#include "simulate/cache.hpp"
#include "simulate/random.hpp"
#include "simulate/run.hpp"
#include "util/format.hpp"

#include "architecture_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {
using namespace gpu_topology;
namespace fs = std::filesystem;
using test::architectures;
using test::descriptions;

util::Json simulated(const simulate::Architecture& arch, simulate::RunOptions run = {}, stages::ProbeOptions options = {}) {
    stages::Progress quiet(false);
    return model::to_json(simulate::simulate_probe(arch, run, options, quiet));
}

// The per-set counts of a run (counted by phase where the step divides the sets) are the
// counts of walking every block, on levels of hashed and modulo index, sets that are and are
// not a power of two, steps that divide them, do not, and span blocks, runs within one block.
TEST(SimulateCache, RunCountsAreTheBlockWalksCounts) {
    simulate::Random draw(20261128);
    int fast = 0;
    for (int level_case = 0; level_case < 24; ++level_case) {
        simulate::CacheGeometry g;
        g.line_bytes = 128;
        g.ways = 1 + std::uint32_t(draw.below(16));
        const std::uint64_t sets = 1 + draw.below(level_case % 2 ? 96 : 4096);
        const auto index = level_case % 3 == 0 ? simulate::SetIndex::modulo : simulate::SetIndex::hashed;
        const simulate::CacheLevel level(g, sets * g.ways * g.line_bytes, g.line_bytes, index, draw.next());
        for (int run_case = 0; run_case < 12; ++run_case) {
            const simulate::LineRun run{draw.below(5 * level.sets()), std::uint64_t(1) << draw.below(8),
                                        draw.below(run_case % 2 ? 8 : 40 * level.sets())};
            const simulate::RunCounts counts(level, run);
            const auto shifts = level.block_shifts(run);
            // By phase and with blocks between the edges: what the fast path is for.
            const std::uint64_t blocks =
                run.count == 0 ? 0 : (run.first + (run.count - 1) * run.step) / level.sets() - run.first / level.sets() + 1;
            fast += run.step < level.sets() && level.sets() % run.step == 0 && blocks >= 3;
            for (std::uint64_t set = 0; set < level.sets(); ++set)
                ASSERT_EQ(counts.count(set), level.count(run, set, nullptr, &shifts))
                    << "sets " << level.sets() << ", run from " << run.first << " step " << run.step << " count "
                    << run.count << ", set " << set;
        }
    }
    EXPECT_GT(fast, 40) << "too few runs took the counts by phase";
}

// Also checks that docs/simulated-results.md is what `simulate-table architectures` writes now.
TEST(SimulateProbe, EveryDescriptionIsRecovered) {
    const auto files = descriptions();
    ASSERT_FALSE(files.empty());
    std::vector<simulate::Architecture> archs;
    for (const auto& file : files) archs.push_back(simulate::load_architecture(file));
    std::vector<simulate::TableEntry> table;
    for (const auto& arch : archs) {
        const fs::path file = arch.file;
        SCOPED_TRACE(file.filename().string());
        const auto profile = simulated(arch);
        EXPECT_TRUE(profile::validate(profile).empty());
        EXPECT_EQ(profile.find("source")->as_string(), "simulated:" + file.filename().string());
        const auto judged = simulate::judge(arch, profile);
        EXPECT_FALSE(simulate::any_wrong(judged)) << simulate::wrong_lines(judged);
        std::size_t agree = 0;
        for (const auto& j : judged) {
            agree += j.verdict == simulate::Verdict::agrees;
            if (j.verdict == simulate::Verdict::unmeasured) EXPECT_FALSE(j.note.empty()) << j.expected.name;
            EXPECT_NE(j.verdict, simulate::Verdict::missing) << j.expected.name;
        }
        EXPECT_GT(agree, judged.size() * 3 / 4) << "most quantities should be recovered on a quiet simulated GPU";
        table.push_back({file.filename().string(), &arch, judged});
    }
    std::ifstream in(fs::path(GPU_TOPOLOGY_DOCS) / "simulated-results.md");
    const std::string docs{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(docs, simulate::verdict_table(table))
        << "docs/simulated-results.md is stale: gpu-topology-probe simulate-table architectures --output "
           "docs/simulated-results.md";
}

// Noise at the top of what a description may state: jitter that pulls a sample below the timer's own
// cycles is no negative latency (it failed the profile's check at 100 cycles), outliers stay within
// what a profile's latencies may hold, and nothing wrong is vouched for.
TEST(SimulateProbe, NoiseAtItsBoundsGivesAValidProfile) {
    for (const char* name : {"nvidia-h100.json", "nvidia-t4.json"}) {
        SCOPED_TRACE(name);
        auto arch = simulate::load_architecture(architectures() / name);
        arch.noise.jitter_cycles = 10;
        arch.noise.outlier_rate = 0.003;
        arch.noise.outlier_cycles = 5000;
        const auto profile = simulated(arch, {.seed = 2});
        EXPECT_EQ(profile::validate(profile), std::vector<std::string>{});
        const auto judged = simulate::judge(arch, profile);
        EXPECT_FALSE(simulate::any_wrong(judged)) << simulate::wrong_lines(judged);
    }
}

// A texture path that reaches less than the probe's buffer (2^27 texels of 8 B, 1 GiB, against the
// 1.5 GiB buffer of a GPU of 6 GiB or more): its first touches stay within reach, and the full probe
// runs (it stopped with "texture ring ... exceeds the 1073741824 B this path can hold").
TEST(SimulateProbe, ATexturePathShorterThanTheBufferIsMeasuredWithinIt) {
    auto arch = simulate::load_architecture(architectures() / "nvidia-t4.json");
    arch.texture_max_texels = std::uint64_t(1) << 27;
    const auto profile = simulated(arch);
    EXPECT_EQ(profile::validate(profile), std::vector<std::string>{});
    const auto judged = simulate::judge(arch, profile);
    EXPECT_FALSE(simulate::any_wrong(judged)) << simulate::wrong_lines(judged);
    const auto sector = profile::read_quantity(profile, model::kQuantities[model::id("TEXTURE_SECTOR_BYTES")]);
    EXPECT_TRUE(sector.value.has_value()) << "the texture path's first touches were not measured";
}

// A simulated device is never a real one: it says so, and no identity check takes it for one.
TEST(SimulateProbe, TheProfileSaysItIsSimulated) {
    const auto arch = simulate::load_architecture(architectures() / "nvidia-h100.json");
    stages::ProbeOptions quick;
    quick.level = stages::Level::quick;
    const auto profile = simulated(arch, {}, quick);
    EXPECT_EQ(profile.find("source")->as_string(), "simulated:nvidia-h100.json");
    EXPECT_EQ(profile.at_path("device.name")->as_string(), "NVIDIA H100 80GB HBM3 (simulated)");
    EXPECT_EQ(profile.at_path("device.uuid")->as_string().rfind("SIM-", 0), 0u);
    EXPECT_TRUE(profile::validate(profile).empty());
}

TEST(SimulateProbe, TheSameSeedGivesTheSameProfile) {
    const auto arch = simulate::load_architecture(architectures() / "nvidia-h100.json");
    stages::ProbeOptions quick;
    quick.level = stages::Level::quick;
    const auto a = simulated(arch, {.seed = 7}, quick), b = simulated(arch, {.seed = 7}, quick);
    const auto c = simulated(arch, {.seed = 8}, quick);
    bool differs = false;
    for (const auto& q : model::kQuantities) {
        EXPECT_EQ(profile::read_quantity(a, q).value, profile::read_quantity(b, q).value) << q.name;
        const auto* pa = a.at_path(q.path);
        const auto* pc = c.at_path(q.path);
        differs = differs || (pa && pc && pa->dump() != pc->dump());
    }
    EXPECT_TRUE(differs) << "another seed should move some sample (the noise is not switched off)";
}

// Another workload comes and goes: what it disturbed is measured again or not
// vouched for, and no vouched value is wrong.
TEST(SimulateProbe, ABusyGpuIsSeenAndNothingWrongIsVouchedFor) {
    const auto arch = simulate::load_architecture(architectures() / "nvidia-h100.json");
    bool retried = false, doubted = false;
    for (std::uint64_t seed : {1, 2, 3}) {
        const auto profile = simulated(arch, {.seed = seed, .busy = true});
        const auto judged = simulate::judge(arch, profile);
        EXPECT_FALSE(simulate::any_wrong(judged)) << "seed " << seed << "\n" << simulate::wrong_lines(judged);
        retried = retried || profile.at_path("conditions.retries")->as_number() > 0;
        doubted = doubted || !profile.at_path("conditions.quiet")->as_bool();
    }
    EXPECT_TRUE(retried) << "no stage was measured again in three busy runs";
    EXPECT_TRUE(doubted) << "no busy run was left unvouched";
}

// The H100 description against the profile measured on a real H100.
TEST(SimulateProbe, TheH100DescriptionAgreesWithTheMeasuredH100) {
    const auto arch = simulate::load_architecture(architectures() / "nvidia-h100.json");
    const auto measured = profile::load_profile(fs::path(GPU_TOPOLOGY_PROFILES) / "nvidia-h100.json");
    const auto judged = simulate::judge(arch, measured, true);
    EXPECT_FALSE(simulate::any_wrong(judged)) << simulate::wrong_lines(judged);
    // And its simulation is within the real card's run-to-run tolerance of the card, quantity by quantity,
    // except where the description states an allowance for a source's other method.
    const auto profile = simulated(arch);
    std::size_t compared = 0;
    for (const auto& q : model::kQuantities) {
        const auto want = profile::read_quantity(measured, q), got = profile::read_quantity(profile, q);
        if (!want.value || !got.value || want.source == model::Source::api || !got.doubt.empty()) continue;
        ++compared;
        const auto allowance = arch.allowances.find(std::string(q.name));
        double tolerance = model::agreement_tolerance(q, std::abs(*want.value));
        if (allowance != arch.allowances.end())
            tolerance += std::max(allowance->second.relative * std::abs(*want.value), allowance->second.at_least);
        EXPECT_NEAR(*got.value, *want.value, tolerance) << q.name;
    }
    EXPECT_GE(compared, 55u);
}

}  // namespace

// The header on other architectures: for every description in architectures/,
// the simulated profile is rendered by the probe's own `render` command and a
// program using the header compiles (host; and device with nvcc where the build
// has it) with static_asserts that hold its helpers to the described hierarchy:
//  - conflict_free_pitch gives a pitch whose column of floats or doubles takes
//    the fewest bank conflicts the described banks allow (one way for floats on
//    32 banks of 4 B, two for doubles: 64 words on 32 banks);
//  - l1_bytes_at answers the L1 the described split leaves a launch, within what the
//    probe's size search resolves;
//  - the stencil chooser's block and its short list keep rows of whole described
//    L1 lines, and every listed tile with its halo fits the shared memory a block
//    may declare;
//  - for kernels declaring shared memory the carveout table did not measure, the
//    blocks carveout_options_for counts on at each carveout are never more than the
//    occupancy API gives (the described split rule), so a launch it picks holds at
//    least what it was weighed with;
//  - the SGEMM helper (gpu_topology/gemm.hpp) compiles, and its pick for products of
//    every kind launches on the described SM: a block of at most 1024 threads, shared
//    memory a block may declare, at least one block resident by shared memory and
//    registers, and never more than the occupancy API gives (host only: the device
//    program includes the helper, and its constant expressions are the host's).
#include "model/serialize.hpp"
#include "simulate/run.hpp"
#include "simulate/split.hpp"

#include <gpu_topology/gemm_model.hpp>

#include "architecture_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace {
using namespace gpu_topology;
namespace fs = std::filesystem;
using test::descriptions;

// A random-eviction L1 reads up to 8 % above its bytes, a measured size 4 % more (expected.cpp),
// and a size of a few KiB up to two search steps of 1 KiB less.
constexpr double kL1Allowance = 1.08 * 1.04;
constexpr std::uint64_t kL1Slack = 2048;

// Launches l1_bytes_at is asked about: (carveout, threads, bytes the kernel declares), each a
// kind the carveout table measures (the probe's 16-byte kernel, none, 8 and 32 KiB dynamic).
struct Launch {
    int carveout;
    std::uint32_t threads, declared;
};
constexpr Launch kLaunches[] = {{0, 1024, 0}, {25, 256, 0}, {100, 32, 0}, {0, 1024, 16}, {50, 256, 16},
                                {-1, 1024, 8192}, {10, 256, 32768}};

// The facts a helper needs, as the preprocessor condition that they are all measured.
std::string all_measured(std::initializer_list<const char*> facts) {
    std::string condition;
    for (const char* fact : facts)
        condition += std::string(condition.empty() ? "" : " && ") + "!defined(GPU_TOPOLOGY_" + fact + "_UNMEASURED)";
    return condition;
}
// stencil_machine's facts (the L1 line, where unmeasured, is the L2's: gpu_topology/stencil.hpp).
constexpr std::initializer_list<const char*> kChooserFactNames = {
    "L1_SIZE_BYTES", "L1_SECTOR_BYTES", "L1_BANDWIDTH_BYTES_PER_S", "L2_LINE_BYTES", "L2_BANDWIDTH_BYTES_PER_S",
    "DRAM_BANDWIDTH_BYTES_PER_S"};
const std::string kChooserFacts = all_measured(kChooserFactNames);
// gemm_machine's facts; the L2's latency is the far part's where it has one, else the near one's.
// (The far latency may be unmeasured where the near part is shown to be the whole L2.)
constexpr std::initializer_list<const char*> kGemmFactNames = {
    "SHARED_BANDWIDTH_BYTES_PER_S", "L2_BANDWIDTH_BYTES_PER_S", "DRAM_BANDWIDTH_BYTES_PER_S", "L2_NEAR_LATENCY_CYCLES",
    "L2_NEAR_SIZE_BYTES", "SHARED_BANKS", "SHARED_BANK_BYTES"};

// Products of the kinds bench/gemm_shapes.py draws: square, tall and skinny, odd, one side small.
constexpr gpu_topology::gemm_extent kGemmProducts[] = {
    {1024, 1024, 1024}, {16384, 64, 2048}, {1999, 1531, 1023}, {2048, 2048, 16}, {40, 5000, 1000}};

// The SGEMM helper's launches against the described SM. api_blocks(): the described occupancy API's
// blocks (by shared memory and threads) for every block size and shared size of the helper's space at
// every carveout the header measures for kernels with shared memory of their own (0 for any other,
// which fails the check). This is the check that binds: the picks sit at the API's blocks (with `<`
// it fails on every description); the block and shared limits hold for the space as it is, and the
// blocks registers allow are the header's own estimate.
std::string gemm_checks(const simulate::Architecture& arch) {
    std::ostringstream p;
    p << "#if " << all_measured(kGemmFactNames) << "\n"
      << "constexpr std::uint32_t api_blocks(std::uint32_t threads, std::uint32_t shared, int carveout) {\n";
    const auto space = gpu_topology::sgemm_space_on(arch.shared.banks, arch.shared.bank_bytes,
                                                    std::uint32_t(arch.facts.registers_per_sm));
    for (std::uint32_t i = 0; i < space.count; ++i) {
        const std::uint32_t threads = space.tiles[i].threads(), shared = space.tiles[i].shared_bytes();
        for (const int carveout : {-1, 0, 10, 25, 50, 75, 100})
            p << "    if (threads == " << threads << "u && shared == " << shared << "u && carveout == " << carveout
              << ") return " << simulate::resident_blocks(arch, {kernels::ChaseKernel::plain, shared, threads, carveout})
              << "u;\n";
    }
    p << "    return 0;\n}\n"
      << "constexpr bool launches(const gpu_topology::sgemm_config& c) {\n"
      << "    const std::uint32_t threads = c.tile.threads(), shared = c.tile.shared_bytes();\n"
      << "    return threads != 0 && threads <= 1024 && shared + " << arch.facts.reserved_shared_per_block_bytes
      << "ull <= described::shared_per_block && c.option.resident_blocks != 0 &&\n"
      << "           c.option.resident_blocks <= api_blocks(threads, shared, c.option.carveout_percent) &&\n"
      << "           gpu_topology::sgemm_resident_blocks(c.tile, c.option, gpu_topology::this_gpu_gemm()) != 0;\n"
      << "}\n"
      << "constexpr bool gemm_fits(gpu_topology::gemm_extent e) { return launches(gpu_topology::choose_sgemm(e)); }\n";
    for (const auto& e : kGemmProducts)
        p << "static_assert(gemm_fits({" << e.m << ", " << e.n << ", " << e.k
          << "}), \"an SGEMM configuration breaks the described hierarchy\");\n";
    p << "#endif\n";
    return p.str();
}

std::string program(const simulate::Architecture& arch, bool device) {
    std::ostringstream p;
    p << "#include <gpu_topology.hpp>\n#include <gpu_topology/stencil.hpp>\n#include <gpu_topology/gemm.hpp>\n"
      << "namespace described {\n"
      << "struct banks_t { std::uint32_t banks, bank_bytes; };\n"
      << "constexpr banks_t shared{" << arch.shared.banks << "u, " << arch.shared.bank_bytes << "u};\n"
      << "constexpr std::uint32_t l1_line = " << arch.unified.l1.line_bytes << "u;\n"
      << "constexpr std::uint64_t shared_per_block = " << arch.facts.shared_per_block_optin_bytes << "ull;\n"
      << "}\n";
    p << "#if !defined(GPU_TOPOLOGY_SHARED_BANKS_UNMEASURED) && !defined(GPU_TOPOLOGY_SHARED_BANK_BYTES_UNMEASURED)\n";
    // The fewest ways a column of 32 elements can take: all of its bank words spread over every bank.
    for (const auto& [type, size] : {std::pair{"float", 4u}, std::pair{"double", 8u}}) {
        const std::uint32_t row = arch.shared.banks * arch.shared.bank_bytes;
        p << "static_assert(gpu_topology::column_conflict_ways<" << type << ">(gpu_topology::conflict_free_pitch<" << type
          << ">(32, gpu_topology::shared), described::shared) == " << std::max(1u, (32 * size + row - 1) / row)
          << ", \"the pitch conflicts on the described banks more than it must\");\n";
    }
    p << "#endif\n#if !defined(GPU_TOPOLOGY_L1_SIZE_BYTES_UNMEASURED)\n";
    for (const auto& l : kLaunches) {
        if (l.declared > std::uint64_t(arch.facts.shared_per_block_optin_bytes)) continue;
        const bool probe = l.declared == simulate::kProbeStaticSharedBytes;
        const auto described = double(simulate::l1_bytes(
            arch, {probe ? kernels::ChaseKernel::probe : kernels::ChaseKernel::plain, probe ? 0 : l.declared,
                   l.threads, l.carveout}));
        const auto call = "gpu_topology::l1_bytes_at(" + std::to_string(l.carveout) + ", " +
                          std::to_string(l.threads) + "u, " + std::to_string(l.declared) + "u)";
        p << "static_assert(" << call << " <= " << std::uint64_t(described * kL1Allowance)
          << "ull, \"l1_bytes_at answers more L1 than the launch gets\");\n"
          << "static_assert(" << call << " + " << kL1Slack << "ull >= " << std::uint64_t(described / kL1Allowance)
          << "ull, \"l1_bytes_at answers less L1 than the launch gets\");\n";
    }
    p << "#endif\n";
    // Shared sizes between and beside the measured ones (8, 32, 96 KiB), some not whole 128 B (the calculator
    // rounds a block's up), block sizes of the choosers. The blocks the header counts on at one carveout: its
    // options from that carveout's rows alone (a carveout whose split another one's option stands for is
    // listed once; alone, it is its own option, or the driver's when they share a split).
    p << "constexpr std::uint32_t blocks_at(std::uint32_t threads, std::uint32_t shared, int carveout) {\n"
      << "    gpu_topology::l1_at_launch rows[gpu_topology::l1_launch_count]{};\n"
      << "    std::size_t count = 0;\n"
      << "    for (std::size_t i = 0; i != gpu_topology::l1_launch_count; ++i)\n"
      << "        if (gpu_topology::l1_launches[i].carveout_percent == carveout) rows[count++] = gpu_topology::l1_launches[i];\n"
      << "    const auto options = gpu_topology::carveout_options_from(rows, count, threads, shared,\n"
      << "                                                             gpu_topology::this_gpu_shared_limits());\n"
      << "    const auto* at = options.find(carveout);\n"
      << "    if (!at && count != 0) at = options.left_to_driver();\n"
      << "    return at ? at->resident_blocks : 0u;\n"
      << "}\n";
    for (const std::uint32_t threads : {128u, 256u, 512u, 1024u})
        for (const std::uint32_t shared : {8324u, 12u << 10, 20u << 10, 24u << 10, 32388u, 39100u, 40u << 10, 48u << 10,
                                           64u << 10, 65800u, 80u << 10}) {
            if (shared + std::uint64_t(arch.facts.reserved_shared_per_block_bytes) >
                std::uint64_t(arch.facts.shared_per_block_optin_bytes))
                continue;
            for (const int carveout : {-1, 0, 10, 25, 50, 75, 100}) {
                const std::uint32_t api = simulate::resident_blocks(arch, {kernels::ChaseKernel::plain, shared, threads, carveout});
                p << "static_assert(blocks_at(" << threads << "u, " << shared << "u, " << carveout << ") <= " << api
                  << "u, \"carveout_options_for counts on more blocks than the occupancy API gives\");\n";
            }
        }
    // The chooser needs every fact of stencil_machine.
    p << "#if " << kChooserFacts << "\n"
      << "constexpr bool fits(std::uint32_t threads, std::uint64_t x, std::uint64_t y, std::uint64_t z, std::uint32_t r) {\n"
      << "    const gpu_topology::grid_extent g{x, y, z};\n"
      << "    const auto pick = gpu_topology::choose_star_stencil_block<float>(g, r, threads);\n"
      << "    if (pick.threads() != threads || pick.x * sizeof(float) < described::l1_line) return false;\n"
      << "    const auto list = gpu_topology::star_stencil_shortlist<float>(g, r, threads);\n"
      << "    for (std::uint32_t i = 0; i < list.count; ++i) {\n"
      << "        const auto& b = list.blocks[i];\n"
      << "        const std::uint64_t halo = (b.tile_x() + 2 * r) * (b.tile_y() + 2 * r) * (b.tile_z() + 2 * r);\n"
      << "        if (b.threads() != threads || halo * sizeof(float) > described::shared_per_block) return false;\n"
      << "    }\n"
      << "    return list.count > 0;\n"
      << "}\n"
      << "static_assert(fits(1024, 256, 256, 256, 1), \"a stencil tile breaks the described hierarchy\");\n"
      << "static_assert(fits(256, 512, 64, 64, 2), \"a stencil tile breaks the described hierarchy\");\n"
      << "static_assert(fits(128, 96, 96, 96, 4), \"a stencil tile breaks the described hierarchy\");\n";
    p << "#endif\n" << (device ? "" : gemm_checks(arch)) << "#if " << kChooserFacts << "\n";
    if (device)
        p << "__global__ void at_run_time(std::uint32_t* out, std::uint32_t columns, std::uint32_t threads) {\n"
          << "    out[0] = gpu_topology::conflict_free_pitch<float>(columns, gpu_topology::shared);\n"
          << "    out[1] = gpu_topology::choose_star_stencil_block<float>({256, 256, 256}, 1, threads).x;\n"
          << "    out[2] = gpu_topology::this_gpu_gemm().l2_latency_cycles;\n"
          << "}\n";
    p << "#endif\nint main() { return 0; }\n";
    return p.str();
}

std::string quoted(const fs::path& p) {
    std::string q(1, '\'');  // built by appending: g++ 12 warns falsely on "'" + string
    q += p.string();
    q += '\'';
    return q;
}

// Simulates the description and renders its header with the probe's own `render` command (the
// header and whatever it includes from the package); returns the folder that holds it.
fs::path render_simulated_header(const fs::path& file, const simulate::Architecture& arch, const std::string& test) {
    const fs::path dir = fs::path(GPU_TOPOLOGY_FUZZ_DIR) / test / file.stem();
    fs::remove_all(dir);
    fs::create_directories(dir);
    stages::Progress quiet(false);
    std::ofstream(dir / "profile.json") << model::to_json(simulate::simulate_probe(arch, {}, {}, quiet)).dump();
    const std::string render = quoted(GPU_TOPOLOGY_PROBE) + " render " + quoted(dir / "profile.json") + " --header " +
                               quoted(dir / "gpu_topology.hpp") + " --source simulated:" + file.filename().string() +
                               " > " + quoted(dir / "render.log") + " 2>&1";
    EXPECT_EQ(std::system(render.c_str()), 0) << render;
    return dir;
}

// Whether a helper's facts are all measured in the header (it does not compile where one is not).
bool all_known(const fs::path& dir, std::initializer_list<const char*> facts) {
    std::ifstream rendered(dir / "gpu_topology.hpp");
    const std::string header{std::istreambuf_iterator<char>(rendered), std::istreambuf_iterator<char>()};
    for (const char* fact : facts)
        if (header.find("GPU_TOPOLOGY_" + std::string(fact) + "_UNMEASURED") != std::string::npos) return false;
    return true;
}
bool chooser_compiles(const fs::path& dir) { return all_known(dir, kChooserFactNames); }

TEST(SimulateHeader, RenderedFromEverySimulatedProfileFitsItsHierarchy) {
    int with_chooser = 0, with_gemm = 0;
    const auto files = descriptions();
    for (const auto& file : files) {
        SCOPED_TRACE(file.filename().string());
        const auto arch = simulate::load_architecture(file);
        const fs::path dir = render_simulated_header(file, arch, "simulated_headers");
        with_chooser += chooser_compiles(dir);
        with_gemm += all_known(dir, kGemmFactNames);
        std::ofstream(dir / "uses_header.cpp") << program(arch, false);
        const std::string host = quoted(GPU_TOPOLOGY_CXX) + " -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I" +
                                 quoted(dir) + " -I" + quoted(GPU_TOPOLOGY_INCLUDE) + " " + quoted(dir / "uses_header.cpp") +
                                 " > " + quoted(dir / "host.log") + " 2>&1";
        EXPECT_EQ(std::system(host.c_str()), 0) << "see " << (dir / "host.log") << " (" << host << ")";
    }
    EXPECT_EQ(with_chooser, int(files.size())) << "a description's header left out a fact the stencil chooser needs";
    EXPECT_EQ(with_gemm, int(files.size())) << "a description's header left out a fact the SGEMM helper needs";
}

// Device code: one header suffices (the same code with other numbers), and nvcc is slow: one of an
// L2 without a far part, whose facts the helpers fall back on most (the L2's latency, for some the
// L2's line).
TEST(SimulateHeader, RenderedFromASimulatedProfileCompilesForTheDevice) {
    if (std::string_view(GPU_TOPOLOGY_NVCC).empty()) GTEST_SKIP() << "this build has no CUDA compiler";
    for (const auto& file : descriptions()) {
        const auto arch = simulate::load_architecture(file);
        if (arch.l2.far) continue;
        SCOPED_TRACE(file.filename().string());
        const fs::path dir = render_simulated_header(file, arch, "simulated_device_headers");
        std::ofstream(dir / "uses_header.cu") << program(arch, true);
        const std::string nvcc = quoted(GPU_TOPOLOGY_NVCC) + " -std=c++17 -arch=sm_90 " GPU_TOPOLOGY_NVCC_FAST " -c -I" + quoted(dir) + " -I" +
                                 quoted(GPU_TOPOLOGY_INCLUDE) + " " + quoted(dir / "uses_header.cu") + " -o " +
                                 quoted(dir / "uses_header.o") + " > " + quoted(dir / "device.log") + " 2>&1";
        EXPECT_EQ(std::system(nvcc.c_str()), 0) << "see " << (dir / "device.log");
        return;
    }
    FAIL() << "no description of an L2 without a far part";
}

}  // namespace

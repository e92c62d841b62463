// The header on other architectures: for every description in architectures/,
// the simulated profile is rendered by the probe's own `render` command and a
// program using the header compiles (host; and device with nvcc where the build
// has it) and runs checks that hold its helpers to the described hierarchy:
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
// Each kind of check is one constexpr function of the program. One of its cases is a
// static_assert, another on each description (the helpers are constant expressions on
// every described hierarchy, as users call them), and every L1 launch is (an unmeasured
// answer does not compile, which only a constant expression shows); every case runs at
// run time, from arguments the compiler cannot fold: GCC evaluates a constant expression
// about a hundred times slower than the program runs it (2.6 s against 1.1 s a
// description's compile on two cores).
#include "model/serialize.hpp"
#include "simulate/run.hpp"
#include "simulate/split.hpp"

#include <gpu_topology/gemm_model.hpp>

#include "architecture_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
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

// One part of the program: what it defines, and its checks, under the preprocessor condition that
// the facts its helper needs are measured.
struct Part {
    std::string condition = "1";
    // Every case a constant expression too: where the header makes an unmeasured answer a compile
    // error (l1_bytes_at's 0 for a launch it has no row for), which only a constant expression sees.
    bool every_case_constant = false;
    std::ostringstream definitions;
    // check(): `function` is a constexpr bool function of the program's; each case is its arguments.
    void check(const std::string& function, std::vector<std::string> arguments, const std::string& message) {
        cases.push_back({function, std::move(arguments), message});
    }
    struct Case {
        std::string function;
        std::vector<std::string> arguments;
        std::string message;
    };
    std::vector<Case> cases;
};

std::string call(const Part::Case& c, bool folded) {
    std::string text = c.function + "(";
    for (std::size_t i = 0; i < c.arguments.size(); ++i)
        text += (i ? ", " : "") + (folded ? c.arguments[i] : "at_run_time(" + c.arguments[i] + ")");
    return text + ")";
}

// The program: every part's definitions and one case of each of its functions as a static_assert
// (the `rotation`-th, modulo their number: each description a different one), or all of them
// where the part asks; main() runs every case and fails if one does.
std::string assemble(const std::vector<Part>& parts, const std::string& device_code, std::size_t rotation) {
    std::ostringstream p;
    p << "#include <gpu_topology.hpp>\n#include <gpu_topology/stencil.hpp>\n#include <gpu_topology/gemm.hpp>\n"
      << "#include <cstdio>\n"
      << "// A value the compiler cannot fold: the case runs, rather than evaluating as a constant expression.\n"
      << "template <class T> T at_run_time(T value) { volatile T kept = value; return kept; }\n"
      << "int failures = 0;\n"
      << "void expect(bool holds, const char* call, const char* message) {\n"
      << "    if (!holds) { std::fprintf(stderr, \"%s: %s\\n\", call, message); ++failures; }\n"
      << "}\n";
    for (const Part& part : parts) {
        p << "#if " << part.condition << "\n" << part.definitions.str();
        std::map<std::string, std::vector<const Part::Case*>> by_function;
        for (const auto& c : part.cases) by_function[c.function].push_back(&c);
        for (const auto& [function, cases] : by_function)
            for (std::size_t i = 0; i < cases.size(); ++i)
                if (part.every_case_constant || i == rotation % cases.size())
                    p << "static_assert(" << call(*cases[i], true) << ", \"" << cases[i]->message << "\");\n";
        p << "#endif\n";
    }
    p << device_code << "int main() {\n";
    for (const Part& part : parts) {
        p << "#if " << part.condition << "\n";
        for (const auto& c : part.cases)
            p << "    expect(" << call(c, false) << ", \"" << call(c, true) << "\", \"" << c.message << "\");\n";
        p << "#endif\n";
    }
    p << "    return failures == 0 ? 0 : 1;\n}\n";
    return p.str();
}

std::string u(std::uint64_t value) { return std::to_string(value) + "u"; }

// The SGEMM helper's launches against the described SM. api_blocks(): the described occupancy API's
// blocks (by shared memory and threads) for every block size and shared size of the helper's space at
// every carveout the header measures for kernels with shared memory of their own (0 for any other,
// which fails the check). This is the check that binds: the picks sit at the API's blocks (with `<`
// it fails on every description); the block and shared limits hold for the space as it is, and the
// blocks registers allow are the header's own estimate.
Part gemm_checks(const simulate::Architecture& arch) {
    Part part;
    part.condition = all_measured(kGemmFactNames);
    auto& p = part.definitions;
    p << "constexpr std::uint32_t api_blocks(std::uint32_t threads, std::uint32_t shared, int carveout) {\n";
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
      << "constexpr bool gemm_fits(std::uint64_t m, std::uint64_t n, std::uint64_t k) {\n"
      << "    return launches(gpu_topology::choose_sgemm({m, n, k}));\n"
      << "}\n";
    for (const auto& e : kGemmProducts)
        part.check("gemm_fits", {u(e.m), u(e.n), u(e.k)}, "an SGEMM configuration breaks the described hierarchy");
    return part;
}

std::string program(const simulate::Architecture& arch, bool device, std::size_t rotation) {
    std::vector<Part> parts;
    Part& described = parts.emplace_back();
    described.definitions << "namespace described {\n"
                          << "struct banks_t { std::uint32_t banks, bank_bytes; };\n"
                          << "constexpr banks_t shared{" << arch.shared.banks << "u, " << arch.shared.bank_bytes << "u};\n"
                          << "constexpr std::uint32_t l1_line = " << arch.unified.l1.line_bytes << "u;\n"
                          << "constexpr std::uint64_t shared_per_block = " << arch.facts.shared_per_block_optin_bytes
                          << "ull;\n"
                          << "}\n";

    // The fewest ways a column of 32 elements can take: all of its bank words spread over every bank.
    Part& pitch = parts.emplace_back();
    pitch.condition = all_measured({"SHARED_BANKS", "SHARED_BANK_BYTES"});
    pitch.definitions << "template <class T> constexpr bool column_takes(std::uint32_t columns, std::uint32_t ways) {\n"
                      << "    return gpu_topology::column_conflict_ways<T>(gpu_topology::conflict_free_pitch<T>(columns,\n"
                      << "               gpu_topology::shared), described::shared) == ways;\n"
                      << "}\n";
    for (const auto& [type, size] : {std::pair{"float", 4u}, std::pair{"double", 8u}}) {
        const std::uint32_t row = arch.shared.banks * arch.shared.bank_bytes;
        pitch.check(std::string("column_takes<") + type + ">", {"32u", u(std::max(1u, (32 * size + row - 1) / row))},
                    "the pitch conflicts on the described banks more than it must");
    }

    Part& l1 = parts.emplace_back();
    l1.condition = all_measured({"L1_SIZE_BYTES"});
    l1.every_case_constant = true;
    l1.definitions << "constexpr bool l1_at_most(int carveout, std::uint32_t threads, std::uint32_t declared, std::uint64_t bytes) {\n"
                   << "    return gpu_topology::l1_bytes_at(carveout, threads, declared) <= bytes;\n"
                   << "}\n"
                   << "constexpr bool l1_at_least(int carveout, std::uint32_t threads, std::uint32_t declared, std::uint64_t bytes) {\n"
                   << "    return gpu_topology::l1_bytes_at(carveout, threads, declared) + " << kL1Slack << "u >= bytes;\n"
                   << "}\n";
    for (const auto& l : kLaunches) {
        if (l.declared > std::uint64_t(arch.facts.shared_per_block_optin_bytes)) continue;
        const bool probe = l.declared == simulate::kProbeStaticSharedBytes;
        const auto bytes = double(simulate::l1_bytes(
            arch, {probe ? kernels::ChaseKernel::probe : kernels::ChaseKernel::plain, probe ? 0 : l.declared,
                   l.threads, l.carveout}));
        const std::vector<std::string> launch = {std::to_string(l.carveout), u(l.threads), u(l.declared)};
        auto with = [&](double limit) { auto a = launch; a.push_back(u(std::uint64_t(limit))); return a; };
        l1.check("l1_at_most", with(bytes * kL1Allowance), "l1_bytes_at answers more L1 than the launch gets");
        l1.check("l1_at_least", with(bytes / kL1Allowance), "l1_bytes_at answers less L1 than the launch gets");
    }

    // Shared sizes between and beside the measured ones (8, 32, 96 KiB), some not whole 128 B (the calculator
    // rounds a block's up), block sizes of the choosers. The blocks the header counts on at one carveout: its
    // options from that carveout's rows alone (a carveout whose split another one's option stands for is
    // listed once; alone, it is its own option, or the driver's when they share a split).
    Part& blocks = parts.emplace_back();
    blocks.definitions
        << "constexpr bool blocks_at_most(std::uint32_t threads, std::uint32_t shared, int carveout, std::uint32_t api) {\n"
        << "    gpu_topology::l1_at_launch rows[gpu_topology::l1_launch_count]{};\n"
        << "    std::size_t count = 0;\n"
        << "    for (std::size_t i = 0; i != gpu_topology::l1_launch_count; ++i)\n"
        << "        if (gpu_topology::l1_launches[i].carveout_percent == carveout) rows[count++] = gpu_topology::l1_launches[i];\n"
        << "    const auto options = gpu_topology::carveout_options_from(rows, count, threads, shared,\n"
        << "                                                             gpu_topology::this_gpu_shared_limits());\n"
        << "    const auto* at = options.find(carveout);\n"
        << "    if (!at && count != 0) at = options.left_to_driver();\n"
        << "    return (at ? at->resident_blocks : 0u) <= api;\n"
        << "}\n";
    for (const std::uint32_t threads : {128u, 256u, 512u, 1024u})
        for (const std::uint32_t shared : {8324u, 12u << 10, 20u << 10, 24u << 10, 32388u, 39100u, 40u << 10, 48u << 10,
                                           64u << 10, 65800u, 80u << 10}) {
            if (shared + std::uint64_t(arch.facts.reserved_shared_per_block_bytes) >
                std::uint64_t(arch.facts.shared_per_block_optin_bytes))
                continue;
            for (const int carveout : {-1, 0, 10, 25, 50, 75, 100}) {
                const std::uint32_t api = simulate::resident_blocks(arch, {kernels::ChaseKernel::plain, shared, threads, carveout});
                blocks.check("blocks_at_most", {u(threads), u(shared), std::to_string(carveout), u(api)},
                             "carveout_options_for counts on more blocks than the occupancy API gives");
            }
        }

    // The chooser needs every fact of stencil_machine.
    Part& stencil = parts.emplace_back();
    stencil.condition = kChooserFacts;
    stencil.definitions
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
        << "}\n";
    for (const auto& [threads, x, y, z, r] :
         {std::array<std::uint32_t, 5>{1024, 256, 256, 256, 1}, {256, 512, 64, 64, 2}, {128, 96, 96, 96, 4}})
        stencil.check("fits", {u(threads), u(x), u(y), u(z), u(r)}, "a stencil tile breaks the described hierarchy");

    if (!device) parts.push_back(gemm_checks(arch));
    std::string device_code;
    if (device)
        device_code = "#if " + kChooserFacts + "\n" +
                      "__global__ void in_device_code(std::uint32_t* out, std::uint32_t columns, std::uint32_t threads) {\n"
                      "    out[0] = gpu_topology::conflict_free_pitch<float>(columns, gpu_topology::shared);\n"
                      "    out[1] = gpu_topology::choose_star_stencil_block<float>({256, 256, 256}, 1, threads).x;\n"
                      "    out[2] = gpu_topology::this_gpu_gemm().l2_latency_cycles;\n"
                      "}\n#endif\n";
    return assemble(parts, device_code, rotation);
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
    for (std::size_t index = 0; index < files.size(); ++index) {
        const auto& file = files[index];
        SCOPED_TRACE(file.filename().string());
        const auto arch = simulate::load_architecture(file);
        const fs::path dir = render_simulated_header(file, arch, "simulated_headers");
        with_chooser += chooser_compiles(dir);
        with_gemm += all_known(dir, kGemmFactNames);
        std::ofstream(dir / "uses_header.cpp") << program(arch, false, index);
        const std::string host = quoted(GPU_TOPOLOGY_CXX) + " -std=c++17 -Wall -Wextra -Werror -O0 -I" + quoted(dir) +
                                 " -I" + quoted(GPU_TOPOLOGY_INCLUDE) + " " + quoted(dir / "uses_header.cpp") + " -o " +
                                 quoted(dir / "uses_header") + " > " + quoted(dir / "host.log") + " 2>&1";
        if (std::system(host.c_str()) != 0) {
            ADD_FAILURE() << "see " << (dir / "host.log") << " (" << host << ")";
            continue;
        }
        const std::string run = quoted(dir / "uses_header") + " > " + quoted(dir / "run.log") + " 2>&1";
        EXPECT_EQ(std::system(run.c_str()), 0) << "see " << (dir / "run.log") << " (" << run << ")";
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
        std::ofstream(dir / "uses_header.cu") << program(arch, true, 0);
        const std::string nvcc = quoted(GPU_TOPOLOGY_NVCC) + " -std=c++17 -arch=sm_90 " GPU_TOPOLOGY_NVCC_FAST " -c -I" + quoted(dir) + " -I" +
                                 quoted(GPU_TOPOLOGY_INCLUDE) + " " + quoted(dir / "uses_header.cu") + " -o " +
                                 quoted(dir / "uses_header.o") + " > " + quoted(dir / "device.log") + " 2>&1";
        EXPECT_EQ(std::system(nvcc.c_str()), 0) << "see " << (dir / "device.log");
        return;
    }
    FAIL() << "no description of an L2 without a far part";
}

}  // namespace

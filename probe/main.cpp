// gpu-topology-probe: measure a GPU's memory hierarchy, and turn the profile
// into a header. Exit codes: 0 ok, 1 failure, 2 usage, 77 no usable GPU
// (CTest's SKIP_RETURN_CODE for the GPU tests, and the CMake fallback signal).
#include "profile/atomic_file.hpp"
#include "profile/profile.hpp"
#include "render/render.hpp"
#include "version.hpp"

#if GPU_TOPOLOGY_WITH_CUDA
#include "benchmarks/device_facts.hpp"
#include "benchmarks/explore.hpp"
#include "benchmarks/topology.hpp"
#include "kernels/pchase.hpp"
#endif

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace gpu_topology;
constexpr int kNoGpu = 77;

constexpr const char* kUsage = R"(usage: gpu-topology-probe <command> [options]

commands:
  probe     [--device N] [--output FILE|-] [--raw DIR] [--quiet]
            [--level quick|full] [--budget SECONDS] [--careful]
            measure the device; write the profile (JSON) to FILE (default: stdout),
            progress to stderr, and every sweep as CSV into DIR.
            --level quick: L1, L2 and DRAM sizes, lines and latencies only (default full);
            --budget: start no stage after SECONDS (the profile lists the skipped ones);
            --careful: chase every warm pass and time whole passes (slower, for comparison)
  identity  [--device N]      print the device identity as one JSON line
  render    PROFILE [--header FILE] [--cmake FILE] [--source TEXT] [--table]
            write gpu_topology.hpp / CMake variables from a profile
  show      PROFILE           print the profile as a table
  validate  PROFILE           check a profile; name every wrong field
  check     PROFILE [--device N] [--identity-only]
            re-measure this device and compare with the profile (identity and values)
  explore   --raw DIR [--device N]
            dense sweeps over every region of interest (slow; for study and tests/data)
  version

exit codes: 0 ok, 1 failure, 2 usage error, 77 no usable GPU
)";

struct Args {
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;  // "--flag" -> value ("" for switches)
};

std::optional<Args> parse(int argc, char** argv) {
    if (argc < 2) return std::nullopt;
    Args args;
    args.command = argv[1];
    static const std::map<std::string, bool> takes_value{
        {"--device", true}, {"--output", true}, {"--raw", true}, {"--header", true}, {"--cmake", true},
        {"--source", true}, {"--level", true}, {"--budget", true},
        {"--careful", false}, {"--quiet", false}, {"--table", false}, {"--identity-only", false}};
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--", 0) != 0) {
            args.positional.push_back(a);
            continue;
        }
        const auto known = takes_value.find(a);
        if (known == takes_value.end()) {
            std::fprintf(stderr, "gpu-topology-probe: unknown option %s\n", a.c_str());
            return std::nullopt;
        }
        if (known->second) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "gpu-topology-probe: %s needs a value\n", a.c_str());
                return std::nullopt;
            }
            args.options[a] = argv[++i];
        } else {
            args.options[a] = "";
        }
    }
    return args;
}

int device_index(const Args& args) {
    const auto it = args.options.find("--device");
    if (it == args.options.end()) return 0;
    try {
        std::size_t used = 0;
        const int n = std::stoi(it->second, &used);
        if (used == it->second.size() && n >= 0) return n;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument("--device: '" + it->second + "' is not a device index");
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw profile::ProfileError(path + ": cannot open profile");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_output(const std::string& target, const std::string& text) {
    if (target.empty() || target == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    } else {
        profile::write_file_atomically(target, text);
    }
}

int cmd_render(const Args& args) {
    if (args.positional.size() != 1) throw std::invalid_argument("render needs exactly one PROFILE");
    const auto& path = args.positional[0];
    const auto text = read_file(path);
    const auto document = profile::load_profile_text(text, path);
    render::RenderContext context;
    context.profile_hash = profile::content_hash(text);
    if (auto it = args.options.find("--source"); it != args.options.end()) context.profile_source = it->second;
    if (auto it = args.options.find("--header"); it != args.options.end())
        profile::write_file_if_changed(it->second, render::render_header(document, context, render::embedded_header_template()));
    if (auto it = args.options.find("--cmake"); it != args.options.end())
        profile::write_file_if_changed(it->second, render::render_cmake(document, context));
    if (args.options.count("--table") || (!args.options.count("--header") && !args.options.count("--cmake")))
        std::fputs(render::render_table(document, context).c_str(), stdout);
    return 0;
}

int cmd_validate(const Args& args) {
    if (args.positional.size() != 1) throw std::invalid_argument("validate needs exactly one PROFILE");
    profile::load_profile(args.positional[0]);
    std::printf("%s: valid %s profile\n", args.positional[0].c_str(), std::string(profile::kSchema).c_str());
    return 0;
}

#if GPU_TOPOLOGY_WITH_CUDA

std::optional<benchmarks::DeviceFacts> lookup(int index) {
    const auto found = benchmarks::find_device(index);
    if (!found.found) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", found.reason.c_str());
        return std::nullopt;
    }
    return found.facts;
}

int cmd_identity(const Args& args) {
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    profile::Json j = profile::Json::object();
    j["name"] = facts->name;
    j["uuid"] = facts->uuid;
    j["cc"] = profile::Json(profile::Json::Array{facts->cc_major, facts->cc_minor});
    j["sm_count"] = facts->sm_count;
    j["driver"] = facts->driver_version;
    j["runtime"] = facts->runtime_version;
    j["probe_version"] = std::string(kProbeVersion);
    std::fputs(j.dump(-1).c_str(), stdout);
    return 0;
}

benchmarks::ProbeOptions probe_options(const Args& args) {
    benchmarks::ProbeOptions options;
    if (auto it = args.options.find("--raw"); it != args.options.end()) options.raw_dir = it->second;
    if (auto it = args.options.find("--level"); it != args.options.end()) {
        const auto level = benchmarks::level_from_string(it->second);
        if (!level) throw std::invalid_argument("--level: '" + it->second + "' is not quick or full");
        options.level = *level;
    }
    if (auto it = args.options.find("--budget"); it != args.options.end()) {
        std::size_t used = 0;
        double seconds = -1;
        try {
            seconds = std::stod(it->second, &used);
        } catch (const std::exception&) {
        }
        if (used != it->second.size() || !(seconds > 0) || !std::isfinite(seconds))
            throw std::invalid_argument("--budget: '" + it->second + "' is not a positive number of seconds");
        options.budget_seconds = seconds;
    }
    if (args.options.count("--careful")) options.pace = benchmarks::Pace::careful;
    return options;
}

int cmd_probe(const Args& args) {
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    benchmarks::Progress progress(!args.options.count("--quiet"));
    progress.note("probing device " + std::to_string(facts->index) + ": " + facts->name + " (" + facts->uuid + ")");
    const auto options = probe_options(args);
    const auto document = benchmarks::measure_topology(*facts, options, progress);
    const auto errors = profile::validate(document);
    if (!errors.empty()) {  // a bug in the probe, never the user's fault: say so loudly
        for (const auto& e : errors) std::fprintf(stderr, "gpu-topology-probe: produced an invalid profile: %s\n", e.c_str());
        return 1;
    }
    const auto out = args.options.count("--output") ? args.options.at("--output") : std::string("-");
    write_output(out, document.dump());
    progress.note("probe finished in " + profile::format_number(document.at_path("probe.duration_s")->as_number()) + " s");
    return 0;
}

// Re-measures and compares: identity must match; sizes within 4% but never
// less than two search steps (1 KiB in L1, 256 KiB in L2: three H200 runs
// differed by one step), lines and sectors exactly, latencies within 5%.
int cmd_check(const Args& args) {
    if (args.positional.size() != 1) throw std::invalid_argument("check needs exactly one PROFILE");
    const auto expected = profile::load_profile(args.positional[0]);
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    int failures = 0;
    auto compare_text = [&](const char* what, const std::string& want, const std::string& got) {
        const bool ok = want == got;
        std::printf("%-6s %-40s profile %-24s device %s\n", ok ? "ok" : "FAIL", what, want.c_str(), got.c_str());
        failures += !ok;
    };
    compare_text("device name", expected.at_path("device.name")->as_string(), facts->name);
    const auto& cc = expected.at_path("device.cc")->as_array();
    compare_text("compute capability",
                 profile::format_number(cc[0].as_number()) + "." + profile::format_number(cc[1].as_number()),
                 std::to_string(facts->cc_major) + "." + std::to_string(facts->cc_minor));
    compare_text("SM count", profile::format_number(expected.at_path("device.sm_count")->as_number()),
                 std::to_string(facts->sm_count));
    if (expected.at_path("device.uuid")->as_string() != facts->uuid)
        std::printf("note   the profile was measured on another card of this model (%s)\n",
                    expected.at_path("device.uuid")->as_string().c_str());
    if (failures) return 1;
    if (args.options.count("--identity-only")) return 0;

    benchmarks::Progress progress(false);
    const auto measured = benchmarks::measure_topology(*facts, {}, progress);
    for (const auto& spec : profile::kQuantities) {
        const auto want = profile::read_quantity(expected, spec);
        const auto got = profile::read_quantity(measured, spec);
        if (!want.value || want.source == "api" || spec.name == "SM_CLOCK_KHZ") continue;
        if (!got.value) {
            std::printf("FAIL   %-40s profile %-24s device not measured (%s)\n", std::string(spec.name).c_str(),
                        profile::format_number(*want.value).c_str(), got.reason.c_str());
            ++failures;
            continue;
        }
        const bool exact = spec.name.find("LINE") != std::string_view::npos || spec.name.find("SECTOR") != std::string_view::npos;
        const bool l2_size = spec.name.rfind("L2_", 0) == 0;
        const double tolerance = exact ? 0.0
                                 : spec.kind == profile::Kind::latency
                                     ? 0.05 * std::abs(*want.value)
                                     : std::max(0.04 * std::abs(*want.value), l2_size ? 512.0 * 1024 : 2048.0);
        const bool ok = std::abs(*got.value - *want.value) <= tolerance;
        std::printf("%-6s %-40s profile %-24s device %s (tolerance %s)\n", ok ? "ok" : "FAIL",
                    std::string(spec.name).c_str(), profile::format_number(*want.value).c_str(),
                    profile::format_number(std::round(*got.value)).c_str(),
                    profile::format_number(std::round(tolerance)).c_str());
        failures += !ok;
    }
    std::printf("%d mismatches\n", failures);
    return failures ? 1 : 0;
}

int cmd_explore(const Args& args) {
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    const auto raw = args.options.find("--raw");
    if (raw == args.options.end()) throw std::invalid_argument("explore needs --raw DIR");
    std::filesystem::create_directories(raw->second);
    kernels::ChaseEngine engine(facts->index, 768ull << 20);  // rings, an L2-sized eviction region at 300 MiB, fresh regions at the top
    engine.warm_up(250);
    // The slow reference: every warm pass chased, every pass timed whole.
    benchmarks::SweepRunner runner(engine, std::filesystem::path(raw->second), benchmarks::Pace::careful);
    runner.calibrate_overhead();
    benchmarks::explore(runner, {.l2_bytes = static_cast<std::uint64_t>(facts->l2_bytes)});
    std::fprintf(stderr, "measured SM clock %.0f kHz\n", runner.measured_clock_khz());
    return 0;
}

#else

int no_cuda(const Args&) {
    std::fprintf(stderr, "gpu-topology-probe: built without CUDA; only render, show and validate work\n");
    return kNoGpu;
}
constexpr auto cmd_identity = no_cuda, cmd_probe = no_cuda, cmd_check = no_cuda, cmd_explore = no_cuda;

#endif

}  // namespace

int main(int argc, char** argv) {
    const auto args = parse(argc, argv);
    if (!args) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    try {
        const auto& c = args->command;
        if (c == "probe") return cmd_probe(*args);
        if (c == "identity") return cmd_identity(*args);
        if (c == "render") return cmd_render(*args);
        if (c == "show") {
            Args shown = *args;
            shown.options["--table"] = "";
            return cmd_render(shown);
        }
        if (c == "validate") return cmd_validate(*args);
        if (c == "check") return cmd_check(*args);
        if (c == "explore") return cmd_explore(*args);
        if (c == "version") {
            std::printf("gpu-topology-probe %s\n", std::string(kProbeVersion).c_str());
            return 0;
        }
        if (c == "--help" || c == "-h" || c == "help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        std::fprintf(stderr, "gpu-topology-probe: unknown command '%s'\n%s", c.c_str(), kUsage);
        return 2;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", e.what());
        return 1;
    }
}

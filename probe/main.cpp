// gpu-topology-probe: measure a GPU's memory hierarchy, and turn the profile
// into a header. The command line is in cli/: args.* (usage, options, exit
// codes), profile_commands.cpp and device_commands.cpp. The render-only build
// (GPU_TOPOLOGY_RENDER_ONLY, probe/CMakeLists.txt) leaves out the stages, the
// engines and device_commands.cpp: it renders, shows, draws, validates,
// compares and writes the docs, and says so when asked for anything else.
#include "cli/args.hpp"
#if GPU_TOPOLOGY_WITH_SIMULATE
#include "cli/simulate_commands.hpp"
#endif
#include "util/text.hpp"
#include "version.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>

namespace {

using namespace gpu_topology::cli;
using gpu_topology::util::printable_lines;

#if GPU_TOPOLOGY_RENDER_ONLY
// The commands that need the stages: a device's like the build without CUDA (kNoGpu), replay a failure.
int needs_full_probe(const Args& args) {
    std::fprintf(stderr,
                 "gpu-topology-probe: '%s' needs the full probe; this one was built to render profiles only "
                 "(render, show, svg, validate, compare, docs)\n",
                 args.command.c_str());
    return args.command == "replay" ? kFailure : kNoGpu;
}
constexpr auto cmd_probe = needs_full_probe, cmd_replay = needs_full_probe, cmd_identity = needs_full_probe,
               cmd_check = needs_full_probe;
constexpr const char* kBuildKind = " (render only)";
#elif GPU_TOPOLOGY_WITH_SIMULATE
constexpr const char* kBuildKind = "";
#else
constexpr const char* kBuildKind = " (no simulate)";
#endif

#if !GPU_TOPOLOGY_WITH_SIMULATE
// The nested build that measures for a configure leaves the simulated engine out (probe/CMakeLists.txt).
int needs_simulate(const Args& args) {
    std::fprintf(stderr,
                 "gpu-topology-probe: '%s' needs the simulated engine; this probe was built without it "
                 "(GPU_TOPOLOGY_PROBE_SIMULATE=OFF, the default of the probe's own project)\n",
                 args.command.c_str());
    return kFailure;
}
constexpr auto cmd_simulate = needs_simulate, cmd_simulate_compare = needs_simulate, cmd_simulate_table = needs_simulate;
#endif

int run(const Args& args) {
    const std::map<std::string, std::function<int(const Args&)>> handlers{
        {"probe", cmd_probe},     {"replay", cmd_replay}, {"identity", cmd_identity}, {"render", cmd_render},
        {"show", cmd_render},     {"validate", cmd_validate}, {"check", cmd_check},
        {"docs", cmd_docs},       {"compare", cmd_compare}, {"svg", cmd_svg},
        {"simulate", cmd_simulate}, {"simulate-compare", cmd_simulate_compare},
        {"simulate-table", cmd_simulate_table},
        {"version", [](const Args&) {
             std::printf("gpu-topology-probe %s%s\n", std::string(gpu_topology::kProbeVersion).c_str(), kBuildKind);
             return 0;
         }}};
    return handlers.at(args.command)(args);
}

}  // namespace

// What went to stdout reached it: a full disk or a closed pipe is a failure,
// not a truncated file with exit 0.
int flushed(int code) {
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
    std::fprintf(stderr, "gpu-topology-probe: cannot write to standard output: %s\n", std::strerror(errno));
    return kFailure;
}

int main(int argc, char** argv) {
    // A file-size limit (ulimit -f) makes a write fail with EFBIG, which the
    // writer cleans up after, instead of killing the probe with its temporary file left.
    std::signal(SIGXFSZ, SIG_IGN);
    if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help")) {
        std::fputs(kUsageText, stdout);
        return flushed(0);
    }
    try {
        return flushed(run(parse(argc, argv)));
    } catch (const UsageError& e) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n\n%s", printable_lines(e.what()).c_str(), kUsageText);
        return kUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", printable_lines(e.what()).c_str());
        return kFailure;
    }
}

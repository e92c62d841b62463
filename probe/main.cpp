// gpu-topology-probe: measure a GPU's memory hierarchy, and turn the profile
// into a header. The command line is in cli/: args.* (usage, options, exit
// codes), profile_commands.cpp and device_commands.cpp.
#include "cli/args.hpp"
#include "profile/text.hpp"
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
using gpu_topology::profile::printable_lines;

int run(const Args& args) {
    const std::map<std::string, std::function<int(const Args&)>> handlers{
        {"probe", cmd_probe},     {"replay", cmd_replay}, {"identity", cmd_identity}, {"render", cmd_render},
        {"show", cmd_render},     {"validate", cmd_validate}, {"check", cmd_check},  {"explore", cmd_explore},
        {"docs", cmd_docs},       {"compare", cmd_compare}, {"svg", cmd_svg},
        {"version", [](const Args&) {
             std::printf("gpu-topology-probe %s\n", std::string(gpu_topology::kProbeVersion).c_str());
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

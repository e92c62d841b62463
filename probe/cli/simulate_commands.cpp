// The commands that run the probe on a described GPU (docs/simulated-architectures.md):
// simulate writes the profile the probe recovers and judges it against the
// description; simulate-compare judges a profile written before; simulate-table
// writes the table of every description of a folder.
#include "simulate_commands.hpp"

#include "model/serialize.hpp"
#include "profile/profile.hpp"
#include "simulate/node.hpp"
#include "simulate/run.hpp"
#include "util/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <tuple>

namespace gpu_topology::cli {
namespace {

std::uint64_t seed_of(const Args& args) {
    const auto text = args.get("--seed");
    if (!text) return 1;
    try {
        std::size_t used = 0;
        const unsigned long long seed = std::stoull(*text, &used);
        if (used == text->size() && !text->empty() && (*text)[0] != '-') return seed;
    } catch (const std::exception&) {
    }
    throw UsageError("--seed: '" + *text + "' is not a whole number");
}

simulate::Architecture architecture(const Args& args) {
    const auto file = args.get("--arch");
    if (!file) throw UsageError(args.command + " needs --arch FILE");
    return simulate::load_architecture(*file);
}

// Prints the verdicts that are not agreements; returns how many are wrong.
int report(const std::vector<simulate::Judged>& judged, bool all) {
    int wrong = 0, agree = 0, unmeasured = 0, doubted = 0;
    for (const auto& j : judged) {
        switch (j.verdict) {
            case simulate::Verdict::agrees: ++agree; break;
            case simulate::Verdict::wrong: ++wrong; break;
            case simulate::Verdict::doubted:
            case simulate::Verdict::undescribed: ++doubted; break;
            default: ++unmeasured; break;
        }
        if (!all && j.verdict == simulate::Verdict::agrees) continue;
        std::printf("%-16s %-44s described %-24s recovered %-16s %s\n", std::string(to_string(j.verdict)).c_str(),
                    j.expected.name.c_str(),
                    !j.expected.described ? "not described"
                    : j.expected.value    ? (util::format_number(*j.expected.value) + " +- " +
                                          util::format_number(std::round(j.expected.tolerance)))
                                             .c_str()
                                          : "none",
                    j.recovered ? util::format_number(*j.recovered).c_str() : "-",
                    util::printable(j.note.empty() ? j.expected.why : j.note, 160).c_str());
    }
    std::printf("%d agree, %d unmeasured, %d not vouched for or not described, %d wrong\n", agree, unmeasured, doubted,
                wrong);
    return wrong;
}

}  // namespace

namespace {

// Every device of the described node at once, then its links (simulate --node).
std::pair<int, std::vector<simulate::Judged>> simulate_node(const simulate::Architecture& arch,
                                                            const simulate::RunOptions& run, const Args& args,
                                                            stages::Progress& progress) {
    if (args.has("--raw")) throw UsageError("--raw measures one device; not with --node");
    simulate::SimulatedNode backend(arch, run);
    stages::NodeOptions options;
    options.show_progress = !args.has("--quiet");
    const auto devices = backend.devices();
    for (std::size_t i = 0; i < devices.size(); ++i) options.per_device.push_back(probe_options(args));
    auto node = stages::probe_node(backend, devices, options);
    for (auto& device : node.devices) device.source = simulate::simulated_source(arch);
    const int rc = finish_node(node, args, progress);
    return {rc, simulate::judge_node(arch, model::to_json(node))};
}

}  // namespace

int cmd_simulate(const Args& args) {
    refuse_clashing_outputs(args);
    const auto arch = architecture(args);
    const simulate::RunOptions run{seed_of(args), args.has("--busy")};
    stages::Progress progress(!args.has("--quiet"));
    progress.note("simulating " + arch.name + " (" + simulate::simulated_source(arch) + ", seed " +
                  std::to_string(run.seed) + (run.busy ? ", busy" : "") + (args.has("--node") ? ", a node" : "") + ")");
    int rc = 0;
    std::vector<simulate::Judged> judged;
    if (args.has("--node")) {
        std::tie(rc, judged) = simulate_node(arch, run, args, progress);
    } else {
        const auto topology = simulate::simulate_probe(arch, run, probe_options(args), progress);
        rc = finish_probe(topology, args, progress);
        judged = simulate::judge(arch, model::to_json(topology));
    }
    if (rc == kFailure) return rc;
    // What the probe vouched for must be what the description says.
    if (simulate::any_wrong(judged)) {
        std::fprintf(stderr, "gpu-topology-probe: the simulated probe vouched for values the description contradicts:\n%s",
                     simulate::wrong_lines(judged).c_str());
        return kFailure;
    }
    return rc;
}

int cmd_simulate_compare(const Args& args) {
    const auto arch = architecture(args);
    const auto profile = profile::load_profile(args.positional[0]);
    const auto* source = profile.find("source");
    if (!source || (source->as_string() != simulate::simulated_source(arch) && source->as_string() != "measured"))
        std::printf("note   %s was not simulated from %s (source: %s)\n", args.positional[0].c_str(),
                    simulate::simulated_source(arch).c_str(), source ? source->as_string().c_str() : "?");
    // A profile measured on a card: the sources' other methods are allowed for (the description's allowances).
    const bool measured = source && source->as_string() == "measured";
    return report(simulate::judge(arch, profile, measured), args.has("--all")) ? kFailure : 0;
}

int cmd_simulate_table(const Args& args) {
    namespace fs = std::filesystem;
    const fs::path dir = args.positional[0];
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw UsageError(dir.string() + ": no architecture descriptions (*.json)");
    std::vector<simulate::Architecture> archs;
    for (const auto& f : files) archs.push_back(simulate::load_architecture(f));
    std::vector<simulate::TableEntry> entries;
    stages::Progress progress(!args.has("--quiet"));
    const simulate::RunOptions run{seed_of(args), false};
    for (const auto& arch : archs) {
        progress.note("simulating " + arch.name);
        stages::Progress quiet(false);
        const auto profile = model::to_json(simulate::simulate_probe(arch, run, {}, quiet));
        entries.push_back({fs::path(arch.file).filename().string(), &arch, simulate::judge(arch, profile)});
    }
    write_output(args.get("--output"), simulate::verdict_table(entries));
    return std::any_of(entries.begin(), entries.end(), [](const auto& e) { return simulate::any_wrong(e.judged); })
               ? kFailure
               : 0;
}

}  // namespace gpu_topology::cli

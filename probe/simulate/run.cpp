#include "run.hpp"

#include "util/format.hpp"

#include <cmath>
#include <filesystem>
#include <map>

namespace gpu_topology::simulate {

std::string simulated_source(const Architecture& arch) {
    return "simulated:" + std::filesystem::path(arch.file).filename().string();
}

model::Topology simulate_probe(const Architecture& arch, const RunOptions& run, const stages::ProbeOptions& options,
                               stages::Progress& progress) {
    const auto facts = simulated_facts(arch, run);
    const stages::BufferLayout layout(std::uint64_t(facts.l2_bytes), std::uint64_t(facts.global_bytes));
    SimulatedEngine engine(arch, layout.buffer_bytes, run);
    SimulatedProcessMonitor monitor(engine);
    auto topology = stages::measure_topology(engine, facts, options, progress, monitor);
    topology.source = simulated_source(arch);
    return topology;
}

namespace {

std::string number(const std::optional<double>& v) {
    if (!v) return "-";
    const double x = *v;
    if (std::abs(x) >= 1e9) return util::format_number(std::round(x / 1e7) / 100) + "e9";
    return util::format_number(std::round(x * 100) / 100);
}

// A table cell: no pipes or line breaks from a reason.
std::string cell(std::string text, std::size_t most = 90) {
    for (auto& c : text)
        if (c == '|' || c == '\n') c = ' ';
    if (text.size() > most) text = text.substr(0, most) + "...";
    return text;
}

}  // namespace

std::string verdict_table(const std::vector<TableEntry>& entries) {
    std::string out =
        "# What the probe recovers from each simulated architecture\n\n"
        "Written by `gpu-topology-probe simulate-table architectures --output docs/simulated-results.md` (seed 1, "
        "full level, quiet) and checked current by the unit test `SimulateProbe.EveryDescriptionIsRecovered`. "
        "Each quantity: what its description implies (with the tolerance a real card gets between runs), what "
        "the simulated probe recovered, and the verdict (docs/simulated-architectures.md, Verdicts).\n\n";
    for (const auto& e : entries) {
        std::map<Verdict, int> counts;
        for (const auto& j : e.judged) ++counts[j.verdict];
        out += "### " + e.arch->name + " (`architectures/" + e.file + "`)\n\n";
        out += std::to_string(counts[Verdict::agrees]) + " agree, " + std::to_string(counts[Verdict::unmeasured]) +
               " unmeasured, " + std::to_string(counts[Verdict::doubted]) + " not vouched for, " +
               std::to_string(counts[Verdict::wrong]) + " wrong.\n\n";
        out += "| quantity | described | recovered | verdict | note |\n|---|---:|---:|---|---|\n";
        for (const auto& j : e.judged) {
            const std::string described = !j.expected.described ? "not described"
                                          : j.expected.value ? (j.expected.lower_bound ? ">= " : "") + number(j.expected.value) +
                                                                   " (+-" + number(j.expected.tolerance) + ")"
                                                             : "none";
            const std::string note = j.verdict == Verdict::agrees || j.verdict == Verdict::wrong
                                         ? j.expected.why
                                         : j.note.empty() ? j.expected.why : j.note;
            out += "| " + j.expected.name + " | " + described + " | " + number(j.recovered) + " | " +
                   std::string(to_string(j.verdict)) + " | " + cell(note) + " |\n";
        }
        out += "\n";
    }
    return out;
}

}  // namespace gpu_topology::simulate

// The commands that need no GPU: a profile's header, variables, table and
// picture, its validation and comparison, the docs, and replays of engine logs.
#include "args.hpp"

#include "stages/monitor.hpp"
#include "replay/recorded_engine.hpp"
#include "model/agreement.hpp"
#include "model/serialize.hpp"
#include "util/atomic_file.hpp"
#include "profile/node_profile.hpp"
#include "profile/profile.hpp"
#include "codegen/node.hpp"
#include "pictures/node_svg.hpp"
#include "codegen/render.hpp"
#include "pictures/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpu_topology::cli {

int cmd_svg(const Args& args) {
    const auto document = profile::load_any_profile(args.positional[0]);
    const auto picture = profile::is_node_document(document) ? render::node_svg(document) : render::hierarchy_svg(document);
    const auto output = args.get("--output");
    if (!output || *output == "-") {
        write_output(output, picture);
        return 0;
    }
    auto files = outputs_for(args);
    files.write(*output, picture);
    files.commit();
    return 0;
}

namespace {

using DrawPicture = std::string (*)(const util::Json&);

// Writes a document the probe made to --output, and its picture beside it,
// both or neither; false when it is invalid. Measured on a GPU, that is a bug
// in the probe, never the user's fault, so say so loudly; replayed, the values
// came from `replayed_log`, which is then what holds what no GPU answers.
bool write_measured(const util::Json& document, const std::vector<std::string>& errors, const char* kind,
                    DrawPicture draw, const Args& args, stages::Progress& progress,
                    const std::string& replayed_log = {}) {
    for (const auto& e : errors) {
        const auto error = util::printable_lines(e);
        if (replayed_log.empty())
            std::fprintf(stderr, "gpu-topology-probe: produced an invalid %s: %s\n", kind, error.c_str());
        else
            std::fprintf(stderr, "gpu-topology-probe: %s: the engine log answers what no GPU does: its replay gives an "
                                 "invalid %s: %s\n", util::printable_lines(replayed_log).c_str(), kind, error.c_str());
    }
    if (!errors.empty()) return false;
    const auto output = args.get("--output");
    if (!output || *output == "-") {
        write_output(output, document.dump());
        return true;
    }
    auto files = outputs_for(args);
    files.write(*output, document.dump());
    const auto picture = picture_beside(*output);
    files.write(picture, draw(document));
    files.commit();
    progress.note("picture: " + util::printable_lines(picture.string()));
    return true;
}

}  // namespace

int finish_probe(const model::Topology& topology, const Args& args, stages::Progress& progress,
                 const std::string& replayed_log) {
    const auto document = model::to_json(topology);
    auto errors = profile::validate(document);
    // A live probe makes a value no GPU has unmeasured; a replayed one got it from its log.
    if (!replayed_log.empty()) errors.insert(errors.end(), topology.refused.begin(), topology.refused.end());
    if (!write_measured(document, errors, "profile", render::hierarchy_svg, args, progress, replayed_log))
        return kFailure;
    progress.note("probe finished in " + util::format_number(std::round(topology.probe.duration_s * 100) / 100) + " s");
    if (!topology.conditions.quiet) {
        for (const auto& e : topology.conditions.events) std::fprintf(stderr, "gpu-topology-probe: %s\n", e.c_str());
        return kBusy;
    }
    return 0;
}

// The node's counterpart of finish_probe: one node profile, its picture, and
// whether one set of facts describes every device.
int finish_node(const model::NodeTopology& node, const Args& args, stages::Progress& progress) {
    const auto document = model::to_json(node);
    if (!write_measured(document, profile::validate_node(document), "node profile", render::node_svg, args, progress))
        return kFailure;
    const auto common = profile::node_facts(document);
    for (const auto& d : common.model_differences) progress.note("devices differ: " + d);
    for (const auto& w : common.withheld) progress.note("withheld from the common facts: " + w);
    if (common.model_differences.empty())
        progress.note(std::to_string(node.devices.size()) + " devices of one model; " +
                      std::to_string(common.withheld.size()) + " measured values differ between them and are withheld");
    char timing[160];
    std::snprintf(timing, sizeof timing, "node probe finished in %.2f s (slowest device %.2f s, links %.2f s)",
                  node.duration_s, node.slowest_device_s, node.links_s);
    progress.note(timing);
    int busy = 0;
    for (const auto& device : node.devices)
        if (!device.conditions.quiet) {
            ++busy;
            for (const auto& e : device.conditions.events)
                std::fprintf(stderr, "gpu-topology-probe: device %d: %s\n", device.device.index, e.c_str());
        }
    return busy ? kBusy : 0;
}

namespace {

// --source TEXT reaches the header and a CMake script (escaped there too): text, within a profile's bounds.
std::optional<std::string> source_text(const Args& args) {
    auto source = args.get("--source");
    if (source && !util::is_safe_text(*source))
        throw UsageError("--source: '" + util::printable(*source) +
                         "' holds a control character or invalid UTF-8; it becomes text in the header");
    if (source && source->size() > profile::kMaxTextBytes)
        throw UsageError("--source: " + std::to_string(source->size()) + " bytes, longer than the " +
                         std::to_string(profile::kMaxTextBytes) + " a text may have");
    return source;
}

}  // namespace

int cmd_render(const Args& args) {
    const auto source = source_text(args);  // a usage error before any file is read
    const auto& path = args.positional[0];
    const auto text = profile::read_profile_bytes(path);
    const auto document = profile::load_any_profile_text(text, path);
    // A node whose devices are not one model has no common facts: the header and the variables need them.
    if (profile::is_node_document(document) && (args.has("--header") || args.has("--cmake"))) try {
        (void)render::facts_of(document);
    } catch (const std::invalid_argument& e) {
        throw profile::ProfileError(path + ": " + e.what());
    }
    render::RenderContext context;
    context.profile_hash = profile::content_hash(text);
    if (source) context.profile_source = *source;
    // Both files or neither: each rendered, then all written (util::OutputFiles).
    auto files = outputs_for(args);
    if (auto header = args.get("--header"))
        files.write(*header, render::render_header(document, context, render::embedded_header_template()), true);
    if (auto cmake = args.get("--cmake")) files.write(*cmake, render::render_cmake(document, context), true);
    files.commit();
    const bool table = args.command == "show" || args.has("--table") || (!args.has("--header") && !args.has("--cmake"));
    if (table) write_output(std::nullopt, render::render_table(document, context, !args.has("--summary")));
    return 0;
}

int cmd_validate(const Args& args) {
    const auto document = profile::load_any_profile(args.positional[0]);
    // The file name is the user's, but may hold any byte: it reaches the terminal escaped.
    std::printf("%s: valid %s profile\n", util::printable(args.positional[0], std::string::npos).c_str(),
                document.find("schema")->as_string().c_str());
    return 0;
}

int cmd_docs(const Args& args) {
    if (!args.has("--list")) {
        write_output(args.get("--output"), render::render_quantity_docs());
        return 0;
    }
    std::string lines;
    for (const auto& q : model::kQuantities) {
        const char* shape = q.shape == model::Shape::fact ? "fact" : q.shape == model::Shape::latency ? "latency" : "estimate";
        // The agreement rule of one card's runs (model/agreement.hpp), for scripts that compare.
        const auto rule = model::agreement_rule(q);
        lines += std::string(q.name) + " " + std::string(q.path) + " " + std::string(q.object()) + " " +
                 std::string(q.member()) + " " + shape + " " + util::format_number(rule.relative) + " " +
                 util::format_number(rule.at_least) + "\n";
    }
    write_output(args.get("--output"), lines);
    return 0;
}

// PROFILE may not vouch for a value outside the references' range by more than the tolerance.
int cmd_compare(const Args& args) {
    const auto candidate = profile::load_profile(args.positional[0]);
    std::vector<util::Json> references;
    for (std::size_t i = 1; i < args.positional.size(); ++i) references.push_back(profile::load_profile(args.positional[i]));
    int outside = 0, vouched = 0, doubted = 0;
    for (const auto& q : model::kQuantities) {
        const auto v = profile::read_quantity(candidate, q);
        if (!v.value || v.source == model::Source::api) continue;
        if (!v.doubt.empty()) {
            ++doubted;
            continue;
        }
        double lo = 1e300, hi = -1e300;
        bool all = true;
        for (const auto& r : references) {
            const auto w = profile::read_quantity(r, q);
            if (!w.value) all = false;
            else lo = std::min(lo, *w.value), hi = std::max(hi, *w.value);
        }
        if (!all) continue;
        ++vouched;
        const double tolerance = model::agreement_tolerance(q, std::abs(lo));
        if (*v.value < lo - tolerance || *v.value > hi + tolerance) {
            std::printf("OUTSIDE %-40s %s, references %s .. %s (tolerance %s)\n", std::string(q.name).c_str(),
                        util::format_number(*v.value).c_str(), util::format_number(lo).c_str(),
                        util::format_number(hi).c_str(), util::format_number(std::round(tolerance)).c_str());
            ++outside;
        }
    }
    std::printf("%d vouched for and compared, %d outside the references' spread, %d not vouched for\n", vouched,
                outside, doubted);
    return outside ? kFailure : 0;
}

#if !GPU_TOPOLOGY_RENDER_ONLY  // the render-only build (probe/CMakeLists.txt) has no stages to replay
int cmd_replay(const Args& args) {
    refuse_clashing_outputs(args);
    // A quick level leaves some of a full recording's calls out (replay takes no budget:
    // the recorded run's time would not be this run's).
    const bool subset = args.get("--level") == std::optional<std::string>("quick");
    stages::ReplayEngine engine(args.positional[0], subset ? stages::ReplayEngine::Matching::subsequence
                                                              : stages::ReplayEngine::Matching::every_call);
    stages::Progress progress(!args.has("--quiet"));
    stages::BlindMonitor monitor("replayed from " + args.positional[0]);
    auto options = probe_options(args);
    options.quiet_reference_seconds = quiet_reference(args, engine.facts().name, engine.facts().sm_count, progress);
    const auto topology = [&] {
        try {
            return stages::measure_topology(engine, engine.facts(), options, progress, monitor);
        } catch (const stages::ReplayError&) {
            throw;  // names its line already
        } catch (const std::exception& e) {
            // A stage failed on what the log answered (no samples to take a quantile of, ...): point at the answer.
            throw stages::ReplayError(engine.where() + ": replaying the log failed after this call: " + e.what());
        }
    }();
    if (engine.calls_replayed() != engine.calls_recorded())  // a quick level replays a subsequence
        progress.note("the replay used " + std::to_string(engine.calls_replayed()) + " of the " +
                      std::to_string(engine.calls_recorded()) + " recorded calls");
    return finish_probe(topology, args, progress, args.positional[0]);
}
#endif

}  // namespace gpu_topology::cli

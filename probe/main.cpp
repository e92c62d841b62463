// gpu-topology-probe: measure a GPU's memory hierarchy, and turn the profile
// into a header. Exit codes: 0 ok, 1 failure, 2 usage, 3 measured while the
// GPU was busy (the profile is written; what was disturbed is not vouched
// for), 77 no usable GPU (CTest's SKIP_RETURN_CODE, and CMake's no-GPU signal).
#include "benchmarks/monitor.hpp"
#include "benchmarks/recorded_engine.hpp"
#include "benchmarks/stages.hpp"
#include "model/agreement.hpp"
#include "model/serialize.hpp"
#include "model/node.hpp"
#include "profile/atomic_file.hpp"
#include "profile/node_profile.hpp"
#include "profile/profile.hpp"
#include "render/node.hpp"
#include "render/render.hpp"
#include "render/svg.hpp"
#include "version.hpp"

#if GPU_TOPOLOGY_WITH_CUDA
#include "benchmarks/explore.hpp"
#include "benchmarks/node_probe.hpp"
#include "kernels/cuda_engine.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace gpu_topology;
constexpr int kFailure = 1, kUsage = 2, kBusy = 3, kNoGpu = 77;

constexpr const char* kUsageText = R"(usage: gpu-topology-probe <command> [options]

commands:
  probe     [--device N | --all-devices] [--output FILE|-] [--raw DIR] [--record LOG] [--quiet]
            [--level quick|full] [--budget SECONDS] [--careful]
            measure the device; write the profile (JSON) to FILE (default: stdout) and,
            beside a FILE, its picture (FILE with .svg for .json); progress to stderr,
            every sweep as CSV into DIR, every engine call into LOG.
            --level quick: L1, L2 and DRAM sizes, lines, latencies, bandwidths (default full);
            --budget: start no stage after SECONDS (the profile lists the skipped ones);
            --careful: chase every warm pass and time whole passes (slower, for comparison)
            --no-nvml: watch for other work with the reference measurement alone
            --quiet-reference PROFILE: an earlier profile of this model, measured on a
            quiet GPU; work already running when the probe starts is then seen too
            --all-devices: every device at once, then the links between them, into one
            node profile (docs/node.md); not with --device, --raw or --record
  replay    LOG [--output FILE|-] [--level quick|full] [--careful] [--quiet-reference PROFILE]
            run the probe's stages against a recorded engine LOG, on any machine
  identity  [--device N | --all-devices]
            print the device identity as one JSON line (every device: a JSON array)
  render    PROFILE [--header FILE] [--cmake FILE] [--source TEXT] [--table]
            write gpu_topology.hpp / CMake variables from a profile or a node profile
            (a node's devices must be one model, else it names what differs and fails;
            measured values that differ between them are withheld: docs/node.md)
  show      PROFILE [--summary]   print the profile as a table
  svg       PROFILE [--output FILE|-]   draw the profile's hierarchy (latency curve, levels, bandwidths),
            or a node profile's devices and links
  validate  PROFILE           check a profile; name every wrong field
  check     PROFILE [--device N | --all-devices] [--identity-only]
            compare this device with the profile: identity, then re-measured values;
            with a node profile and --all-devices, every device of it
  compare   PROFILE REFERENCE...
            fail when PROFILE vouches for a value outside the references' spread
  explore   --raw DIR [--device N]
            dense sweeps over every region of interest (slow; for study and tests/data)
  docs      [--output FILE] [--list]
            the table of quantities (docs/quantities.md); --list: one line each,
            "NAME path object member shape", for scripts
  version

exit codes: 0 ok, 1 failure, 2 usage error, 3 measured while the GPU was busy, 77 no usable GPU
)";

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Args {
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;  // "--flag" -> value ("" for switches)
    bool has(const std::string& flag) const { return options.count(flag) != 0; }
    std::optional<std::string> get(const std::string& flag) const {
        const auto it = options.find(flag);
        return it == options.end() ? std::nullopt : std::optional(it->second);
    }
};

// What each command accepts: its options (true: takes a value) and positional arguments.
struct CommandSpec {
    std::map<std::string, bool> options;
    std::size_t positional;
};
const std::map<std::string, CommandSpec> kCommands{
    {"probe", {{{"--device", true}, {"--output", true}, {"--raw", true}, {"--record", true}, {"--quiet", false},
                {"--level", true}, {"--budget", true}, {"--careful", false}, {"--no-nvml", false},
                {"--quiet-reference", true}, {"--all-devices", false}}, 0}},
    {"compare", {{}, 0}},
    {"replay", {{{"--output", true}, {"--level", true}, {"--careful", false}, {"--quiet", false},
                 {"--quiet-reference", true}}, 1}},
    {"identity", {{{"--device", true}, {"--all-devices", false}}, 0}},
    {"render", {{{"--header", true}, {"--cmake", true}, {"--source", true}, {"--table", false}}, 1}},
    {"show", {{{"--summary", false}}, 1}},
    {"svg", {{{"--output", true}}, 1}},
    {"validate", {{}, 1}},
    {"check", {{{"--device", true}, {"--identity-only", false}, {"--all-devices", false}}, 1}},
    {"explore", {{{"--raw", true}, {"--device", true}}, 0}},
    {"docs", {{{"--output", true}, {"--list", false}}, 0}},
    {"version", {{}, 0}},
};

Args parse(int argc, char** argv) {
    if (argc < 2) throw UsageError("no command");
    Args args;
    args.command = argv[1];
    const auto spec = kCommands.find(args.command);
    if (spec == kCommands.end()) throw UsageError("unknown command '" + args.command + "'");
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--", 0) != 0) {
            args.positional.push_back(a);
            continue;
        }
        const auto known = spec->second.options.find(a);
        if (known == spec->second.options.end()) throw UsageError(args.command + ": unknown option " + a);
        if (known->second) {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            args.options[a] = argv[++i];
        } else {
            args.options[a] = "";
        }
    }
    if (args.command == "compare" ? args.positional.size() < 2 : args.positional.size() != spec->second.positional)
        throw UsageError(args.command + " takes " + std::to_string(spec->second.positional) + " argument(s), got " +
                         std::to_string(args.positional.size()));
    return args;
}

int device_index(const Args& args) {
    if (args.has("--all-devices") && args.has("--device")) throw UsageError("--device and --all-devices exclude each other");
    const auto text = args.get("--device");
    if (!text) return 0;
    try {
        std::size_t used = 0;
        const int n = std::stoi(*text, &used);
        if (used == text->size() && n >= 0) return n;
    } catch (const std::exception&) {
    }
    throw UsageError("--device: '" + *text + "' is not a device index");
}

// --all-devices measures a node: the options that name one device's files do not apply.
void check_all_devices_options(const Args& args) {
    (void)device_index(args);  // refuses --device beside --all-devices
    if (!args.has("--all-devices")) return;
    for (const char* alone : {"--raw", "--record"})
        if (args.has(alone)) throw UsageError(std::string(alone) + " measures one device; not with --all-devices");
}

benchmarks::ProbeOptions probe_options(const Args& args) {
    benchmarks::ProbeOptions options;
    if (auto raw = args.get("--raw")) options.raw_dir = *raw;
    if (auto text = args.get("--level")) {
        const auto level = benchmarks::level_from_string(*text);
        if (!level) throw UsageError("--level: '" + *text + "' is not quick or full");
        options.level = *level;
    }
    if (auto text = args.get("--budget")) {
        std::size_t used = 0;
        double seconds = -1;
        try {
            seconds = std::stod(*text, &used);
        } catch (const std::exception&) {
        }
        if (used != text->size() || !(seconds > 0) || !std::isfinite(seconds))
            throw UsageError("--budget: '" + *text + "' is not a positive number of seconds");
        options.budget_seconds = seconds;
    }
    if (args.has("--careful")) options.pace = benchmarks::Pace::careful;
    return options;
}

// The reference work's quiet duration from --quiet-reference PROFILE, when
// that profile describes this model (name and SM count) and recorded it.
std::optional<double> quiet_reference(const Args& args, const std::string& device_name, int sm_count,
                                      benchmarks::Progress& progress) {
    const auto file = args.get("--quiet-reference");
    if (!file) return std::nullopt;
    const auto reference = profile::load_profile(*file);
    const auto* name = reference.at_path("device.name");
    const auto sms = profile::read_quantity(reference, model::kQuantities[model::kSmCount]).value;
    if (!name || name->as_string() != device_name || sms != double(sm_count)) {
        progress.note("--quiet-reference " + *file + " describes another model (" +
                      (name ? name->as_string() : std::string("?")) + "); not used");
        return std::nullopt;
    }
    const auto* seconds = reference.at_path("conditions.reference_work_seconds");
    if (!seconds) {
        progress.note("--quiet-reference " + *file + " records no reference work; not used");
        return std::nullopt;
    }
    if (const auto* quiet = reference.at_path("conditions.quiet"); !quiet || !quiet->is_bool() || !quiet->as_bool())
        throw UsageError("--quiet-reference " + *file + " was measured while the GPU was busy");
    return seconds->as_number();
}

void write_output(const std::optional<std::string>& target, const std::string& text) {
    if (!target || *target == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    } else {
        profile::write_file_atomically(*target, text);
    }
}

// Where the picture of a profile written to `profile_file` goes: beside it, .json replaced by .svg.
std::filesystem::path picture_beside(const std::filesystem::path& profile_file) {
    auto picture = profile_file;
    if (picture.extension() == ".json") return picture.replace_extension(".svg");
    return picture += ".svg";
}

int cmd_svg(const Args& args) {
    const auto document = profile::load_any_profile(args.positional[0]);
    write_output(args.get("--output"), profile::is_node_document(document) ? render::node_svg(document)
                                                                           : render::hierarchy_svg(document));
    return 0;
}

// Validates what the probe measured, writes it, and says how it went.
int finish_probe(const model::Topology& topology, const Args& args, benchmarks::Progress& progress) {
    const auto document = model::to_json(topology);
    const auto errors = profile::validate(document);
    if (!errors.empty()) {  // a bug in the probe, never the user's fault: say so loudly
        for (const auto& e : errors) std::fprintf(stderr, "gpu-topology-probe: produced an invalid profile: %s\n", e.c_str());
        return kFailure;
    }
    write_output(args.get("--output"), document.dump());
    if (const auto output = args.get("--output"); output && *output != "-") {
        const auto picture = picture_beside(*output);
        render::write_hierarchy_svg(document, picture);
        progress.note("picture of the hierarchy: " + picture.string());
    }
    progress.note("probe finished in " + profile::format_number(std::round(topology.probe.duration_s * 100) / 100) + " s");
    if (!topology.conditions.quiet) {
        for (const auto& e : topology.conditions.events) std::fprintf(stderr, "gpu-topology-probe: %s\n", e.c_str());
        return kBusy;
    }
    return 0;
}

// The node's counterpart of finish_probe: one node profile, its picture, and
// whether one set of facts describes every device.
int finish_node(const model::NodeTopology& node, const Args& args, benchmarks::Progress& progress) {
    const auto document = model::to_json(node);
    if (const auto errors = profile::validate_node(document); !errors.empty()) {
        for (const auto& e : errors) std::fprintf(stderr, "gpu-topology-probe: produced an invalid node profile: %s\n", e.c_str());
        return kFailure;
    }
    write_output(args.get("--output"), document.dump());
    if (const auto output = args.get("--output"); output && *output != "-") {
        const auto picture = picture_beside(*output);
        render::write_node_svg(document, picture);
        progress.note("picture of the node: " + picture.string());
    }
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
        if (const auto* quiet = device.at_path("conditions.quiet"); quiet && quiet->is_bool() && !quiet->as_bool()) {
            ++busy;
            for (const auto& e : device.at_path("conditions.events")->as_array())
                std::fprintf(stderr, "gpu-topology-probe: device %s: %s\n",
                             profile::format_number(device.at_path("device.index")->as_number()).c_str(),
                             e.as_string().c_str());
        }
    return busy ? kBusy : 0;
}

int cmd_render(const Args& args) {
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
    if (auto source = args.get("--source")) {
        if (source->empty() || !profile::is_safe_text(*source)) throw UsageError("--source: not a usable source text");
        context.profile_source = *source;
    }
    if (auto header = args.get("--header"))
        profile::write_file_if_changed(*header, render::render_header(document, context, render::embedded_header_template()));
    if (auto cmake = args.get("--cmake")) profile::write_file_if_changed(*cmake, render::render_cmake(document, context));
    const bool table = args.command == "show" || args.has("--table") || (!args.has("--header") && !args.has("--cmake"));
    if (table) std::fputs(render::render_table(document, context, !args.has("--summary")).c_str(), stdout);
    return 0;
}

int cmd_validate(const Args& args) {
    const auto document = profile::load_any_profile(args.positional[0]);
    std::printf("%s: valid %s profile\n", args.positional[0].c_str(),
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
        lines += std::string(q.name) + " " + std::string(q.path) + " " + std::string(q.object()) + " " +
                 std::string(q.member()) + " " + shape + "\n";
    }
    write_output(args.get("--output"), lines);
    return 0;
}

// PROFILE may not vouch for a value outside the references' range by more than the tolerance.
int cmd_compare(const Args& args) {
    const auto candidate = profile::load_profile(args.positional[0]);
    std::vector<profile::Json> references;
    for (std::size_t i = 1; i < args.positional.size(); ++i) references.push_back(profile::load_profile(args.positional[i]));
    int outside = 0, vouched = 0, doubted = 0;
    for (const auto& q : model::kQuantities) {
        const auto v = profile::read_quantity(candidate, q);
        if (!v.value || v.source == "api") continue;
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
                        profile::format_number(*v.value).c_str(), profile::format_number(lo).c_str(),
                        profile::format_number(hi).c_str(), profile::format_number(std::round(tolerance)).c_str());
            ++outside;
        }
    }
    std::printf("%d vouched for and compared, %d outside the references' spread, %d not vouched for\n", vouched,
                outside, doubted);
    return outside ? kFailure : 0;
}

int cmd_replay(const Args& args) {
    // A quick level or a budget leaves some of a full recording's calls out.
    const bool subset = args.get("--level") == std::optional<std::string>("quick") || args.has("--budget");
    benchmarks::ReplayEngine engine(args.positional[0], subset ? benchmarks::ReplayEngine::Matching::subsequence
                                                              : benchmarks::ReplayEngine::Matching::every_call);
    benchmarks::Progress progress(!args.has("--quiet"));
    benchmarks::BlindMonitor monitor("replayed from " + args.positional[0]);
    auto options = probe_options(args);
    options.quiet_reference_seconds = quiet_reference(args, engine.facts().name, engine.facts().sm_count, progress);
    const auto topology = benchmarks::measure_topology(engine, engine.facts(), options, progress, monitor);
    if (engine.calls_replayed() != engine.calls_recorded())  // a quick level or a budget replays a subsequence
        progress.note("the replay used " + std::to_string(engine.calls_replayed()) + " of the " +
                      std::to_string(engine.calls_recorded()) + " recorded calls");
    return finish_probe(topology, args, progress);
}

#if GPU_TOPOLOGY_WITH_CUDA

std::optional<benchmarks::DeviceFacts> lookup(int index) {
    const auto found = kernels::find_device(index);
    if (!found.found) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", found.reason.c_str());
        return std::nullopt;
    }
    return found.facts;
}

// Every device the CUDA runtime shows, in index order; empty when there is none.
std::vector<benchmarks::DeviceFacts> all_devices() {
    std::vector<benchmarks::DeviceFacts> devices;
    for (int index = 0;; ++index) {
        const auto found = kernels::find_device(index);
        if (!found.found) {
            if (devices.empty()) std::fprintf(stderr, "gpu-topology-probe: %s\n", found.reason.c_str());
            return devices;
        }
        devices.push_back(found.facts);
    }
}

profile::Json identity_json(const benchmarks::DeviceFacts& facts) {
    profile::Json j = profile::Json::object();
    j["name"] = facts.name;
    j["uuid"] = facts.uuid;
    j["cc"] = std::to_string(facts.cc_major) + "." + std::to_string(facts.cc_minor);
    j["sm_count"] = facts.sm_count;
    j["driver"] = facts.driver_version;
    j["runtime"] = facts.runtime_version;
    j["probe_version"] = std::string(kProbeVersion);
    return j;
}

int cmd_identity(const Args& args) {
    if (args.has("--all-devices")) {
        (void)device_index(args);  // refuses --device beside it
        const auto devices = all_devices();
        if (devices.empty()) return kNoGpu;
        profile::Json list = profile::Json::array();
        for (const auto& d : devices) list.push_back(identity_json(d));
        std::fputs(list.dump(-1).c_str(), stdout);
        return 0;
    }
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    std::fputs(identity_json(*facts).dump(-1).c_str(), stdout);
    return 0;
}

int cmd_probe_all(const Args& args) {
    check_all_devices_options(args);
    const auto options = probe_options(args);
    const auto devices = all_devices();
    if (devices.empty()) return kNoGpu;
    benchmarks::Progress progress(!args.has("--quiet"));
    benchmarks::NodeOptions node_options;
    node_options.nvml = !args.has("--no-nvml");
    node_options.show_progress = !args.has("--quiet");
    for (const auto& d : devices) {
        progress.note("probing device " + std::to_string(d.index) + ": " + d.name + " (" + d.uuid + ")");
        auto per_device = options;
        per_device.quiet_reference_seconds = quiet_reference(args, d.name, d.sm_count, progress);
        node_options.per_device.push_back(per_device);
    }
    return finish_node(benchmarks::probe_node(devices, node_options), args, progress);
}

int cmd_probe(const Args& args) {
    if (args.has("--all-devices")) return cmd_probe_all(args);
    auto options = probe_options(args);
    const int index = device_index(args);
    const auto facts = lookup(index);
    if (!facts) return kNoGpu;
    benchmarks::Progress progress(!args.has("--quiet"));
    progress.note("probing device " + std::to_string(facts->index) + ": " + facts->name + " (" + facts->uuid + ")");
    options.quiet_reference_seconds = quiet_reference(args, facts->name, facts->sm_count, progress);
    return finish_probe(benchmarks::probe_device(*facts, options, progress, args.get("--record"), !args.has("--no-nvml")),
                        args, progress);
}

int check_device(const profile::Json& expected, int index, bool identity_only) {
    const auto facts = lookup(index);
    if (!facts) return kNoGpu;
    int failures = 0;
    const auto compare = [&](const char* what, const std::string& want, const std::string& got) {
        const bool ok = want == got;
        std::printf("%-6s %-40s profile %-24s device %s\n", ok ? "ok" : "FAIL", what, want.c_str(), got.c_str());
        failures += !ok;
    };
    const auto fact = [&](model::QuantityId q) {
        const auto v = profile::read_quantity(expected, model::kQuantities[q]);
        return v.value ? profile::format_number(*v.value) : std::string("?");
    };
    compare("device name", expected.at_path("device.name")->as_string(), facts->name);
    compare("compute capability", fact(model::kCcMajor) + "." + fact(model::kCcMinor),
            std::to_string(facts->cc_major) + "." + std::to_string(facts->cc_minor));
    compare("SM count", fact(model::kSmCount), std::to_string(facts->sm_count));
    if (expected.at_path("device.uuid")->as_string() != facts->uuid)
        std::printf("note   the profile was measured on another card of this model (%s)\n",
                    expected.at_path("device.uuid")->as_string().c_str());
    if (failures) {
        std::printf("the profile describes another GPU than device %d\n", index);
        return kFailure;
    }
    if (identity_only) return 0;

    benchmarks::Progress progress(false);
    const auto measured = model::to_json(benchmarks::probe_device(*facts, {}, progress));
    for (const auto& q : model::kQuantities) {
        const auto want = profile::read_quantity(expected, q);
        const auto got = profile::read_quantity(measured, q);
        if (!want.value || want.source == "api" || q.stage == "warm-up" || !want.doubt.empty()) continue;
        if (!got.value) {
            std::printf("FAIL   %-40s profile %-24s device not measured (%s)\n", std::string(q.name).c_str(),
                        profile::format_number(*want.value).c_str(), got.reason.c_str());
            ++failures;
            continue;
        }
        const double tolerance = model::agreement_tolerance(q, std::abs(*want.value));
        const bool ok = std::abs(*got.value - *want.value) <= tolerance;
        std::printf("%-6s %-40s profile %-24s device %s (tolerance %s)%s\n", ok ? "ok" : "FAIL", std::string(q.name).c_str(),
                    profile::format_number(*want.value).c_str(), profile::format_number(std::round(*got.value)).c_str(),
                    profile::format_number(std::round(tolerance)).c_str(),
                    got.doubt.empty() ? "" : (" [not vouched for: " + got.doubt + "]").c_str());
        failures += !ok;
    }
    std::printf("%d mismatches\n", failures);
    return failures ? kFailure : 0;
}

// A profile against device --device; a node profile (with --all-devices) against each of its devices.
int cmd_check(const Args& args) {
    const auto expected = profile::load_any_profile(args.positional[0]);
    const bool identity_only = args.has("--identity-only");
    const int index = device_index(args);
    if (!profile::is_node_document(expected)) {
        if (args.has("--all-devices")) throw UsageError("--all-devices: " + args.positional[0] + " is not a node profile");
        return check_device(expected, index, identity_only);
    }
    if (!args.has("--all-devices")) throw UsageError(args.positional[0] + " is a node profile: check it with --all-devices");
    const auto& devices = expected.find("devices")->as_array();
    const auto here = all_devices();
    if (here.empty()) return kNoGpu;
    if (here.size() != devices.size()) {
        std::printf("FAIL   the node profile lists %zu devices; this machine shows %zu\n", devices.size(), here.size());
        return kFailure;
    }
    int worst = 0;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        std::printf("== device %zu\n", i);
        const int rc = check_device(devices[i], static_cast<int>(i), identity_only);
        if (rc == kNoGpu) return kNoGpu;
        worst = std::max(worst, rc);
    }
    return worst;
}

int cmd_explore(const Args& args) {
    const auto raw = args.get("--raw");
    if (!raw) throw UsageError("explore needs --raw DIR");
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    std::filesystem::create_directories(*raw);
    // Rings, an L2-sized eviction region at 300 MiB, fresh regions at the top.
    const auto engine = kernels::make_cuda_engine(facts->index, 768ull << 20);
    engine->warm_up(250);
    // The slow reference: every warm pass chased, every pass timed whole.
    benchmarks::SweepRunner runner(*engine, std::filesystem::path(*raw), benchmarks::Pace::careful);
    runner.calibrate_overhead();
    benchmarks::explore(runner, {.l2_bytes = static_cast<std::uint64_t>(facts->l2_bytes)});
    std::fprintf(stderr, "measured SM clock %.0f kHz\n", runner.measured_clock_khz());
    return 0;
}

#else

int no_cuda(const Args&) {
    std::fprintf(stderr, "gpu-topology-probe: built without CUDA; it cannot measure (render, show, validate, "
                         "replay and docs work)\n");
    return kNoGpu;
}
int cmd_identity(const Args& a) {
    (void)device_index(a);  // usage errors first
    return no_cuda(a);
}
int cmd_probe(const Args& a) {
    (void)probe_options(a);  // usage errors first: they do not depend on a GPU
    check_all_devices_options(a);
    return no_cuda(a);
}
int cmd_check(const Args& a) {
    profile::load_any_profile(a.positional[0]);
    (void)device_index(a);
    return no_cuda(a);
}
int cmd_explore(const Args& a) {
    if (!a.has("--raw")) throw UsageError("explore needs --raw DIR");
    (void)device_index(a);
    return no_cuda(a);
}

#endif

int run(const Args& args) {
    const std::map<std::string, std::function<int(const Args&)>> handlers{
        {"probe", cmd_probe},     {"replay", cmd_replay}, {"identity", cmd_identity}, {"render", cmd_render},
        {"show", cmd_render},     {"validate", cmd_validate}, {"check", cmd_check},  {"explore", cmd_explore},
        {"docs", cmd_docs},       {"compare", cmd_compare}, {"svg", cmd_svg},
        {"version", [](const Args&) {
             std::printf("gpu-topology-probe %s\n", std::string(kProbeVersion).c_str());
             return 0;
         }}};
    return handlers.at(args.command)(args);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help")) {
        std::fputs(kUsageText, stdout);
        return 0;
    }
    try {
        return run(parse(argc, argv));
    } catch (const UsageError& e) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n\n%s", e.what(), kUsageText);
        return kUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", e.what());
        return kFailure;
    }
}

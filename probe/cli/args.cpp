#include "args.hpp"

#include "model/quantities.hpp"
#include "util/atomic_file.hpp"
#include "profile/profile.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace gpu_topology::cli {

const char* const kUsageText = R"(usage: gpu-topology-probe <command> [options]

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
  simulate  --arch FILE [--seed N] [--busy] [--output FILE|-] [--level quick|full] [--raw DIR] [--quiet]
            run the probe on the GPU a description names (docs/simulated-architectures.md);
            the profile says "simulated:FILE" and fails when it vouches for a value the
            description contradicts. --busy: another workload comes and goes;
            --node: every device of the described node and its links (a node profile)
  simulate-compare PROFILE --arch FILE [--all]
            judge a profile against a description, quantity by quantity: a simulated one
            at a real card's tolerance, a measured one also with the description's
            allowances for sources that measured another way
  simulate-table DIR [--output FILE] [--seed N] [--quiet]
            simulate every description in DIR and write the table of verdicts
  docs      [--output FILE] [--list]
            the table of quantities (docs/quantities.md); --list: one line each,
            "NAME path object member shape relative at_least", for scripts (the
            last two: how far one card's runs may differ, model/agreement.hpp)
  version

exit codes: 0 ok, 1 failure, 2 usage error, 3 measured while the GPU was busy, 77 no usable GPU
)";

namespace {

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
    {"docs", {{{"--output", true}, {"--list", false}}, 0}},
    {"simulate", {{{"--arch", true}, {"--seed", true}, {"--busy", false}, {"--output", true}, {"--level", true}, {"--raw", true},
                   {"--quiet", false}, {"--node", false}}, 0}},
    {"simulate-compare", {{{"--arch", true}, {"--all", false}}, 1}},
    {"simulate-table", {{{"--output", true}, {"--seed", true}, {"--quiet", false}}, 1}},
    {"version", {{}, 0}},
};

}  // namespace

Args parse(int argc, char** argv) {
    if (argc < 2) throw UsageError("no command");
    Args args;
    args.command = argv[1];
    const auto spec = kCommands.find(args.command);
    if (spec == kCommands.end()) throw UsageError("unknown command '" + args.command + "'");
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.empty()) throw UsageError(args.command + ": an empty argument (a file name, quoted, that expanded to nothing?)");
        if (a.rfind("--", 0) != 0) {
            args.positional.push_back(a);
            continue;
        }
        const auto known = spec->second.options.find(a);
        if (known == spec->second.options.end()) throw UsageError(args.command + ": unknown option " + a);
        // One value an option: a second would silently win over the first.
        if (args.options.count(a)) throw UsageError(a + " given twice");
        if (known->second) {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            const std::string value = argv[++i];
            if (value.empty()) throw UsageError(a + " needs a value, got an empty one");
            if (value.rfind("--", 0) == 0)
                throw UsageError(a + " needs a value, got the option " + value + " (a file of that name: ./" + value + ")");
            args.options[a] = value;
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
    // Digits only: no sign, no space, no hexadecimal, nothing after them (from_chars, unlike stoi, skips nothing).
    int n = -1;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec == std::errc{} && end == text->data() + text->size() && n >= 0 && n <= profile::kMaxDeviceIndex &&
        std::isdigit(static_cast<unsigned char>(text->front())))
        return n;
    throw UsageError("--device: '" + *text + "' is not a device index (a whole number from 0 to " +
                     std::to_string(int(profile::kMaxDeviceIndex)) + ")");
}

void check_all_devices_options(const Args& args) {
    (void)device_index(args);  // refuses --device beside --all-devices
    if (!args.has("--all-devices")) return;
    for (const char* alone : {"--raw", "--record"})
        if (args.has(alone)) throw UsageError(std::string(alone) + " measures one device; not with --all-devices");
}

#if !GPU_TOPOLOGY_RENDER_ONLY  // the render-only build (probe/CMakeLists.txt) has no stages to pass options to
stages::ProbeOptions probe_options(const Args& args) {
    stages::ProbeOptions options;
    if (auto raw = args.get("--raw")) options.raw_dir = *raw;
    if (auto text = args.get("--level")) {
        const auto level = stages::level_from_string(*text);
        if (!level) throw UsageError("--level: '" + *text + "' is not quick or full");
        options.level = *level;
    }
    if (auto text = args.get("--budget")) {
        // A decimal number of seconds, all of it (from_chars, unlike stod, takes no space, sign or hexadecimal).
        double seconds = -1;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), seconds);
        if (ec != std::errc{} || end != text->data() + text->size() || !(seconds > 0) || seconds > kMaxBudgetSeconds)
            throw UsageError("--budget: '" + *text + "' is not a number of seconds in (0, " +
                             util::format_number(kMaxBudgetSeconds) + "]");
        options.budget_seconds = seconds;
    }
    if (args.has("--careful")) options.pace = stages::Pace::careful;
    return options;
}

std::optional<double> quiet_reference(const Args& args, const std::string& device_name, int sm_count,
                                      stages::Progress& progress) {
    const auto file = args.get("--quiet-reference");
    if (!file) return std::nullopt;
    const auto reference = profile::load_profile(*file);
    const auto* name = reference.at_path("device.name");
    const auto sms = profile::read_quantity(reference, model::kQuantities[model::kSmCount]).value;
    if (!name || name->as_string() != device_name || sms != double(sm_count)) {
        progress.note("--quiet-reference " + util::printable_lines(*file) + " describes another model (" +
                      (name ? name->as_string() : std::string("?")) + "); not used");
        return std::nullopt;
    }
    const auto* seconds = reference.at_path("conditions.reference_work_seconds");
    if (!seconds) {
        progress.note("--quiet-reference " + util::printable_lines(*file) + " records no reference work; not used");
        return std::nullopt;
    }
    if (const auto* quiet = reference.at_path("conditions.quiet"); !quiet || !quiet->is_bool() || !quiet->as_bool())
        throw UsageError("--quiet-reference " + *file + " was measured while the GPU was busy");
    return seconds->as_number();
}
#endif

void write_output(const std::optional<std::string>& target, const std::string& text) {
    if (target && *target != "-") return util::write_file_atomically(*target, text);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw std::runtime_error(std::string("cannot write to standard output: ") + std::strerror(errno));
}

util::OutputFiles outputs_for(const Args& args) {
    util::OutputFiles files;
    for (const auto& input : args.positional) files.read(input);
    for (const char* option : {"--quiet-reference", "--record"})
        if (const auto file = args.get(option)) files.read(*file);
    return files;
}

void refuse_clashing_outputs(const Args& args) {
    const auto output = args.get("--output");
    if (!output || *output == "-") return;
    auto files = outputs_for(args);
    files.write(*output, {});
    files.write(picture_beside(*output), {});
}

std::filesystem::path picture_beside(const std::filesystem::path& profile_file) {
    auto picture = profile_file;
    if (picture.extension() == ".json") return picture.replace_extension(".svg");
    return picture += ".svg";
}

}  // namespace gpu_topology::cli

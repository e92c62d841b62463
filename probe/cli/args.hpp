#pragma once
// The command line of gpu-topology-probe: its usage text, exit codes, the
// parsed arguments and the options several commands share. The commands
// themselves: profile_commands.cpp (no GPU needed) and device_commands.cpp.
#include "stages/progress.hpp"
#include "stages/stages.hpp"
#include "model/node.hpp"
#include "model/topology.hpp"
#include "util/atomic_file.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpu_topology::cli {

// Exit codes: 0 ok, 1 failure, 2 usage, 3 measured while the GPU was busy
// (the profile is written; what was disturbed is not vouched for), 77 no
// usable GPU (CTest's SKIP_RETURN_CODE, and CMake's no-GPU signal).
inline constexpr int kFailure = 1, kUsage = 2, kBusy = 3, kNoGpu = 77;

extern const char* const kUsageText;

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

// Parses argv against the commands' options; throws UsageError.
Args parse(int argc, char** argv);

// The longest --budget: a day, far beyond the minutes a full probe takes.
inline constexpr double kMaxBudgetSeconds = 86400;

// --device N (default 0); throws UsageError for anything else, or beside --all-devices.
int device_index(const Args& args);
// --all-devices measures a node: the options that name one device's files do not apply.
void check_all_devices_options(const Args& args);
stages::ProbeOptions probe_options(const Args& args);
// The reference work's quiet duration from --quiet-reference PROFILE, when
// that profile describes this model (name and SM count) and recorded it.
std::optional<double> quiet_reference(const Args& args, const std::string& device_name, int sm_count,
                                      stages::Progress& progress);

// `text` to FILE (atomically) or, for none or "-", to stdout; throws when
// stdout takes less than all of it (main checks the final flush too).
void write_output(const std::optional<std::string>& target, const std::string& text);
// The files a command writes (util::OutputFiles), knowing every file it
// reads (its arguments, --quiet-reference) or records into (--record), so no
// output replaces one of them and no two outputs are one file.
util::OutputFiles outputs_for(const Args& args);
// Before a probe or a replay starts: throws when its --output or the picture
// beside it would replace an input or each other, so the run is not wasted.
void refuse_clashing_outputs(const Args& args);
// Where the picture of a profile written to `profile_file` goes: beside it, .json replaced by .svg.
std::filesystem::path picture_beside(const std::filesystem::path& profile_file);

// Validates what the probe measured, writes it and its picture, and says how
// it went (the exit code: 0, kBusy, or kFailure for a profile the probe got
// wrong, or, with `replayed_log`, for one that engine log's answers made wrong).
int finish_probe(const model::Topology& topology, const Args& args, stages::Progress& progress,
                 const std::string& replayed_log = {});
int finish_node(const model::NodeTopology& node, const Args& args, stages::Progress& progress);

// The commands; each returns its exit code.
int cmd_svg(const Args& args);
int cmd_render(const Args& args);  // render and show
int cmd_validate(const Args& args);
int cmd_docs(const Args& args);
int cmd_compare(const Args& args);
int cmd_replay(const Args& args);
int cmd_identity(const Args& args);
int cmd_probe(const Args& args);
int cmd_check(const Args& args);

}  // namespace gpu_topology::cli

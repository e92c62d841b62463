// The commands that measure a GPU: identity, probe (one device or all),
// and check. Without CUDA they refuse with kNoGpu, after usage errors.
#include "args.hpp"

#include "profile/node_profile.hpp"
#include "profile/profile.hpp"
#include "version.hpp"

#if GPU_TOPOLOGY_WITH_CUDA
#include "measure/node_probe.hpp"
#include "stages/sweep_runner.hpp"
#include "kernels/cuda_engine.hpp"
#include "model/agreement.hpp"
#include "model/serialize.hpp"
#include "profile/remeasure.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpu_topology::cli {

#if GPU_TOPOLOGY_WITH_CUDA

namespace {

std::optional<kernels::DeviceFacts> lookup(int index) {
    const auto found = kernels::find_device(index);
    if (!found.found) {
        std::fprintf(stderr, "gpu-topology-probe: %s\n", found.reason.c_str());
        return std::nullopt;
    }
    return found.facts;
}

// Every device the CUDA runtime shows, in index order; empty when there is none.
std::vector<kernels::DeviceFacts> all_devices() {
    std::vector<kernels::DeviceFacts> devices;
    for (int index = 0;; ++index) {
        const auto found = kernels::find_device(index);
        if (!found.found) {
            if (devices.empty()) std::fprintf(stderr, "gpu-topology-probe: %s\n", found.reason.c_str());
            return devices;
        }
        devices.push_back(found.facts);
    }
}

util::Json identity_json(const kernels::DeviceFacts& facts) {
    util::Json j = util::Json::object();
    j["name"] = facts.name;
    j["uuid"] = facts.uuid;
    j["cc"] = std::to_string(facts.cc_major) + "." + std::to_string(facts.cc_minor);
    j["sm_count"] = facts.sm_count;
    j["driver"] = facts.driver_version;
    j["runtime"] = facts.runtime_version;
    j["probe_version"] = std::string(kProbeVersion);
    return j;
}

int cmd_probe_all(const Args& args) {
    check_all_devices_options(args);
    const auto options = probe_options(args);
    const auto devices = all_devices();
    if (devices.empty()) return kNoGpu;
    stages::Progress progress(!args.has("--quiet"));
    stages::NodeOptions node_options;
    node_options.nvml = !args.has("--no-nvml");
    node_options.show_progress = !args.has("--quiet");
    for (const auto& d : devices) {
        progress.note("probing device " + std::to_string(d.index) + ": " + d.name + " (" + d.uuid + ")");
        auto per_device = options;
        per_device.quiet_reference_seconds = quiet_reference(args, d.name, d.sm_count, progress);
        node_options.per_device.push_back(per_device);
    }
    return finish_node(stages::probe_node(devices, node_options), args, progress);
}

int check_device(const util::Json& expected, int index, bool identity_only) {
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
        return v.value ? util::format_number(*v.value) : std::string("?");
    };
    compare("device name", expected.at_path("device.name")->as_string(), facts->name);
    compare("compute capability", fact(model::kCcMajor) + "." + fact(model::kCcMinor),
            std::to_string(facts->cc_major) + "." + std::to_string(facts->cc_minor));
    compare("SM count", fact(model::kSmCount), std::to_string(facts->sm_count));
    if (failures) {
        std::printf("the profile describes another GPU than device %d\n", index);
        return kFailure;
    }
    const auto cards =
        expected.at_path("device.uuid")->as_string() == facts->uuid ? model::Cards::same : model::Cards::other_of_model;
    if (identity_only) return 0;
    if (cards == model::Cards::other_of_model)
        std::printf("note   the profile was measured on another card of this model (%s): its latencies and penalties "
                    "(cycles) are held to %g %%, as cards of one model differ\n",
                    expected.at_path("device.uuid")->as_string().c_str(), 100 * model::kLatencyBetweenCards);

    stages::Progress progress(false);
    const auto measured = model::to_json(stages::probe_device(*facts, {}, progress));
    for (const auto& row : profile::remeasure_rows(expected, measured, cards)) {
        if (!row.device) {
            std::printf("FAIL   %-40s profile %-24s device not measured (%s)\n", row.name.c_str(),
                        util::format_number(row.profile).c_str(), row.reason.c_str());
        } else {
            std::printf("%-6s %-40s profile %-24s device %s (tolerance %s)%s\n", row.ok ? "ok" : "FAIL",
                        row.name.c_str(), util::format_number(row.profile).c_str(),
                        util::format_number(std::round(*row.device)).c_str(),
                        util::format_number(std::round(row.tolerance)).c_str(),
                        row.doubt.empty() ? "" : (" [not vouched for: " + row.doubt + "]").c_str());
        }
        failures += !row.ok;
    }
    std::printf("%d mismatches\n", failures);
    return failures ? kFailure : 0;
}

}  // namespace

int cmd_identity(const Args& args) {
    if (args.has("--all-devices")) {
        (void)device_index(args);  // refuses --device beside it
        const auto devices = all_devices();
        if (devices.empty()) return kNoGpu;
        util::Json list = util::Json::array();
        for (const auto& d : devices) list.push_back(identity_json(d));
        std::fputs(list.dump(-1).c_str(), stdout);
        return 0;
    }
    const auto facts = lookup(device_index(args));
    if (!facts) return kNoGpu;
    std::fputs(identity_json(*facts).dump(-1).c_str(), stdout);
    return 0;
}

int cmd_probe(const Args& args) {
    refuse_clashing_outputs(args);
    if (args.has("--all-devices")) return cmd_probe_all(args);
    auto options = probe_options(args);
    const int index = device_index(args);
    const auto facts = lookup(index);
    if (!facts) return kNoGpu;
    stages::Progress progress(!args.has("--quiet"));
    progress.note("probing device " + std::to_string(facts->index) + ": " + facts->name + " (" + facts->uuid + ")");
    options.quiet_reference_seconds = quiet_reference(args, facts->name, facts->sm_count, progress);
    return finish_probe(stages::probe_device(*facts, options, progress, args.get("--record"), !args.has("--no-nvml")),
                        args, progress);
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

#else

namespace {

int no_cuda(const Args&) {
    std::fprintf(stderr, "gpu-topology-probe: built without CUDA; it cannot measure (render, show, validate, "
                         "replay and docs work)\n");
    return kNoGpu;
}

}  // namespace

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
#endif

}  // namespace gpu_topology::cli

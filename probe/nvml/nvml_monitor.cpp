#include "nvml_monitor.hpp"

#include "nvml_library.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include <unistd.h>

namespace gpu_topology::stages {
namespace {

using NvmlReturn = nvml::Return;
using NvmlDevice = nvml::Device;
using nvml::Library;
constexpr NvmlReturn kNvmlSuccess = nvml::kSuccess;
constexpr NvmlReturn kNvmlInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
struct NvmlProcessInfo {  // nvmlProcessInfo_t (v2 and v3 calls): 24 bytes
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};
struct NvmlUtilizationSample {  // nvmlProcessUtilizationSample_t
    unsigned int pid;
    unsigned long long time_stamp;
    unsigned int sm_util, mem_util, enc_util, dec_util;
};

class NvmlMonitor final : public Monitor {
public:
    NvmlMonitor(std::unique_ptr<Library> library, NvmlDevice device, std::string uuid)
        : library_(std::move(library)), device_(device), uuid_(std::move(uuid)) {}
    ~NvmlMonitor() override {
        if (auto shutdown = library_->get<NvmlReturn (*)()>("nvmlShutdown")) shutdown();
    }
    std::string description() const override {
        return "nvml (compute processes on " + uuid_ + ")" + (blind_.empty() ? "" : ", which " + blind_);
    }
    std::vector<std::string> disturbances() override;

private:
    std::unique_ptr<Library> library_;
    NvmlDevice device_;
    std::string uuid_;
    unsigned long long last_sample_ = 0;
    std::string blind_;  // non-empty: a look NVML could not answer, and why
};

std::vector<std::string> NvmlMonitor::disturbances() {
    using GetProcesses = NvmlReturn (*)(NvmlDevice, unsigned int*, NvmlProcessInfo*);
    auto get = library_->get<GetProcesses>("nvmlDeviceGetComputeRunningProcesses_v3");
    if (!get) get = library_->get<GetProcesses>("nvmlDeviceGetComputeRunningProcesses_v2");
    std::vector<std::string> seen;
    if (!get) return seen;
    std::vector<NvmlProcessInfo> processes(64);
    auto count = static_cast<unsigned int>(processes.size());
    NvmlReturn status = get(device_, &count, processes.data());
    if (status == kNvmlInsufficientSize) {  // more processes than room: `count` says how many
        processes.resize(count + 16);
        count = static_cast<unsigned int>(processes.size());
        status = get(device_, &count, processes.data());
    }
    if (status != kNvmlSuccess) {  // blind, not quiet: the profile's conditions.monitor says so
        blind_ = "could not list them at some look (NVML error " + std::to_string(status) + ")";
        return seen;
    }
    const auto self = static_cast<unsigned int>(::getpid());
    std::set<unsigned int> others;
    for (unsigned i = 0; i < std::min<unsigned>(count, processes.size()); ++i)
        if (processes[i].pid != self) others.insert(processes[i].pid);
    if (others.empty()) return seen;

    // Their SM utilisation since the last look, where NVML reports it.
    std::vector<unsigned> busy_pct(0);
    using GetUtilization = NvmlReturn (*)(NvmlDevice, NvmlUtilizationSample*, unsigned int*, unsigned long long);
    if (auto utilization = library_->get<GetUtilization>("nvmlDeviceGetProcessUtilization")) {
        std::vector<NvmlUtilizationSample> samples(256);
        auto n = static_cast<unsigned int>(samples.size());
        if (utilization(device_, samples.data(), &n, last_sample_) == kNvmlSuccess)
            for (unsigned i = 0; i < std::min<unsigned>(n, samples.size()); ++i) {
                last_sample_ = std::max(last_sample_, samples[i].time_stamp);
                if (others.count(samples[i].pid) && samples[i].sm_util > 0) busy_pct.push_back(samples[i].sm_util);
            }
    }
    std::string pids;
    for (auto pid : others) pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
    std::string text = std::to_string(others.size()) + " other process" + (others.size() > 1 ? "es" : "") +
                       " with a compute context on the GPU (pid " + pids + ")";
    if (!busy_pct.empty())
        text += ", using up to " + std::to_string(*std::max_element(busy_pct.begin(), busy_pct.end())) + "% of the SMs";
    seen.push_back(text);
    return seen;
}

}  // namespace

std::unique_ptr<Monitor> make_nvml_monitor(const std::string& uuid) {
    auto library = std::make_unique<Library>();
    if (!*library) return std::make_unique<BlindMonitor>("libnvidia-ml.so.1 could not be loaded");
    const auto init = library->get<NvmlReturn (*)()>("nvmlInit_v2");
    const auto by_uuid = library->get<NvmlReturn (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByUUID");
    if (!init || !by_uuid) return std::make_unique<BlindMonitor>("libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByUUID");
    if (init() != kNvmlSuccess) return std::make_unique<BlindMonitor>("nvmlInit_v2 failed");
    NvmlDevice device = nullptr;
    if (by_uuid(uuid.c_str(), &device) != kNvmlSuccess) {
        if (auto shutdown = library->get<NvmlReturn (*)()>("nvmlShutdown")) shutdown();
        return std::make_unique<BlindMonitor>("NVML does not know " + uuid);
    }
    return std::make_unique<NvmlMonitor>(std::move(library), device, uuid);
}

}  // namespace gpu_topology::stages

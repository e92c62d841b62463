#pragma once
// The whole probe on a described GPU: the same stages, analysis and
// validation as on a device, on the simulated engine, watched by a simulated
// process monitor (what NVML would list) and the reference work.
#include "architecture.hpp"
#include "engine.hpp"
#include "expected.hpp"

#include "model/topology.hpp"
#include "stages/monitor.hpp"
#include "stages/progress.hpp"
#include "stages/stages.hpp"

#include <string>
#include <vector>

namespace gpu_topology::simulate {

// Sees the other workload of a --busy run while it runs, as NVML's list of
// compute processes sees another process.
class SimulatedProcessMonitor final : public stages::Monitor {
public:
    explicit SimulatedProcessMonitor(SimulatedEngine& engine) : engine_(engine) {}
    std::string description() const override { return "simulated compute processes (what NVML lists)"; }
    std::vector<std::string> disturbances() override {
        if (!engine_.other_work_seen()) return {};
        return {"another compute process (simulated) shares the GPU"};
    }

private:
    SimulatedEngine& engine_;
};

// "simulated:<file name of the description>".
std::string simulated_source(const Architecture& arch);

// Probes the simulated device. The topology's source says it is simulated.
model::Topology simulate_probe(const Architecture& arch, const RunOptions& run, const stages::ProbeOptions& options,
                               stages::Progress& progress);

// The docs table of simulated architectures: architecture x quantity,
// described, recovered, verdict; one section per description, in the order given.
struct TableEntry {
    std::string file;  // the description's file name
    const Architecture* arch;
    std::vector<Judged> judged;
};
std::string verdict_table(const std::vector<TableEntry>& entries);

}  // namespace gpu_topology::simulate

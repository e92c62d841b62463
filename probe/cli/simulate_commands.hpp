#pragma once
// The commands that run the probe on a described GPU (simulate_commands.cpp).
#include "args.hpp"

namespace gpu_topology::cli {

// simulate --arch FILE [--seed N] [--busy] [--output FILE|-] [--level quick|full] [--quiet]
int cmd_simulate(const Args& args);
// simulate-compare PROFILE --arch FILE: the profile against what the description implies.
int cmd_simulate_compare(const Args& args);
// simulate-table DIR [--output FILE] [--seed N]: every description of DIR, simulated and judged.
int cmd_simulate_table(const Args& args);

}  // namespace gpu_topology::cli

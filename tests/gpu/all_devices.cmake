# `probe --all-devices` on a node of two or more GPUs: one node profile that
# lists every device `identity --all-devices` reports (same UUIDs, in order),
# a link for every ordered pair, every link between peers that can access each
# other measured; `check --all-devices` re-measures each device against it;
# the header it renders compiles and finds each link. Skipped
# (GPU_TOPOLOGY_SKIPPED) with fewer than two devices.
#   cmake -DPROBE=... -DWORK_DIR=... -DCXX=... -DINCLUDE_DIR=... -P all_devices.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${PROBE}" identity --all-devices RESULT_VARIABLE rc OUTPUT_VARIABLE identities ERROR_VARIABLE why)
if(rc EQUAL 77)
  message("GPU_TOPOLOGY_SKIPPED: ${why}")
  return()
endif()
string(JSON count LENGTH "${identities}")
if(count LESS 2)
  message("GPU_TOPOLOGY_SKIPPED: ${count} CUDA device(s); this test needs two")
  return()
endif()
execute_process(COMMAND "${PROBE}" probe --all-devices --output "${WORK_DIR}/node.json" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "probe --all-devices failed (${rc})")
endif()
file(READ "${WORK_DIR}/node.json" node)
string(JSON devices LENGTH "${node}" devices)
string(JSON links LENGTH "${node}" links)
math(EXPR pairs "${count} * (${count} - 1)")
if(NOT devices EQUAL count OR NOT links EQUAL pairs)
  message(FATAL_ERROR "the node profile lists ${devices} devices and ${links} links; expected ${count} and ${pairs}")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON want GET "${identities}" ${i} uuid)
  string(JSON got GET "${node}" devices ${i} device uuid)
  if(NOT want STREQUAL got)
    message(FATAL_ERROR "device ${i} of the node profile is ${got}; identity --all-devices says ${want}")
  endif()
endforeach()
math(EXPR last_link "${links} - 1")
foreach(i RANGE ${last_link})
  string(JSON peer GET "${node}" links ${i} route peer_access)
  if(NOT peer)
    continue()
  endif()
  foreach(member ce_read_bytes_per_s ce_write_bytes_per_s sm_read_bytes_per_s sm_write_bytes_per_s load_latency_ns
                 load_latency_cycles)
    string(JSON value GET "${node}" links ${i} ${member} value)
    if(value STREQUAL "null" OR value STREQUAL "")
      string(JSON reason GET "${node}" links ${i} ${member} reason)
      message(FATAL_ERROR "link ${i}: peers that can access each other, but ${member} is unmeasured: ${reason}")
    endif()
  endforeach()
endforeach()
execute_process(COMMAND "${PROBE}" check "${WORK_DIR}/node.json" --all-devices RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check --all-devices failed (${rc})")
endif()
execute_process(COMMAND "${PROBE}" render "${WORK_DIR}/node.json" --header "${WORK_DIR}/gpu_topology.hpp"
                RESULT_VARIABLE rc ERROR_VARIABLE why)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "render of the node profile failed (${rc}): ${why}")
endif()
file(WRITE "${WORK_DIR}/use.cpp" [=[
#include "gpu_topology.hpp"
static_assert(gpu_topology::node::device_count >= 2, "a node profile of two or more devices");
static_assert(gpu_topology::node::find_link(0, 1) != nullptr, "the link from device 0 to device 1");
static_assert(gpu_topology::node::find_link(1, 0) != nullptr, "the link from device 1 to device 0");
static_assert(gpu_topology::node::find_link(0, 0) == nullptr, "no link from a device to itself");
// Peers: the SM read bandwidth is known; not peers: it is unknown, with its reason.
int main() {
    const auto* l = gpu_topology::node::find_link(0, 1);
    return (l->peer_access ? l->sm_read_bytes_per_s.value_or(0) > 0 : !l->sm_read_bytes_per_s.known) ? 0 : 1;
}
]=])
execute_process(COMMAND "${CXX}" -std=c++17 -I "${WORK_DIR}" -I "${INCLUDE_DIR}" "${WORK_DIR}/use.cpp" -o "${WORK_DIR}/use"
                RESULT_VARIABLE rc ERROR_VARIABLE why)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the node header does not compile: ${why}")
endif()
execute_process(COMMAND "${WORK_DIR}/use" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the node header's link 0 -> 1 disagrees with its peer access about the SM read bandwidth")
endif()

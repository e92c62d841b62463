# DEVICES ALL with a stand-in probe: a node of one model configures (what differs
# is withheld), one of two models stops the configure; wrong DEVICES values stop it;
# without a GPU it falls back to the stored profile
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(node "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200-x2-node.json")
set(ENV{FAKE_NODE_PROFILE} "${node}")
set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
# One model: one set of facts, the values that differ withheld, the node in the header. The stored
# node's devices agree within what two cards of one model may differ by; here device 1's near L2 is
# 8 MiB larger than device 0's (a size is held to 4 % between cards).
file(READ "${node}" json)
string(JSON near GET "${json}" devices 0 caches l2 near_size_bytes value)
math(EXPR near "${near} + 8388608")
string(JSON json SET "${json}" devices 1 caches l2 near_size_bytes value "${near}")
file(WRITE "${WORK}/differ.json" "${json}")
set(ENV{FAKE_NODE_PROFILE} "${WORK}/differ.json")
configure(ok "${example}" "${WORK}/alike" ${measure} -DGPU_TOPOLOGY_DEVICE=ALL)
expect_in("${output}" "probing NVIDIA H200 (2 devices)" "node of 2 devices (each device and link: --log-level=VERBOSE)")
expect_not_in("${output}" "link 0 -> 1")
run(ok "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/alike" -DGPU_TOPOLOGY_REPROBE=ON)
expect_in("${output}" "node: 2 devices" "link 0 -> 1: nvswitch x18" "differs between the node's devices")
file(READ "${WORK}/alike/gpu_topology/minimal/gpu_topology.hpp" header)
expect_in("${header}" "inline constexpr int device_count = 2;" "GPU_TOPOLOGY_L2_NEAR_SIZE_BYTES_UNMEASURED")
run(ok "${CMAKE_COMMAND}" --build "${WORK}/alike")
# Two models: no common facts; the configure names the difference and asks for DEVICE.
file(READ "${node}" json)
file(READ "${PACKAGE_SOURCE}/generated/profiles/nvidia-h100.json" h100)
string(JSON h100 SET "${h100}" device index 1)
string(JSON json SET "${json}" devices 1 "${h100}")
file(WRITE "${WORK}/two-models.json" "${json}")
set(ENV{FAKE_NODE_PROFILE} "${WORK}/two-models.json")
run(fail "${CMAKE_COMMAND}" "${WORK}/alike" -DGPU_TOPOLOGY_REPROBE=ON)
expect_in("${output}" "not one model" "device 1: model NVIDIA H100 80GB HBM3, device 0: NVIDIA H200"
          "DEVICE <index>")
# DEVICES takes ALL only, and not beside DEVICE.
write_project("${WORK}/args" "add_library(lib INTERFACE)\nif(BOTH)\n  set(extra DEVICE 0)\nendif()\ngpu_topology_generate(TARGET lib DEVICES \${WHICH} \${extra})\n")
configure(fail "${WORK}/args" "${WORK}/args-some" ${stored_arg} -DWHICH=some)
expect_in("${output}" "DEVICES 'some' is not ALL")
run(fail "${CMAKE_COMMAND}" "${WORK}/args-some" -DWHICH=ALL -DBOTH=ON)
expect_in("${output}" "give DEVICE (one device) or DEVICES ALL (every device), not both")
# The tests of a DEVICES ALL target check every device: DEVICE n is refused, not ignored.
write_project("${WORK}/tests" "enable_testing()\nadd_library(lib INTERFACE)\ngpu_topology_generate(TARGET lib DEVICES ALL)\ngpu_topology_add_tests(DEVICE 1)\n")
configure(fail "${WORK}/tests" "${WORK}/tests-build" ${stored_arg})
expect_in("${output}" "its tests check every device, so DEVICE 1 does not apply")
# No GPU: the stored profile, with the usual warning, describes a node of one device.
set(ENV{FAKE_MODE} nogpu)
run(ok "${CMAKE_COMMAND}" "${WORK}/alike" -DGPU_TOPOLOGY_REPROBE=OFF)
expect_in("${output}" "describes the GPU of the stored profile")
file(READ "${WORK}/alike/gpu_topology/minimal/gpu_topology.hpp" header)
expect_in("${header}" "inline constexpr int device_count = 1;")

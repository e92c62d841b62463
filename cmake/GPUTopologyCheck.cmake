# The GPU tests of gpu_topology_add_tests(), run by CTest:
#   cmake -DMODE=identity|remeasure -DPROFILE=... -DDEVICE=... [-DPROBE=...]
#         -DGPU_TOPOLOGY_PACKAGE_DIR=... -DGPU_TOPOLOGY_BUILD_ROOT=... <toolchain> -P GPUTopologyCheck.cmake
# identity: the runner's GPU is the model the profile describes (name, compute
# capability, SMs); remeasure: a fresh measurement agrees with the profile.
# Without a GPU it prints GPU_TOPOLOGY_SKIPPED (CTest reports the test skipped).
# Without PROBE it builds one that measures in the consumer's build tree first.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/GPUTopologyProbe.cmake")
set_property(GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}")

if(NOT PROBE)
  set(GPU_TOPOLOGY_PROBE_EXECUTABLE "")
  _gpu_topology_gpus_here(no_gpu architectures)
  if(NOT no_gpu STREQUAL "")
    message("GPU_TOPOLOGY_SKIPPED: ${no_gpu}")
    return()
  endif()
  _gpu_topology_build_probe(measure PROBE ARCHITECTURES ${architectures})
endif()
set(extra "")
if(MODE STREQUAL "identity")
  set(extra --identity-only)
endif()
# A node profile (DEVICES ALL) is checked device by device; a single profile against DEVICE
# (a DEVICES ALL call that fell back to a stored single profile: device 0).
if(NOT EXISTS "${PROFILE}")
  message(FATAL_ERROR "GPUTopology: ${MODE}: the profile ${PROFILE} is gone; configure again")
endif()
file(READ "${PROFILE}" text)
string(JSON schema ERROR_VARIABLE not_json GET "${text}" schema)
if(schema MATCHES "^gpu-topology-node/")
  list(APPEND extra --all-devices)
elseif(DEVICE MATCHES "^[0-9]+$")
  list(APPEND extra --device "${DEVICE}")
elseif(NOT DEVICE STREQUAL "ALL")
  message(FATAL_ERROR "GPUTopology: ${MODE}: DEVICE '${DEVICE}' is not a device index")
endif()
execute_process(COMMAND "${PROBE}" check "${PROFILE}" ${extra} RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message("GPU_TOPOLOGY_SKIPPED: no usable GPU (device ${DEVICE})")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "GPUTopology: ${MODE}: the GPU here does not match ${PROFILE} (its report is above)")
endif()

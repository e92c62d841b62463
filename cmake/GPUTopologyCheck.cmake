# The GPU tests of gpu_topology_add_tests(), run by CTest:
#   cmake -DMODE=identity|remeasure -DPROFILE=... -DDEVICE=... [-DASSIGNED=ON] [-DPROBE=...]
#         -DGPU_TOPOLOGY_PACKAGE_DIR=... -DGPU_TOPOLOGY_BUILD_ROOT=... <toolchain> -P GPUTopologyCheck.cmake
# identity: the runner's GPU is the model the profile describes (name, compute
# capability, SMs); remeasure: a fresh measurement agrees with the profile.
# DEVICE: an index, or ALL for every device of a node profile. ASSIGNED: check the GPU
# CTest handed the test (CTEST_RESOURCE_GROUP_0_GPUS, from the resource spec file),
# against the node profile's entry for it; device DEVICE when CTest handed none.
# Without a GPU it prints GPU_TOPOLOGY_SKIPPED (CTest reports the test skipped).
# Without PROBE it builds one that measures in the consumer's build tree first.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/GPUTopologyProbe.cmake")
set_property(GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}")

if(NOT PROBE)
  set(GPU_TOPOLOGY_PROBE_EXECUTABLE "")
  _gpu_topology_gpus_here(PREFIX here)
  if(NOT here_NO_GPU STREQUAL "")
    message("GPU_TOPOLOGY_SKIPPED: ${here_NO_GPU}")
    return()
  endif()
  _gpu_topology_build_probe(KIND measure RESULT PROBE ARCHITECTURES ${here_ARCHITECTURES})
endif()
if(NOT EXISTS "${PROFILE}")
  message(FATAL_ERROR "GPUTopology: ${MODE}: the profile ${PROFILE} is gone; configure again")
endif()
file(READ "${PROFILE}" text)
string(JSON schema ERROR_VARIABLE not_json GET "${text}" schema)
set(expected "${PROFILE}")
if(ASSIGNED)
  # The GPU CTest handed this test; device DEVICE when it handed none (no resource spec file).
  set(device "${DEVICE}")
  set(how "device ${DEVICE}: CTest handed this test no GPU (no resource spec file in use)")
  if("$ENV{CTEST_RESOURCE_GROUP_COUNT}" MATCHES "^[1-9][0-9]*$")
    set(given "$ENV{CTEST_RESOURCE_GROUP_0_GPUS}")
    if(NOT given MATCHES "^id:([0-9]+),")
      message(FATAL_ERROR "GPUTopology: ${MODE}.${DEVICE}: CTEST_RESOURCE_GROUP_0_GPUS is '${given}', not a GPU "
                          "of the resource spec file (id:<CUDA device index>,slots:<n>)")
    endif()
    set(device "${CMAKE_MATCH_1}")
    set(how "device ${device}, the GPU CTest handed this test (CTEST_RESOURCE_GROUP_0_GPUS=${given})")
  endif()
  message("GPUTopology: ${MODE}.${DEVICE} checks CUDA ${how}")
  if(schema MATCHES "^gpu-topology-node/")
    # The node's entry for that device, as a profile of its own.
    string(JSON count LENGTH "${text}" devices)
    math(EXPR last "${count} - 1")
    set(listed "")
    foreach(i RANGE ${last})
      string(JSON index GET "${text}" devices ${i} device index)
      list(APPEND listed "${index}")
      if(index EQUAL device)
        string(JSON entry GET "${text}" devices ${i})
        set(expected "${GPU_TOPOLOGY_BUILD_ROOT}/_gpu_topology/check-${MODE}-${DEVICE}.json")
        file(WRITE "${expected}" "${entry}")
      endif()
    endforeach()
    if(expected STREQUAL PROFILE)
      string(REPLACE ";" ", " listed "${listed}")
      message(FATAL_ERROR "GPUTopology: ${MODE}.${DEVICE}: the node profile ${PROFILE} has no device ${device} "
                          "(it has ${listed}): the resource spec file and the profile describe different machines; "
                          "configure again")
    endif()
  endif()
  set(DEVICE "${device}")
endif()
# A node profile and DEVICE ALL: every device, one after the other; a single profile against
# DEVICE (a DEVICES ALL call that fell back to a stored single profile: device 0).
set(extra "")
if(MODE STREQUAL "identity")
  set(extra --identity-only)
endif()
if(DEVICE STREQUAL "ALL")
  if(schema MATCHES "^gpu-topology-node/")
    list(APPEND extra --all-devices)
  endif()
elseif(DEVICE MATCHES "^[0-9]+$")
  list(APPEND extra --device "${DEVICE}")
else()
  message(FATAL_ERROR "GPUTopology: ${MODE}: DEVICE '${DEVICE}' is not a device index")
endif()
execute_process(COMMAND "${PROBE}" check "${expected}" ${extra} RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message("GPU_TOPOLOGY_SKIPPED: no usable GPU (device ${DEVICE})")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "GPUTopology: ${MODE}: the GPU here does not match ${expected} (its report is above)")
endif()

# The user's cache of measurements: a GPU measured in one build tree is not measured again
# by another project (here through the installed package), which gets the same header; a
# new driver, GPU_TOPOLOGY_REPROBE, a busy GPU, no nvidia-smi, the cache turned off or moved;
# two configures that fill one entry at once measure once. Two fresh trees; every other
# step re-configures one of them without its own measurement, so that it asks the cache.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
fake_nvidia_smi("${WORK}")
fake_measures_this_gpu("${WORK}/this-gpu.json")
set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
set(cache "${WORK}/cache/gpu-topology")

# The entries of the cache, and how many probes ran.
function(cache_holds count)
  file(GLOB entries "${cache}/profiles/*.json")
  list(LENGTH entries found)
  if(NOT found EQUAL count)
    message(FATAL_ERROR "the cache holds ${found} measurements, not ${count}: ${entries}")
  endif()
  set(entries "${entries}" PARENT_SCOPE)
endfunction()
function(probes_ran count)
  file(STRINGS "${WORK}/probe.log" starts REGEX "^start ")
  list(LENGTH starts ran)
  if(NOT ran EQUAL count)
    message(FATAL_ERROR "${ran} probe runs, not ${count}")
  endif()
endfunction()

# Measured once, in a tree of examples/minimal (add_subdirectory), under a umask that lets every
# user write (as where a CI runner restores caches): kept in the user's own directory, the user's alone.
run(ok sh -c "umask 0000 && exec \"$@\"" sh "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/first" -G "${GENERATOR}"
    -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} ${measure})
expect_in("${output}" "probing NVIDIA H200 (device 0, GPU-fake-0000)")
cache_holds(1)
execute_process(COMMAND stat -c %a "${cache}" "${entries}" "${entries}.sha256" OUTPUT_VARIABLE modes)
string(REPLACE "\n" " " modes "${modes}")
if(NOT modes STREQUAL "700 600 600 ")
  message(FATAL_ERROR "the cache directory, its measurement and its hash have modes ${modes}, not 700 600 600")
endif()
# Another project, through the installed package, on a machine whose GPU is cached: no
# probe run, one line that says so, and the header of the measurement, byte for byte.
run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
file(WRITE "${WORK}/other/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\nproject(other LANGUAGES CXX)\n"
     "find_package(GPUTopology 1 REQUIRED)\nadd_executable(other \"${example}/main.cpp\")\n"
     "gpu_topology_generate(TARGET other)\n")
run(ok "${CMAKE_COMMAND}" -S "${WORK}/other" -B "${WORK}/other-build" -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${WORK}/prefix
    ${measure})
expect_in("${output}" "NVIDIA H200: measured before on this machine (${entries};")
expect_not_in("${output}" "probing" "not using")
expect_our_lines("${stdout}" 8 "a new tree of a cached GPU")
probes_ran(1)
file(SHA256 "${WORK}/first/gpu_topology/minimal/gpu_topology.hpp" measured)
file(SHA256 "${WORK}/other-build/gpu_topology/other/gpu_topology.hpp" reused)
if(NOT measured STREQUAL reused)
  message(FATAL_ERROR "the header from the cache differs from the header of the measurement")
endif()
# GPU_TOPOLOGY_REPROBE measures again, and the cache keeps the new measurement.
derive_profile("${WORK}/this-gpu.json" device.uuid "\"GPU-fake-0000\"" probe.duration_s 4.25)
run(ok "${CMAKE_COMMAND}" "${WORK}/first" -DGPU_TOPOLOGY_REPROBE=ON)
expect_in("${output}" "probing")
cache_holds(1)
file(READ "${entries}" kept)
string(JSON took GET "${kept}" probe duration_s)
if(NOT took STREQUAL "4.25")
  message(FATAL_ERROR "GPU_TOPOLOGY_REPROBE measured, but the cache kept the earlier measurement (${took} s)")
endif()
# A measurement of a busy GPU is not kept: the entry stays the quiet one.
derive_profile("${WORK}/busy.json" device.uuid "\"GPU-fake-0000\"" conditions.quiet false)
set(ENV{FAKE_PROFILE} "${WORK}/busy.json")
set(ENV{FAKE_MODE} busy)
run(ok "${CMAKE_COMMAND}" "${WORK}/first")
expect_in("${output}" "other work ran on NVIDIA H200")
set(ENV{FAKE_MODE} "")
set(ENV{FAKE_PROFILE} "${WORK}/this-gpu.json")
file(READ "${entries}" after_busy)
if(NOT after_busy STREQUAL kept)
  message(FATAL_ERROR "the cache kept a measurement of a busy GPU")
endif()
# A new driver measures again (another entry).
set(ENV{FAKE_DRIVER} 590.10.01)
reconfigure_unmeasured(${WORK}/other-build)
expect_in("${output}" "probing")
cache_holds(2)
file(GLOB own "${WORK}/other-build/_gpu_topology/profile-*.json")
string(REGEX REPLACE ".*/profile-" "${cache}/profiles/" entry "${own}")
# Without nvidia-smi's word on the GPU's settings the cache is not asked, and says so with --log-level=VERBOSE.
reconfigure_unmeasured(${WORK}/other-build --log-level=VERBOSE -DGPU_TOPOLOGY_NVIDIA_SMI=${WORK}/no-nvidia-smi)
expect_in("${output}" "the cache is not used for device 0, GPU-fake-0000: ${WORK}/no-nvidia-smi --query-gpu=" "probing")
cache_holds(2)
# Turned off (the environment variable; the cache variable: cmake.probe_cache): neither read
# nor written. The entry is one the cache would take (a whole one, with its hash).
string(JSON marked SET "${kept}" probe duration_s 9.75)
file(WRITE "${entry}" "${marked}")
string(SHA256 marked_hash "${marked}")
file(WRITE "${entry}.sha256" "${marked_hash}\n")
set(ENV{GPU_TOPOLOGY_CACHE} off)
reconfigure_unmeasured(${WORK}/other-build -DGPU_TOPOLOGY_NVIDIA_SMI=${WORK}/nvidia-smi)
unset(ENV{GPU_TOPOLOGY_CACHE})
expect_in("${output}" "probing")
file(READ "${entry}" after_off)
if(NOT after_off STREQUAL marked)
  message(FATAL_ERROR "GPU_TOPOLOGY_CACHE=off wrote to the cache")
endif()
# Turned on again, the cache gives that entry.
reconfigure_unmeasured(${WORK}/other-build)
expect_in("${output}" "measured before on this machine (${entry};")
expect_not_in("${output}" "probing")
# Two configures that fill one entry at once: one measures, the other waits for it and takes it.
# In a cache elsewhere (GPU_TOPOLOGY_CACHE_DIR, as CI keeps it between jobs), made the user's own.
set(ENV{GPU_TOPOLOGY_CACHE_DIR} "${WORK}/ci-cache")
set(cache "${WORK}/ci-cache")
foreach(tree first other-build)
  file(GLOB own "${WORK}/${tree}/_gpu_topology/profile-*")
  file(REMOVE ${own})
endforeach()
file(REMOVE "${WORK}/probe.log")
set(ENV{FAKE_SECONDS} 1)
file(WRITE "${WORK}/both.sh" "\"$1\" \"$2\" -DGPU_TOPOLOGY_REPROBE=OFF > \"$2.log\" 2>&1 &\nfirst=$!\n"
                             "\"$1\" \"$3\" > \"$3.log\" 2>&1\nsecond=$?\nwait $first && exit $second\n")
execute_process(COMMAND sh "${WORK}/both.sh" "${CMAKE_COMMAND}" "${WORK}/first" "${WORK}/other-build" RESULT_VARIABLE rc)
file(READ "${WORK}/first.log" output)
file(READ "${WORK}/other-build.log" other_log)
string(APPEND output "\n${other_log}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "two configures at once failed (${rc}):\n${output}")
endif()
probes_ran(1)
expect_in("${output}" "probing" "measured before on this machine")
cache_holds(1)
file(GLOB left "${cache}/profiles/*.partial")
if(left)
  message(FATAL_ERROR "a configure left a partial entry: ${left}")
endif()

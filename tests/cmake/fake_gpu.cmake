# The measuring path with a stand-in probe: cache, corrupt cache, busy GPU, failures, and
# the per-GPU lock between configures, kept per user. Two build trees, each configured
# afresh once; every other step re-configures one of them.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
# The lock of another user in a shared /tmp: a file this user cannot open for writing
# (here a directory in its place, which even root cannot). Probes lock per user instead.
file(MAKE_DIRECTORY "${WORK}/tmp/gpu-topology-GPU_fake_0000.lock")
set(ENV{TMPDIR} "${WORK}/tmp")
# Measured once, then reused from the build tree's cache; REPROBE measures again.
configure(ok "${example}" "${WORK}/consumer" ${measure})
expect_in("${output}" "probing NVIDIA H200 (device 0, GPU-fake-0000)" "GPUTopology: NVIDIA H200")
expect_not_in("${output}" "stored profile")
if(NOT EXISTS "${WORK}/cache/gpu-topology/GPU_fake_0000.lock")
  message(FATAL_ERROR "the GPU's lock is not in the user's own directory (XDG_CACHE_HOME/gpu-topology)")
endif()
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
expect_in("${output}" "NVIDIA H200: this build tree's measurement")
expect_not_in("${output}" "probing")
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=ON)
expect_in("${output}" "probing NVIDIA H200")
# A corrupt cached profile is measured again, and the configure says so.
file(GLOB cached "${WORK}/consumer/_gpu_topology/profile-*.json")
file(WRITE "${cached}" "{\"schema\": \"gpu-topology/2\", \"trunc")
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=OFF)
expect_in("${output}" "the cached profile is corrupt, so the GPU is measured again" "probing NVIDIA H200")
# Locks that cannot be kept where they belong: a warning, and the build tree keeps them.
set(ENV{XDG_CACHE_HOME} "${WORK}/cache-is-a-file")
file(WRITE "${WORK}/cache-is-a-file" "")
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
expect_in("${output}" "${WORK}/cache-is-a-file/gpu-topology is not used (it cannot be made): the GPU locks are kept in this build tree")
if(NOT EXISTS "${WORK}/consumer/_gpu_topology/GPU_fake_0000.lock")
  message(FATAL_ERROR "without a lock directory the build tree does not keep the lock")
endif()
set(ENV{XDG_CACHE_HOME} "${WORK}/cache")
# A busy GPU: a warning that names what is not vouched for, nothing cached; or, asked for, an error.
set(ENV{FAKE_MODE} busy)
configure(ok "${example}" "${WORK}/busy" ${measure})
expect_in("${output}" "CMake Warning" "other work ran on NVIDIA H200 while it was probed")
# A stored profile measured while busy warns too, though no probe ran.
derive_profile("${WORK}/busy-stored.json" conditions.quiet false)
run(ok "${CMAKE_COMMAND}" "${WORK}/busy" ${real_probe} -DGPU_TOPOLOGY_PROFILE=${WORK}/busy-stored.json)
expect_in("${output}" "CMake Warning" "other work ran on NVIDIA H200 while it was probed")
expect_not_in("${output}" "The next configure measures again")
file(GLOB cached "${WORK}/busy/_gpu_topology/profile-*.json")
if(cached)
  message(FATAL_ERROR "a profile measured on a busy GPU was cached: ${cached}")
endif()
run(fail "${CMAKE_COMMAND}" "${WORK}/busy" ${measure} -DGPU_TOPOLOGY_PROFILE= -DGPU_TOPOLOGY_ON_BUSY_GPU=error)
expect_in("${output}" "GPU_TOPOLOGY_ON_BUSY_GPU=error stops the configure")
# A probe that fails stops the configure, shows what it printed and caches nothing; a GPU that
# cannot be probed is an error.
set(ENV{FAKE_MODE} fail)
run(fail "${CMAKE_COMMAND}" "${WORK}/busy" -DGPU_TOPOLOGY_ON_BUSY_GPU=warn)
expect_in("${output}" "the probe failed (1)" "Nothing was cached" "stage l1: fake progress line"
          "gpu-topology-probe: fake failure")
set(ENV{FAKE_MODE} broken)
run(fail "${CMAKE_COMMAND}" "${WORK}/busy")
expect_in("${output}" "a GPU is present, but device 0 cannot be probed")
# Two configures at once never probe one GPU at the same time.
set(ENV{FAKE_MODE} "")
set(ENV{FAKE_SECONDS} 1)
file(REMOVE "${WORK}/probe.log")
# Two build trees of one machine, each measuring: the second configure's probe waits for the first's.
file(WRITE "${WORK}/trees.sh" "\"$1\" \"$2\" -DGPU_TOPOLOGY_REPROBE=ON > \"$2.log\" 2>&1 &\nfirst=$!\n"
                              "\"$1\" \"$3\" -DGPU_TOPOLOGY_REPROBE=ON > \"$3.log\" 2>&1\nsecond=$?\n"
                              "wait $first && exit $second\n")
execute_process(COMMAND sh "${WORK}/trees.sh" "${CMAKE_COMMAND}" "${WORK}/consumer" "${WORK}/busy" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(READ "${WORK}/consumer.log" one)
  file(READ "${WORK}/busy.log" two)
  message(FATAL_ERROR "two configures at once failed (${rc}):\n${one}\n${two}")
endif()
file(STRINGS "${WORK}/probe.log" events)
list(TRANSFORM events REPLACE " .*" "")
if(NOT events STREQUAL "start;end;start;end")
  message(FATAL_ERROR "two probes of one GPU overlapped: ${events}")
endif()

# What a configure prints: a few lines by default (counted), the probe's stages and
# the whole table with --log-level=VERBOSE, the nested build's output when it fails
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
# A first measured configure: a few lines; the probe's stages and the table stay out.
configure(ok "${example}" "${WORK}/consumer" ${measure})
expect_our_lines("${stdout}" 12 "first measured configure")
expect_in("${output}" "probing NVIDIA H200 (device 0, GPU-fake-0000) - done (" "wrote")
expect_not_in("${output}" "stage warm-up" "CMake Warning" "L1 hit latency")
# A re-configure that changes nothing: at most 3 lines.
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
expect_our_lines("${stdout}" 3 "re-configure")
expect_in("${output}" "is up to date")
# Asked for: every stage as it comes, and the whole table.
run(ok "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=ON)
expect_in("${output}" "stage warm-up: fake progress line" "stage l1: fake progress line" "L1 hit latency")
# A user's profile: the nested build of the probe that renders it prints nothing by default
# (here a stand-in build: fake_make.sh), and everything when it fails.
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
set(nested -DCMAKE_MAKE_PROGRAM=${fake_make} -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json)
configure(ok "${example}" "${WORK}/nested" ${nested})
expect_our_lines("${stdout}" 12 "first configure with a user's profile")
expect_in("${output}" "building the probe (render only) - done (")
expect_not_in("${output}" "fake-progress-line" "_gpu_topology/probe-render" "CMake Warning")
run(ok "${CMAKE_COMMAND}" "${WORK}/nested")
expect_our_lines("${stdout}" 3 "re-configure with a user's profile")
# Another tree: the probe that renders comes from the user's cache, built for the same sources
# and toolchain; nothing is built, nor said about it.
file(REMOVE "${WORK}/make.log")
configure(ok "${example}" "${WORK}/nested-again" ${nested})
expect_our_lines("${stdout}" 9 "another tree with a user's profile")
expect_not_in("${output}" "building the probe")
expect_nothing_compiled("${WORK}/nested-again")
if(EXISTS "${WORK}/make.log")
  message(FATAL_ERROR "another tree built the probe that renders, which the user's cache keeps")
endif()
set(ENV{FAKE_MAKE_MODE} fail)
set(nested ${nested} -DGPU_TOPOLOGY_CACHE=OFF)  # a build, to fail
configure(fail "${example}" "${WORK}/nested-fails" ${nested})
expect_in("${output}" "building the probe (render only) - failed" "building the probe in"
          "[1/2] Building CXX object fake-progress-line.o" "fake-compile-error: the stand-in build failed")
# The nested configure took the consumer's compiler checks; after the failed build it was configured
# again with checks of its own (in case the checks it took were the cause), and built again.
file(READ "${WORK}/nested-fails/_gpu_topology/probe-render-configure.log" nested_log)
expect_in("${nested_log}" "The CXX compiler identification")
file(STRINGS "${WORK}/make.log" builds REGEX "^start ")
list(LENGTH builds count)
if(NOT count EQUAL 2)
  message(FATAL_ERROR "the failed build of a seeded probe tree was built ${count} times, not twice:\n${builds}")
endif()

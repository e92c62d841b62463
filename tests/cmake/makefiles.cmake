# A consumer of Unix Makefiles builds its probe with Ninja: by default the one on PATH, or the one
# GPU_TOPOLOGY_NINJA names; with make where it is OFF, and a tree built with make switches to Ninja;
# a value that is none of these stops the configure. The stand-in (fake_make.sh) builds it each way.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A user's own profile needs a probe to render it: the nested build is real up to its build step.
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
set(ENV{FAKE_BUILT_PROBE} "${RENDER_ONLY_PROBE}")
set(consumer -G "Unix Makefiles" -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json
             -DGPU_TOPOLOGY_CACHE=OFF)
function(expect_nested tree file)
  if(NOT EXISTS "${tree}/_gpu_topology/probe-render/${file}")
    message(FATAL_ERROR "${tree}: the probe's nested build has no ${file}")
  endif()
endfunction()
# The default: the first Ninja on PATH (here the stand-in, named ninja, which passes the rest to the real one).
find_program(real_ninja NAMES ninja REQUIRED)
set(ENV{FAKE_REAL_MAKE} "${real_ninja}")
file(MAKE_DIRECTORY "${WORK}/bin")
file(CREATE_LINK "${fake_make}" "${WORK}/bin/ninja" SYMBOLIC)
set(ENV{PATH} "${WORK}/bin:$ENV{PATH}")
run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/default" ${consumer})
expect_in("${output}" "building the probe (render only)")
expect_nested("${WORK}/default" build.ninja)
file(READ "${WORK}/make.log" built)
expect_in("${built}" "start")  # the stand-in built it: the Ninja on PATH
run(ok "${CMAKE_COMMAND}" --build "${WORK}/default")
run(ok "${WORK}/default/minimal")
expect_in("${output}" "My H200")
# OFF: make (the stand-in as the consumer's make program, passing the rest to make); then ON again:
# the tree built with make is configured afresh with Ninja.
set(ENV{FAKE_REAL_MAKE} make)
run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/make" ${consumer} -DGPU_TOPOLOGY_NINJA=OFF
    -DCMAKE_MAKE_PROGRAM=${fake_make})
expect_in("${output}" "building the probe (render only)")
expect_nested("${WORK}/make" Makefile)
set(ENV{FAKE_REAL_MAKE} "${real_ninja}")
run(ok "${CMAKE_COMMAND}" "${WORK}/make" -DGPU_TOPOLOGY_NINJA=ON)
expect_in("${output}" "building the probe (render only)")
expect_nested("${WORK}/make" build.ninja)
# A path names the Ninja; anything else is refused by name.
run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/named" ${consumer} -DGPU_TOPOLOGY_NINJA=${fake_make})
expect_nested("${WORK}/named" build.ninja)
run(fail "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/bad" ${consumer} -DGPU_TOPOLOGY_NINJA=ninja-please)
expect_in("${output}" "GPU_TOPOLOGY_NINJA is 'ninja-please': give ON (a Ninja on PATH), OFF (make) or the absolute path of a Ninja")

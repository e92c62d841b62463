# A consumer of Unix Makefiles builds its probe with Ninja where there is one (GPU_TOPOLOGY_NINJA),
# with make where GPU_TOPOLOGY_NINJA is OFF; the stand-in (fake_make.sh) builds it either way
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A user's own profile needs a probe to render it: the nested build is real up to its build step.
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
set(ENV{FAKE_BUILT_PROBE} "${RENDER_ONLY_PROBE}")
set(consumer -G "Unix Makefiles" -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json
             -DGPU_TOPOLOGY_CACHE=OFF)
run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/ninja" ${consumer} -DGPU_TOPOLOGY_NINJA=${fake_make})
expect_in("${output}" "building the probe (render only)")
if(NOT EXISTS "${WORK}/ninja/_gpu_topology/probe-render/build.ninja")
  message(FATAL_ERROR "a Makefile consumer's probe was not built with Ninja")
endif()
run(ok "${CMAKE_COMMAND}" --build "${WORK}/ninja")
run(ok "${WORK}/ninja/minimal")
expect_in("${output}" "My H200")
# OFF: make, as the consumer (the stand-in as its make program, passing the rest to make).
set(ENV{FAKE_REAL_MAKE} make)
run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/make" ${consumer} -DGPU_TOPOLOGY_NINJA=OFF
    -DCMAKE_MAKE_PROGRAM=${fake_make})
expect_in("${output}" "building the probe (render only)")
if(NOT EXISTS "${WORK}/make/_gpu_topology/probe-render/Makefile")
  message(FATAL_ERROR "GPU_TOPOLOGY_NINJA=OFF: the probe was not built with make")
endif()

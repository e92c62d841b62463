# An interrupted nested build heals; two configures of one tree at once both work
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A user's own profile needs a probe to render it. Its nested configure is real; its build
# the stand-in (fake_make.sh), which hands over the render-only probe of the package's build.
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
set(ENV{FAKE_BUILT_PROBE} "${RENDER_ONLY_PROBE}")
# The tree exists (CMake's own first configure of one tree cannot run twice at
# once: its compiler checks share files), with a stored profile: no probe built.
configure(ok "${example}" "${WORK}/consumer" ${stored_arg} -DCMAKE_MAKE_PROGRAM=${fake_make})
expect_nothing_compiled("${WORK}/consumer")
# What an interrupted configure leaves: a nested build directory with a cache
# and no stamp. Two configures of the tree start at once; both must work.
file(WRITE "${WORK}/consumer/_gpu_topology/probe-render/CMakeCache.txt" "garbage from an interrupted configure\n")
twice_at_once(heal "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/consumer" "-DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json")
expect_in("${output}" "configuring it afresh" "building the probe (render only)")
run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
run(ok "${WORK}/consumer/minimal")
expect_in("${output}" "My H200")
# The probe built to render renders, and says what it cannot do.
run(fail "${WORK}/consumer/_gpu_topology/probe-render/gpu-topology-probe" replay "${WORK}/none.log")
expect_in("${output}" "'replay' needs the full probe; this one was built to render profiles only")

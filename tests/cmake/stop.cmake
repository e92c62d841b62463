# A configure stopped with SIGTERM or SIGKILL stops the probe's nested build with it,
# and the next configure never builds beside a build left running
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A configure stopped while it builds the probe (a stand-in build that takes a minute) stops
# that build with it, whether it is asked to (SIGTERM) or killed (SIGKILL).
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
set(consumer "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer" -G "${GENERATOR}"
             -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} -DCMAKE_MAKE_PROGRAM=${fake_make}
             -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json)
set(ENV{FAKE_MAKE_SECONDS} 60)
foreach(signal TERM KILL)
  file(REMOVE "${WORK}/make.log.sleeping")
  start_in_background(configure ${consumer})
  wait_for_file("${WORK}/make.log.sleeping" 120)  # the build runs
  file(READ "${WORK}/make.log.sleeping" build)
  string(STRIP "${build}" build)
  execute_process(COMMAND kill -${signal} ${pid})
  # CMake obeys a SIGTERM once its children are done: the configure must end long before the minute.
  wait_for_file("${WORK}/configure.rc" 20 stopped)
  if(NOT stopped)
    message(FATAL_ERROR "a configure sent SIG${signal} was still waiting for its probe's build 20 s later")
  endif()
  foreach(tenth RANGE 0 100 2)  # up to 10 s, looking every 0.2 s
    process_alive(${build} running)
    if(NOT running)
      break()
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.2)
  endforeach()
  if(running)
    message(FATAL_ERROR "SIG${signal} stopped the configure, and its probe's build (process ${build}) runs on")
  endif()
  if(EXISTS "${WORK}/consumer/_gpu_topology/probe-render/gpu-topology-probe")
    message(FATAL_ERROR "the build of a stopped configure went on to its end")
  endif()
endforeach()
# Killed again, and configured again at once: the new configure's build never runs beside
# the old one, which it waits for (its watcher stops it within a second or so).
file(REMOVE "${WORK}/make.log.sleeping" "${WORK}/make.log")
start_in_background(configure ${consumer})
wait_for_file("${WORK}/make.log.sleeping" 120)
execute_process(COMMAND kill -KILL ${pid})
set(ENV{FAKE_MAKE_SECONDS} 0)
run(ok ${consumer})
file(READ "${WORK}/make.log" events)
expect_not_in("${events}" "overlap")
run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
run(ok "${WORK}/consumer/minimal")
expect_in("${output}" "My H200")

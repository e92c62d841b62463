# Configures, builds and runs examples/minimal as a user would (cmake -P driver).
#   MODE subdirectory  add_subdirectory(<package source>)
#   MODE installed     install the package to a prefix, then find_package
#   MODE broken        a broken profile must stop the configure, naming file and field
#   MODE require       an unmet gpu_topology_require() must stop the configure
#   MODE bad_options   a wrong GPU_TOPOLOGY_LEVEL or GPU_TOPOLOGY_TIME_BUDGET must stop it, naming both
file(REMOVE_RECURSE "${WORK}")
set(profile_arg -DGPU_TOPOLOGY_PROFILE=nvidia-h200)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(last_rc "${rc}" PARENT_SCOPE)
  set(last_output "${out}\n${err}" PARENT_SCOPE)
  if(NOT rc EQUAL 0 AND NOT what STREQUAL "may-fail")
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

if(MODE STREQUAL "installed")
  run("configure package" "${CMAKE_COMMAND}" -S "${PACKAGE_SOURCE}" -B "${WORK}/package" -G "${GENERATOR}"
      -DGPU_TOPOLOGY_BUILD_TESTS=OFF -DGPU_TOPOLOGY_GENERATE=OFF -DCMAKE_BUILD_TYPE=Release)
  run("build package" "${CMAKE_COMMAND}" --build "${WORK}/package")
  run("install package" "${CMAKE_COMMAND}" --install "${WORK}/package" --prefix "${WORK}/prefix")
  set(consumer_args -DCMAKE_PREFIX_PATH=${WORK}/prefix)
else()
  set(consumer_args -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE})
endif()

if(MODE STREQUAL "broken")
  run(may-fail "${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/consumer" -G "${GENERATOR}" ${consumer_args}
      -DGPU_TOPOLOGY_PROFILE=${BROKEN})
  if(last_rc EQUAL 0)
    message(FATAL_ERROR "a broken profile was accepted")
  endif()
  foreach(expected "broken-profile.json" "caches.l1.size_bytes.value: expected number, got string" "caches.l2.line_bytes: missing")
    string(FIND "${last_output}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the error does not say '${expected}':\n${last_output}")
    endif()
  endforeach()
  return()
endif()

if(MODE STREQUAL "bad_options")
  foreach(case "GPU_TOPOLOGY_LEVEL=thorough" "GPU_TOPOLOGY_TIME_BUDGET=5s" "GPU_TOPOLOGY_TIME_BUDGET=0")
    string(REPLACE "=" ";" pair "${case}")
    list(GET pair 0 variable)
    list(GET pair 1 value)
    run(may-fail "${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/consumer" -G "${GENERATOR}" ${consumer_args}
        ${profile_arg} -D${case})
    string(FIND "${last_output}" "${variable} is '${value}'" at)
    if(last_rc EQUAL 0 OR at EQUAL -1)
      message(FATAL_ERROR "${case} did not stop the configure with a message naming it:\n${last_output}")
    endif()
    file(REMOVE_RECURSE "${WORK}/consumer")
  endforeach()
  return()
endif()

if(MODE STREQUAL "require")
  run(may-fail "${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/consumer" -G "${GENERATOR}" ${consumer_args}
      ${profile_arg} -DMINIMAL_REQUIRE_L2_NEAR=1099511627776)
  string(FIND "${last_output}" "requirement not met: L2_NEAR_SIZE_BYTES GREATER_EQUAL" at)
  if(last_rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "an unmet requirement did not stop the configure:\n${last_output}")
  endif()
  return()
endif()

run("configure consumer" "${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/consumer" -G "${GENERATOR}" ${consumer_args}
    ${profile_arg} -DMINIMAL_REQUIRE_L2_NEAR=1048576)
string(FIND "${last_output}" "requirement met: L2_NEAR_SIZE_BYTES" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the configure did not report the requirement:\n${last_output}")
endif()
run("build consumer" "${CMAKE_COMMAND}" --build "${WORK}/consumer")
run("run consumer" "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/consumer" -R minimal.prints --output-on-failure)
# A second configure must reuse everything: no probe build, no rendering change.
file(TIMESTAMP "${WORK}/consumer/gpu_topology/gpu_topology.hpp" before "%s")
run("reconfigure consumer" "${CMAKE_COMMAND}" "${WORK}/consumer")
file(TIMESTAMP "${WORK}/consumer/gpu_topology/gpu_topology.hpp" after "%s")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "a reconfigure rewrote an unchanged header")
endif()
message("consumer (${MODE}) configured, built and ran")

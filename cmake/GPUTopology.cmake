# GPUTopology: configure-time memory-topology probe -> gpu_topology.hpp.
#
#   gpu_topology_generate([TARGET t] [DEVICE n] [PROFILE name|path] [OUTPUT_DIR d])
#   gpu_topology_require(<QUANTITY> <LESS|LESS_EQUAL|EQUAL|GREATER_EQUAL|GREATER> <value>)
#   gpu_topology_add_tests([PREFIX p] [DEVICE n])
#
# Cache variables (also settable per call):
#   GPU_TOPOLOGY_PROFILE        stored profile (name in generated/profiles/ or a path); skips probing
#   GPU_TOPOLOGY_DEVICE         device index to probe (default 0)
#   GPU_TOPOLOGY_REPROBE        ON: measure again even when a cached profile matches
#   GPU_TOPOLOGY_ON_NO_GPU      fallback (default): use the stored profile; error: stop the configure
#   GPU_TOPOLOGY_PROBE_TIMEOUT  seconds before a hanging probe fails the configure (default 600)
#   GPU_TOPOLOGY_LEVEL          full (default): every quantity; quick: L1, L2, DRAM sizes, lines, latencies
#   GPU_TOPOLOGY_TIME_BUDGET    seconds after which the probe starts no further stage (empty: none);
#                               the profile lists the stages it skipped
include_guard(GLOBAL)

# Where probe/, templates/ and generated/profiles/ live: the source tree, or
# share/GPUTopology in an install (the package config sets it first).
if(NOT DEFINED GPU_TOPOLOGY_PACKAGE_DIR)
  get_filename_component(GPU_TOPOLOGY_PACKAGE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
set(GPU_TOPOLOGY_PACKAGE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}" CACHE INTERNAL "")

set(GPU_TOPOLOGY_PROFILE "" CACHE STRING "Stored profile to use instead of probing (name or path)")
set(GPU_TOPOLOGY_DEVICE 0 CACHE STRING "CUDA device index to probe")
option(GPU_TOPOLOGY_REPROBE "Measure again even when a cached profile matches this GPU" OFF)
set(GPU_TOPOLOGY_ON_NO_GPU "fallback" CACHE STRING "Without a usable GPU: fallback (stored profile) or error")
set_property(CACHE GPU_TOPOLOGY_ON_NO_GPU PROPERTY STRINGS fallback error)
set(GPU_TOPOLOGY_PROBE_TIMEOUT 600 CACHE STRING "Seconds before a hanging probe fails the configure")
set(GPU_TOPOLOGY_LEVEL "full" CACHE STRING "What the probe measures: full or quick")
set_property(CACHE GPU_TOPOLOGY_LEVEL PROPERTY STRINGS full quick)
set(GPU_TOPOLOGY_TIME_BUDGET "" CACHE STRING "Seconds after which the probe starts no further stage (empty: no limit)")
set(GPU_TOPOLOGY_DEFAULT_PROFILE "nvidia-h200" CACHE STRING "Stored profile used when no GPU is present")

# Builds gpu-topology-probe once per build tree (a nested build: it must exist
# before this configure ends, and it is built for the host even when
# cross-compiling). Later calls and re-configures reuse it; a changed probe
# source is rebuilt incrementally.
function(_gpu_topology_probe_executable out_var)
  get_property(exe GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_EXE)
  if(exe)
    set(${out_var} "${exe}" PARENT_SCOPE)
    return()
  endif()
  set(build_dir "${CMAKE_BINARY_DIR}/_gpu_topology/probe-build")
  if(NOT EXISTS "${build_dir}/CMakeCache.txt")
    message(CHECK_START "GPUTopology: configuring the probe")
    set(generator_args -G "${CMAKE_GENERATOR}")
    if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles" AND CMAKE_MAKE_PROGRAM)
      list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}")
    endif()
    execute_process(
      COMMAND "${CMAKE_COMMAND}" -S "${GPU_TOPOLOGY_PACKAGE_DIR}/probe" -B "${build_dir}" ${generator_args}
              -DCMAKE_BUILD_TYPE=Release
      RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
    if(NOT rc EQUAL 0)
      message(CHECK_FAIL "failed")
      message(FATAL_ERROR "GPUTopology: configuring the probe in ${build_dir} failed:\n${log}")
    endif()
    message(CHECK_PASS "done")
  endif()
  message(CHECK_START "GPUTopology: building the probe")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" --build "${build_dir}" --target gpu-topology-probe --config Release
    RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT rc EQUAL 0)
    message(CHECK_FAIL "failed")
    message(FATAL_ERROR "GPUTopology: building the probe failed:\n${log}")
  endif()
  message(CHECK_PASS "done")
  foreach(candidate "${build_dir}/gpu-topology-probe" "${build_dir}/Release/gpu-topology-probe"
                    "${build_dir}/gpu-topology-probe.exe" "${build_dir}/Release/gpu-topology-probe.exe")
    if(EXISTS "${candidate}")
      set(exe "${candidate}")
      break()
    endif()
  endforeach()
  if(NOT exe)
    message(FATAL_ERROR "GPUTopology: the probe built, but no executable was found in ${build_dir}")
  endif()
  set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_EXE "${exe}")
  set(${out_var} "${exe}" PARENT_SCOPE)
endfunction()

# Name (generated/profiles/<name>.json) or path -> absolute path of an existing profile.
function(_gpu_topology_resolve_profile spec out_var)
  if(EXISTS "${spec}" AND NOT IS_DIRECTORY "${spec}")
    get_filename_component(path "${spec}" ABSOLUTE)
  elseif(EXISTS "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles/${spec}.json")
    set(path "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles/${spec}.json")
  else()
    file(GLOB known RELATIVE "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles" "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles/*.json")
    string(REPLACE ".json" "" known "${known}")
    message(FATAL_ERROR "GPUTopology: profile '${spec}' is neither a file nor a stored profile (stored: ${known})")
  endif()
  set(${out_var} "${path}" PARENT_SCOPE)
endfunction()

function(gpu_topology_generate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;DEVICE;PROFILE;OUTPUT_DIR" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gpu_topology_generate: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(ARG_TARGET AND NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "gpu_topology_generate: TARGET '${ARG_TARGET}' is not a target")
  endif()
  if(NOT DEFINED ARG_DEVICE)
    set(ARG_DEVICE "${GPU_TOPOLOGY_DEVICE}")
  endif()
  if(NOT ARG_PROFILE)
    set(ARG_PROFILE "${GPU_TOPOLOGY_PROFILE}")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/gpu_topology")
  endif()
  set(state "${CMAKE_BINARY_DIR}/_gpu_topology")
  file(MAKE_DIRECTORY "${state}" "${ARG_OUTPUT_DIR}")

  if(NOT GPU_TOPOLOGY_LEVEL MATCHES "^(full|quick)$")
    message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_LEVEL is '${GPU_TOPOLOGY_LEVEL}'; use full or quick")
  endif()
  set(probe_args --level "${GPU_TOPOLOGY_LEVEL}")
  if(NOT GPU_TOPOLOGY_TIME_BUDGET STREQUAL "")
    if(NOT GPU_TOPOLOGY_TIME_BUDGET MATCHES "^[0-9]+([.][0-9]+)?$" OR GPU_TOPOLOGY_TIME_BUDGET MATCHES "^0*([.]0*)?$")
      message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_TIME_BUDGET is '${GPU_TOPOLOGY_TIME_BUDGET}'; "
                          "use a positive number of seconds, or leave it empty for no limit")
    endif()
    list(APPEND probe_args --budget "${GPU_TOPOLOGY_TIME_BUDGET}")
  endif()

  _gpu_topology_probe_executable(probe)

  set(no_gpu_reason "")
  if(ARG_PROFILE)
    _gpu_topology_resolve_profile("${ARG_PROFILE}" profile)
    get_filename_component(name "${profile}" NAME)
    set(source "stored:${name}")
    message(STATUS "GPUTopology: using the profile ${profile} (PROFILE/GPU_TOPOLOGY_PROFILE), not probing")
  elseif(CMAKE_CROSSCOMPILING)
    set(no_gpu_reason "cross-compiling: the target's GPU cannot be probed from this host")
  else()
    execute_process(COMMAND "${probe}" identity --device "${ARG_DEVICE}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE identity ERROR_VARIABLE why TIMEOUT 120)
    string(STRIP "${why}" why)
    if(rc EQUAL 77)
      string(REGEX REPLACE "^gpu-topology-probe: " "" no_gpu_reason "${why}")
    elseif(NOT rc EQUAL 0)
      message(FATAL_ERROR "GPUTopology: looking up device ${ARG_DEVICE} failed (${rc}): ${why}")
    else()
      # The cache key: device identity + driver + runtime + probe version + what was asked.
      string(SHA256 key "${identity};${probe_args}")
      string(SUBSTRING "${key}" 0 16 key)
      set(profile "${state}/profile-${key}.json")
      string(JSON device_name GET "${identity}" name)
      if(EXISTS "${profile}" AND NOT GPU_TOPOLOGY_REPROBE)
        message(STATUS "GPUTopology: ${device_name}: reusing the profile measured earlier (${profile}); "
                       "set GPU_TOPOLOGY_REPROBE=ON to measure again")
      else()
        message(STATUS "GPUTopology: probing ${device_name} (device ${ARG_DEVICE})")
        # No OUTPUT_VARIABLE: the probe's progress (stderr) shows while it works.
        # It writes the profile atomically, so an interrupted run leaves none.
        execute_process(COMMAND "${probe}" probe --device "${ARG_DEVICE}" --output "${profile}" ${probe_args}
                        RESULT_VARIABLE rc TIMEOUT "${GPU_TOPOLOGY_PROBE_TIMEOUT}")
        if(rc EQUAL 77)
          set(no_gpu_reason "the probe found no usable GPU")
        elseif(NOT rc EQUAL 0)
          file(REMOVE "${profile}")
          message(FATAL_ERROR "GPUTopology: the probe failed (${rc}); its messages are above. "
                              "Nothing was cached; the next configure measures again.")
        endif()
      endif()
      set(source "measured")
    endif()
  endif()

  if(NOT no_gpu_reason STREQUAL "")
    if(GPU_TOPOLOGY_ON_NO_GPU STREQUAL "error")
      message(FATAL_ERROR "GPUTopology: no GPU to probe (${no_gpu_reason}) and GPU_TOPOLOGY_ON_NO_GPU=error")
    endif()
    _gpu_topology_resolve_profile("${GPU_TOPOLOGY_DEFAULT_PROFILE}" profile)
    get_filename_component(name "${profile}" NAME)
    set(source "stored:${name}")
    message(NOTICE "GPUTopology: no GPU to probe (${no_gpu_reason}); using the stored profile ${name}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${profile}")

  string(MAKE_C_IDENTIFIER "${source}" vars_name)
  set(vars "${state}/vars-${vars_name}.cmake")
  execute_process(
    COMMAND "${probe}" render "${profile}" --header "${ARG_OUTPUT_DIR}/gpu_topology.hpp" --cmake "${vars}"
            --source "${source}" --table
    RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE why)
  if(NOT rc EQUAL 0)
    string(STRIP "${why}" why)
    message(FATAL_ERROR "GPUTopology: cannot use the profile: ${why}")
  endif()
  string(STRIP "${table}" table)
  string(REPLACE "\n" "\n   " table "${table}")
  message(STATUS "GPUTopology: ${table}")
  message(STATUS "GPUTopology: wrote ${ARG_OUTPUT_DIR}/gpu_topology.hpp")

  include("${vars}")
  set_property(GLOBAL PROPERTY GPU_TOPOLOGY_GENERATED TRUE)
  set_property(GLOBAL PROPERTY GPU_TOPOLOGY_PROFILE_FILE "${profile}")
  set_property(GLOBAL PROPERTY GPU_TOPOLOGY_QUANTITIES "${GPU_TOPOLOGY_QUANTITIES}")
  foreach(q IN LISTS GPU_TOPOLOGY_QUANTITIES ITEMS DEVICE_NAME DEVICE_UUID PROFILE_SOURCE PROFILE_HASH SM_COUNT)
    set_property(GLOBAL PROPERTY GPU_TOPOLOGY_${q} "${GPU_TOPOLOGY_${q}}")
    set_property(GLOBAL PROPERTY GPU_TOPOLOGY_${q}_UNMEASURED "${GPU_TOPOLOGY_${q}_UNMEASURED}")
    set(GPU_TOPOLOGY_${q} "${GPU_TOPOLOGY_${q}}" PARENT_SCOPE)
  endforeach()
  set(GPU_TOPOLOGY_INCLUDE_DIR "${ARG_OUTPUT_DIR}" PARENT_SCOPE)

  if(ARG_TARGET)
    get_target_property(type ${ARG_TARGET} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      target_include_directories(${ARG_TARGET} INTERFACE "$<BUILD_INTERFACE:${ARG_OUTPUT_DIR}>")
    else()
      target_include_directories(${ARG_TARGET} PUBLIC "$<BUILD_INTERFACE:${ARG_OUTPUT_DIR}>")
    endif()
    target_compile_features(${ARG_TARGET} PUBLIC cxx_std_17)
  endif()
endfunction()

function(gpu_topology_require quantity op value)
  get_property(generated GLOBAL PROPERTY GPU_TOPOLOGY_GENERATED)
  if(NOT generated)
    message(FATAL_ERROR "gpu_topology_require: call gpu_topology_generate() first")
  endif()
  get_property(known GLOBAL PROPERTY GPU_TOPOLOGY_QUANTITIES)
  if(NOT quantity IN_LIST known)
    string(REPLACE ";" ", " known "${known}")
    message(FATAL_ERROR "gpu_topology_require: unknown quantity '${quantity}'; known: ${known}")
  endif()
  set(ops LESS LESS_EQUAL EQUAL GREATER_EQUAL GREATER)
  if(NOT op IN_LIST ops)
    message(FATAL_ERROR "gpu_topology_require: '${op}' is not one of ${ops}")
  endif()
  if(NOT value MATCHES "^[0-9]+$")
    message(FATAL_ERROR "gpu_topology_require: '${value}' is not a whole number")
  endif()
  get_property(actual GLOBAL PROPERTY GPU_TOPOLOGY_${quantity})
  get_property(device GLOBAL PROPERTY GPU_TOPOLOGY_DEVICE_NAME)
  get_property(source GLOBAL PROPERTY GPU_TOPOLOGY_PROFILE_SOURCE)
  if(actual STREQUAL "")
    get_property(why GLOBAL PROPERTY GPU_TOPOLOGY_${quantity}_UNMEASURED)
    message(FATAL_ERROR "GPUTopology: requirement ${quantity} ${op} ${value} cannot be checked: "
                        "${quantity} was not measured on ${device} (${why})")
  endif()
  if(NOT actual ${op} value)
    message(FATAL_ERROR "GPUTopology: requirement not met: ${quantity} ${op} ${value}, but ${device} has "
                        "${quantity} = ${actual} (profile: ${source})")
  endif()
  message(STATUS "GPUTopology: requirement met: ${quantity} = ${actual} ${op} ${value}")
endfunction()

# CTest tests for CI on GPU runners (label gpu; skipped without a GPU):
#   <prefix>identity  the runner's GPU is the model the header describes
#   <prefix>remeasure a fresh measurement agrees with the header's profile
function(gpu_topology_add_tests)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX;DEVICE" "")
  if(NOT DEFINED ARG_PREFIX)
    set(ARG_PREFIX "gpu_topology.")
  endif()
  if(NOT DEFINED ARG_DEVICE)
    set(ARG_DEVICE "${GPU_TOPOLOGY_DEVICE}")
  endif()
  get_property(profile GLOBAL PROPERTY GPU_TOPOLOGY_PROFILE_FILE)
  get_property(probe GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_EXE)
  if(NOT profile OR NOT probe)
    message(FATAL_ERROR "gpu_topology_add_tests: call gpu_topology_generate() first")
  endif()
  add_test(NAME ${ARG_PREFIX}identity
           COMMAND "${probe}" check "${profile}" --device "${ARG_DEVICE}" --identity-only)
  add_test(NAME ${ARG_PREFIX}remeasure COMMAND "${probe}" check "${profile}" --device "${ARG_DEVICE}")
  set_tests_properties(${ARG_PREFIX}identity ${ARG_PREFIX}remeasure PROPERTIES
                       LABELS gpu SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu_topology_gpu TIMEOUT 900)
endfunction()

# GPUTopology: the memory hierarchy of this machine's GPU, measured at configure
# time (or read from a stored profile), as gpu_topology.hpp.
#
#   gpu_topology_generate([NAME n] [TARGET t...] [DEVICE i | DEVICES ALL] [PROFILE name|path] [OUTPUT_DIR d])
#       Probes the GPU (or uses a stored profile), writes <d>/gpu_topology.hpp and
#       creates the INTERFACE target GPUTopology::<n> that puts it on the include
#       path (and links it to each TARGET). NAME defaults to the first TARGET, or
#       "header". Each call owns its name, output directory, header and values.
#       DEVICES ALL (or DEVICE ALL, or GPU_TOPOLOGY_DEVICE=ALL) probes every device at
#       once and the links between them (docs/node.md); the configure stops when
#       the devices are not one model.
#   gpu_topology_get(<var> <QUANTITY> [FOR n])
#       The value of a quantity (docs/quantities.md; also SM_COUNT, CC_MAJOR, ...);
#       empty when it is unmeasured, and <var>_UNMEASURED then says why;
#       <var>_IS_LOWER_BOUND is TRUE when only a lower bound is known, and
#       <var>_DOUBT says why a measured value is not vouched for (empty: it is).
#   gpu_topology_require([FOR n] <QUANTITY> <LESS|LESS_EQUAL|EQUAL|GREATER_EQUAL|GREATER> <value>)
#       Stops the configure when the GPU does not meet the requirement.
#   gpu_topology_add_tests([FOR n] [PREFIX p] [DEVICE i])
#       CTest tests (label gpu): the runner's GPU is the one the header
#       describes, and a fresh measurement agrees with it. Skipped without a GPU.
#   FOR may be left out while a project has made one gpu_topology_generate call.
#
# Cache variables (documented in README.md):
#   GPU_TOPOLOGY_PROFILE, GPU_TOPOLOGY_DEVICE, GPU_TOPOLOGY_REPROBE, GPU_TOPOLOGY_ON_NO_GPU,
#   GPU_TOPOLOGY_ON_BUSY_GPU, GPU_TOPOLOGY_PROBE_TIMEOUT, GPU_TOPOLOGY_LEVEL, GPU_TOPOLOGY_TIME_BUDGET,
#   GPU_TOPOLOGY_DEFAULT_PROFILE, GPU_TOPOLOGY_PROBE_EXECUTABLE
include_guard(GLOBAL)

# Where include/, templates/, generated/ (and probe/ in a source tree) live:
# the source tree, or share/GPUTopology in an install (the package config sets it).
if(NOT DEFINED GPU_TOPOLOGY_PACKAGE_DIR)
  get_filename_component(GPU_TOPOLOGY_PACKAGE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
set(GPU_TOPOLOGY_PACKAGE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}" CACHE INTERNAL "")
if(NOT DEFINED GPU_TOPOLOGY_INCLUDE_DIR)
  set(GPU_TOPOLOGY_INCLUDE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}/include")
endif()
set(GPU_TOPOLOGY_INCLUDE_DIR "${GPU_TOPOLOGY_INCLUDE_DIR}" CACHE INTERNAL "")

set(GPU_TOPOLOGY_PROFILE "" CACHE STRING "Stored profile to use instead of probing (name or path)")
set(GPU_TOPOLOGY_DEVICE 0 CACHE STRING "CUDA device index to probe")
option(GPU_TOPOLOGY_REPROBE "Measure again even when a cached profile matches this GPU" OFF)
set(GPU_TOPOLOGY_ON_NO_GPU "fallback" CACHE STRING "Without a usable GPU: fallback (stored profile, with a warning) or error")
set_property(CACHE GPU_TOPOLOGY_ON_NO_GPU PROPERTY STRINGS fallback error)
set(GPU_TOPOLOGY_ON_BUSY_GPU "warn" CACHE STRING "When other work disturbed the probe: warn (values not vouched for) or error")
set_property(CACHE GPU_TOPOLOGY_ON_BUSY_GPU PROPERTY STRINGS warn error)
set(GPU_TOPOLOGY_PROBE_TIMEOUT 600 CACHE STRING "Seconds before a hanging probe fails the configure")
set(GPU_TOPOLOGY_LEVEL "full" CACHE STRING "What the probe measures: full or quick")
set_property(CACHE GPU_TOPOLOGY_LEVEL PROPERTY STRINGS full quick)
set(GPU_TOPOLOGY_TIME_BUDGET "" CACHE STRING "Seconds after which the probe starts no further stage (empty: no limit)")
set(GPU_TOPOLOGY_DEFAULT_PROFILE "nvidia-h200" CACHE STRING "Stored profile used when no GPU is present")
set(GPU_TOPOLOGY_PROBE_EXECUTABLE "" CACHE FILEPATH
    "A gpu-topology-probe to run instead of building or installing one; its 'identity' decides whether a GPU is present")

include("${CMAKE_CURRENT_LIST_DIR}/GPUTopologyProbe.cmake")

# --- options ---------------------------------------------------------------------

# Lower-cases a policy value and checks it is one of `allowed`; a typo stops the configure.
function(_gpu_topology_policy variable allowed out_var)
  string(TOLOWER "${${variable}}" value)
  if(NOT value IN_LIST allowed)
    string(REPLACE ";" ", " choices "${allowed}")
    message(FATAL_ERROR "GPUTopology: ${variable} is '${${variable}}'; use one of ${choices} (any case)")
  endif()
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

function(_gpu_topology_probe_arguments out_var)
  _gpu_topology_policy(GPU_TOPOLOGY_LEVEL "full;quick" level)
  set(arguments --level ${level})
  if(NOT GPU_TOPOLOGY_TIME_BUDGET STREQUAL "")
    if(NOT GPU_TOPOLOGY_TIME_BUDGET MATCHES "^[0-9]+([.][0-9]+)?$" OR GPU_TOPOLOGY_TIME_BUDGET MATCHES "^0*([.]0*)?$")
      message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_TIME_BUDGET is '${GPU_TOPOLOGY_TIME_BUDGET}'; "
                          "use a positive number of seconds, or leave it empty for no limit")
    endif()
    list(APPEND arguments --budget "${GPU_TOPOLOGY_TIME_BUDGET}")
  endif()
  if(NOT GPU_TOPOLOGY_PROBE_TIMEOUT MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_PROBE_TIMEOUT is '${GPU_TOPOLOGY_PROBE_TIMEOUT}'; use whole seconds")
  endif()
  set(${out_var} "${arguments}" PARENT_SCOPE)
endfunction()

# A probe that measures (`purpose` "measures") or one that only renders ("renders"):
# the installed one when it can, else one built here.
function(_gpu_topology_probe purpose out_var)
  if(GPU_TOPOLOGY_PROBE_EXECUTABLE)
    set(${out_var} "${GPU_TOPOLOGY_PROBE_EXECUTABLE}" PARENT_SCOPE)
    return()
  endif()
  get_property(cached GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_${purpose})
  if(NOT cached AND purpose STREQUAL "renders")
    get_property(cached GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_measures)  # a probe that measures renders too
  endif()
  if(cached)
    set(${out_var} "${cached}" PARENT_SCOPE)
    return()
  endif()
  set(exe "")
  if(TARGET GPUTopology::gpu-topology-probe)
    get_target_property(imported GPUTopology::gpu-topology-probe IMPORTED)
    if(imported)
      get_target_property(exe GPUTopology::gpu-topology-probe IMPORTED_LOCATION_RELEASE)
      if(NOT exe)
        get_target_property(exe GPUTopology::gpu-topology-probe IMPORTED_LOCATION)
      endif()
      if(purpose STREQUAL "measures" AND NOT GPU_TOPOLOGY_PROBE_HAS_CUDA)
        set(exe "")  # installed without CUDA: it cannot measure
      endif()
    endif()
  endif()
  if(NOT exe)
    set(with_cuda OFF)
    if(purpose STREQUAL "measures")
      set(with_cuda ON)
      include(CheckLanguage)
      check_language(CUDA)
      if(NOT CMAKE_CUDA_COMPILER)
        message(FATAL_ERROR "GPUTopology: a GPU is present, but the probe cannot be built to measure it: no CUDA "
                            "compiler was found. Set CMAKE_CUDA_COMPILER (or CUDAToolkit_ROOT), put nvcc on PATH, "
                            "or choose a stored profile with GPU_TOPOLOGY_PROFILE.")
      endif()
    endif()
    _gpu_topology_build_probe(${with_cuda} exe)
  endif()
  set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_${purpose} "${exe}")
  set(${out_var} "${exe}" PARENT_SCOPE)
endfunction()

# --- profiles ----------------------------------------------------------------------

# Name (generated/profiles/<name>.json) or path (relative to the calling source
# dir) -> absolute path of an existing profile.
function(_gpu_topology_resolve_profile spec out_var)
  set(stored "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles")
  if(spec MATCHES "^[A-Za-z0-9_.-]+$" AND EXISTS "${stored}/${spec}.json")
    set(${out_var} "${stored}/${spec}.json" PARENT_SCOPE)
    return()
  endif()
  get_filename_component(path "${spec}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(EXISTS "${path}" AND NOT IS_DIRECTORY "${path}")
    set(${out_var} "${path}" PARENT_SCOPE)
    return()
  endif()
  file(GLOB known RELATIVE "${stored}" "${stored}/*.json")
  string(REPLACE ".json" "" known "${known}")
  string(REPLACE ";" ", " known "${known}")
  message(FATAL_ERROR "GPUTopology: profile '${spec}' is neither a file (${path}) nor a stored profile (${known})")
endfunction()

# The package's stored profile of the GPU model `device_name`, or "".
function(_gpu_topology_stored_profile_of device_name out_var)
  set(${out_var} "" PARENT_SCOPE)
  file(GLOB stored "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles/*.json")
  foreach(candidate IN LISTS stored)
    file(READ "${candidate}" text LIMIT 1048576)
    string(JSON stored_name ERROR_VARIABLE not_json GET "${text}" device name)
    if(NOT not_json AND stored_name STREQUAL device_name)
      set(${out_var} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# Measures device `device` (an index, or ALL: every device and the links
# between them, into one node profile), or reuses this build tree's
# measurement of it, into <profile_var>; sets <busy_var> when a GPU was busy.
function(_gpu_topology_measure device probe_args profile_var busy_var)
  _gpu_topology_probe(measures probe)
  if(device STREQUAL "ALL")
    set(which --all-devices)
  else()
    set(which --device "${device}")
  endif()
  execute_process(COMMAND "${probe}" identity ${which}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE identity ERROR_VARIABLE why TIMEOUT 120)
  string(STRIP "${why}" why)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "GPUTopology: a GPU is present, but device ${device} cannot be probed (${rc}): ${why}\n"
                        "Set GPU_TOPOLOGY_DEVICE to another device, or choose a stored profile with GPU_TOPOLOGY_PROFILE.")
  endif()
  # One identity, or a list of them (ALL): every device's UUID is locked below.
  set(uuids "")
  if(device STREQUAL "ALL")
    string(JSON count LENGTH "${identity}")
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON each_uuid GET "${identity}" ${i} uuid)
      list(APPEND uuids "${each_uuid}")
    endforeach()
    string(JSON name GET "${identity}" 0 name)
    string(JSON uuid GET "${identity}" 0 uuid)
    set(what "${count} devices")
  else()
    string(JSON uuid GET "${identity}" uuid)
    string(JSON name GET "${identity}" name)
    set(uuids "${uuid}")
    set(what "device ${device}, ${uuid}")
  endif()
  # The cache key: device identity + driver + runtime + probe version + what was asked.
  string(SHA256 key "${identity};${probe_args}")
  string(SUBSTRING "${key}" 0 16 key)
  set(state "${CMAKE_BINARY_DIR}/_gpu_topology")
  set(profile "${state}/profile-${key}.json")

  # Configures on one machine never measure one GPU at the same time.
  set(lock_dir "$ENV{TMPDIR}")
  if(NOT lock_dir OR NOT IS_DIRECTORY "${lock_dir}")
    set(lock_dir "/tmp")
  endif()
  # In one order everywhere (sorted), so two configures that lock several never wait on each other in a circle.
  list(SORT uuids)
  foreach(locked_uuid IN LISTS uuids)
    string(MAKE_C_IDENTIFIER "${locked_uuid}" lock_name)
    file(LOCK "${lock_dir}/gpu-topology-${lock_name}.lock" GUARD FUNCTION TIMEOUT "${GPU_TOPOLOGY_PROBE_TIMEOUT}"
         RESULT_VARIABLE locked)
    if(NOT locked EQUAL 0)
      message(FATAL_ERROR "GPUTopology: waited ${GPU_TOPOLOGY_PROBE_TIMEOUT} s for another probe of ${locked_uuid}: ${locked}")
    endif()
  endforeach()

  if(EXISTS "${profile}" AND NOT GPU_TOPOLOGY_REPROBE)
    execute_process(COMMAND "${probe}" validate "${profile}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE why)
    if(rc EQUAL 0)
      message(STATUS "GPUTopology: ${name}: reusing this build tree's measurement (${profile}); "
                     "GPU_TOPOLOGY_REPROBE=ON measures again")
      set(${profile_var} "${profile}" PARENT_SCOPE)
      set(${busy_var} FALSE PARENT_SCOPE)
      return()
    endif()
    string(STRIP "${why}" why)
    message(WARNING "GPUTopology: the cached profile is corrupt, so the GPU is measured again:\n${why}")
    file(REMOVE "${profile}")
  endif()

  message(STATUS "GPUTopology: probing ${name} (${what})")
  set(measured "${state}/measuring-${key}.json")
  # A stored profile of this model tells the probe how long its reference work
  # takes on a quiet GPU, so work already running when it starts is seen too.
  _gpu_topology_stored_profile_of("${name}" quiet_reference)
  if(quiet_reference)
    list(APPEND probe_args --quiet-reference "${quiet_reference}")
  endif()
  # No OUTPUT_VARIABLE: the probe's progress (stderr) shows while it works. It
  # writes its profile atomically, so an interrupted run leaves none.
  execute_process(COMMAND "${probe}" probe ${which} --output "${measured}" ${probe_args}
                  RESULT_VARIABLE rc TIMEOUT "${GPU_TOPOLOGY_PROBE_TIMEOUT}")
  if(rc EQUAL 3)
    # Measured while other work ran: used for this configure, never cached, so the next one measures again.
    set(${profile_var} "${measured}" PARENT_SCOPE)
    set(${busy_var} TRUE PARENT_SCOPE)
    return()
  elseif(NOT rc EQUAL 0)
    file(REMOVE "${measured}")
    message(FATAL_ERROR "GPUTopology: the probe failed (${rc}); its messages are above. Nothing was cached; "
                        "the next configure measures again.")
  endif()
  file(RENAME "${measured}" "${profile}")
  # The probe draws the hierarchy beside its profile.
  string(REGEX REPLACE "\\.json$" ".svg" measured_picture "${measured}")
  string(REGEX REPLACE "\\.json$" ".svg" picture "${profile}")
  if(EXISTS "${measured_picture}")
    file(RENAME "${measured_picture}" "${picture}")
  endif()
  set(${profile_var} "${profile}" PARENT_SCOPE)
  set(${busy_var} FALSE PARENT_SCOPE)
endfunction()

# Writes <output_dir>/gpu_topology.hpp and <vars> from `profile`: a copy of the
# package's pre-rendered files for a stored profile, else the probe renders.
function(_gpu_topology_render profile source output_dir vars table_var)
  get_filename_component(stem "${profile}" NAME_WE)
  set(rendered "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/${stem}")
  get_filename_component(profile_dir "${profile}" DIRECTORY)
  if(source MATCHES "^stored:" AND profile_dir STREQUAL "${GPU_TOPOLOGY_PACKAGE_DIR}/generated/profiles"
     AND EXISTS "${rendered}/gpu_topology.hpp" AND EXISTS "${rendered}/gpu_topology_vars.cmake")
    file(COPY_FILE "${rendered}/gpu_topology.hpp" "${output_dir}/gpu_topology.hpp" ONLY_IF_DIFFERENT)
    file(COPY_FILE "${rendered}/gpu_topology_vars.cmake" "${vars}" ONLY_IF_DIFFERENT)
    set(${table_var} "" PARENT_SCOPE)
    return()
  endif()
  _gpu_topology_probe(renders probe)
  execute_process(
    COMMAND "${probe}" render "${profile}" --header "${output_dir}/gpu_topology.hpp" --cmake "${vars}"
            --source "${source}" --table
    RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE why)
  if(NOT rc EQUAL 0)
    string(STRIP "${why}" why)
    message(FATAL_ERROR "GPUTopology: cannot use the profile: ${why}")
  endif()
  set(${table_var} "${table}" PARENT_SCOPE)
endfunction()

# --- the public functions ------------------------------------------------------------

function(gpu_topology_generate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;DEVICE;DEVICES;PROFILE;OUTPUT_DIR" "TARGET")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gpu_topology_generate: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(target IN LISTS ARG_TARGET)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "gpu_topology_generate: TARGET '${target}' is not a target")
    endif()
  endforeach()
  if(NOT ARG_NAME)
    list(GET ARG_TARGET 0 ARG_NAME)
    if(NOT ARG_NAME)
      set(ARG_NAME header)
    endif()
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "gpu_topology_generate: NAME '${ARG_NAME}' must be a C identifier")
  endif()
  get_property(names GLOBAL PROPERTY GPU_TOPOLOGY_NAMES)
  if(ARG_NAME IN_LIST names)
    message(FATAL_ERROR "gpu_topology_generate: NAME '${ARG_NAME}' is used by an earlier call; give each call its own NAME")
  endif()
  if(DEFINED ARG_DEVICES)
    if(DEFINED ARG_DEVICE)
      message(FATAL_ERROR "gpu_topology_generate: give DEVICE (one device) or DEVICES ALL (every device), not both")
    endif()
    if(NOT ARG_DEVICES STREQUAL "ALL")
      message(FATAL_ERROR "gpu_topology_generate: DEVICES '${ARG_DEVICES}' is not ALL (for one device use DEVICE <index>)")
    endif()
    set(ARG_DEVICE ALL)
  endif()
  if(NOT DEFINED ARG_DEVICE)
    set(ARG_DEVICE "${GPU_TOPOLOGY_DEVICE}")
  endif()
  if(NOT ARG_DEVICE MATCHES "^([0-9]+|ALL)$")
    message(FATAL_ERROR "gpu_topology_generate: DEVICE '${ARG_DEVICE}' is not a device index")
  endif()
  if(NOT ARG_PROFILE)
    set(ARG_PROFILE "${GPU_TOPOLOGY_PROFILE}")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/gpu_topology/${ARG_NAME}")
  endif()
  get_filename_component(output_dir "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  _gpu_topology_policy(GPU_TOPOLOGY_ON_NO_GPU "fallback;error" on_no_gpu)
  _gpu_topology_policy(GPU_TOPOLOGY_ON_BUSY_GPU "warn;error" on_busy)
  _gpu_topology_probe_arguments(probe_args)
  set(state "${CMAKE_BINARY_DIR}/_gpu_topology")
  file(MAKE_DIRECTORY "${state}" "${output_dir}")

  set(why_stored "")
  set(busy FALSE)
  if(ARG_PROFILE)
    _gpu_topology_resolve_profile("${ARG_PROFILE}" profile)
    set(why_stored "GPU_TOPOLOGY_PROFILE/PROFILE names it")
  else()
    _gpu_topology_no_gpu_reason(no_gpu)
    if(no_gpu STREQUAL "")
      _gpu_topology_measure("${ARG_DEVICE}" "${probe_args}" profile busy)
    elseif(on_no_gpu STREQUAL "error")
      message(FATAL_ERROR "GPUTopology: no GPU to probe (${no_gpu}) and GPU_TOPOLOGY_ON_NO_GPU=${GPU_TOPOLOGY_ON_NO_GPU}")
    else()
      _gpu_topology_resolve_profile("${GPU_TOPOLOGY_DEFAULT_PROFILE}" profile)
      set(why_stored "no GPU to probe: ${no_gpu}")
    endif()
  endif()
  set(source "measured")
  if(why_stored)
    get_filename_component(file_name "${profile}" NAME)
    set(source "stored:${file_name}")
    message(WARNING "GPUTopology: gpu_topology.hpp (${ARG_NAME}) describes the GPU of the stored profile ${profile}, "
                    "not one measured here (${why_stored}). gpu_topology::identity.stored is true, and "
                    "gpu_topology_add_tests() fails on a GPU that differs from it.")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${profile}")

  set(vars "${state}/vars-${ARG_NAME}.cmake")
  _gpu_topology_render("${profile}" "${source}" "${output_dir}" "${vars}" table)
  include("${vars}")
  # Busy is what the profile says (a stored or named profile too), not only a probe's exit status.
  if(busy OR NOT GPU_TOPOLOGY_CONDITIONS_QUIET)
    string(REPLACE ";" ", " doubted "${GPU_TOPOLOGY_NOT_VOUCHED_FOR}")
    if(doubted STREQUAL "")
      set(doubted "(none listed)")
    endif()
    set(again "")
    if(busy)
      set(again " The next configure measures again.")
    endif()
    string(CONCAT text "GPUTopology: other work ran on ${GPU_TOPOLOGY_DEVICE_NAME} while it was probed; these "
                       "values are not vouched for (the header marks them, .vouched is false): ${doubted}.${again}")
    if(on_busy STREQUAL "error")
      message(FATAL_ERROR "${text} GPU_TOPOLOGY_ON_BUSY_GPU=${GPU_TOPOLOGY_ON_BUSY_GPU} stops the configure.")
    endif()
    message(WARNING "${text}")
  endif()
  # The whole table when the measurement is new or verbose output is asked for.
  if(table)
    string(STRIP "${table}" table)
    string(REPLACE "\n" "\n   " table "${table}")
    message(STATUS "GPUTopology: ${table}")
  else()
    string(REPLACE "\n" "\n   " summary "${GPU_TOPOLOGY_SUMMARY}")
    message(STATUS "GPUTopology: ${summary}")
    message(VERBOSE "GPUTopology: the whole table: gpu-topology-probe show ${profile}")
  endif()
  message(STATUS "GPUTopology: ${GPU_TOPOLOGY_DEVICE_NAME}, profile ${GPU_TOPOLOGY_PROFILE_SOURCE}: "
                 "wrote ${output_dir}/gpu_topology.hpp (GPUTopology::${ARG_NAME})")
  string(REGEX REPLACE "\\.json$" ".svg" picture "${profile}")
  if(EXISTS "${picture}")
    message(STATUS "GPUTopology: picture: ${picture}")
  endif()

  # The call's INTERFACE target carries its header and its values.
  set(target GPUTopology_${ARG_NAME})
  add_library(${target} INTERFACE)
  add_library(GPUTopology::${ARG_NAME} ALIAS ${target})
  target_include_directories(${target} INTERFACE "${output_dir}" "${GPU_TOPOLOGY_INCLUDE_DIR}")
  target_compile_features(${target} INTERFACE cxx_std_17)
  set_target_properties(${target} PROPERTIES GPU_TOPOLOGY_PROFILE_FILE "${profile}"
                                             GPU_TOPOLOGY_DEVICE "${ARG_DEVICE}")
  foreach(q IN LISTS GPU_TOPOLOGY_QUANTITIES ITEMS DEVICE_NAME DEVICE_UUID PROFILE_SOURCE PROFILE_HASH)
    set_target_properties(${target} PROPERTIES GPU_TOPOLOGY_${q} "${GPU_TOPOLOGY_${q}}"
                                               GPU_TOPOLOGY_${q}_UNMEASURED "${GPU_TOPOLOGY_${q}_UNMEASURED}"
                                               GPU_TOPOLOGY_${q}_IS_LOWER_BOUND "${GPU_TOPOLOGY_${q}_IS_LOWER_BOUND}"
                                               GPU_TOPOLOGY_${q}_DOUBT "${GPU_TOPOLOGY_${q}_DOUBT}")
  endforeach()
  set_target_properties(${target} PROPERTIES GPU_TOPOLOGY_QUANTITIES "${GPU_TOPOLOGY_QUANTITIES}")
  foreach(consumer IN LISTS ARG_TARGET)
    get_target_property(type ${consumer} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      target_link_libraries(${consumer} INTERFACE GPUTopology::${ARG_NAME})
    else()
      target_link_libraries(${consumer} PUBLIC GPUTopology::${ARG_NAME})
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY GPU_TOPOLOGY_NAMES "${ARG_NAME}")
endfunction()

# The call `FOR` names (or the only one) -> its target.
function(_gpu_topology_target for caller out_var)
  get_property(names GLOBAL PROPERTY GPU_TOPOLOGY_NAMES)
  if(NOT names)
    message(FATAL_ERROR "${caller}: call gpu_topology_generate() first")
  endif()
  if(NOT for)
    list(LENGTH names count)
    if(count GREATER 1)
      string(REPLACE ";" ", " names "${names}")
      message(FATAL_ERROR "${caller}: several gpu_topology_generate() calls (${names}); say which with FOR <name>")
    endif()
    set(for "${names}")
  elseif(NOT for IN_LIST names)
    string(REPLACE ";" ", " names "${names}")
    message(FATAL_ERROR "${caller}: no gpu_topology_generate() call is named '${for}' (${names})")
  endif()
  set(${out_var} GPUTopology_${for} PARENT_SCOPE)
endfunction()

function(_gpu_topology_known_quantity target quantity caller)
  get_target_property(known ${target} GPU_TOPOLOGY_QUANTITIES)
  if(caller STREQUAL "gpu_topology_get")
    list(APPEND known DEVICE_NAME DEVICE_UUID PROFILE_SOURCE PROFILE_HASH)
  endif()
  if(NOT quantity IN_LIST known)
    string(REPLACE ";" ", " known "${known}")
    message(FATAL_ERROR "${caller}: unknown quantity '${quantity}'; known: ${known}")
  endif()
endfunction()

function(gpu_topology_get out_var quantity)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "FOR" "")
  _gpu_topology_target("${ARG_FOR}" gpu_topology_get target)
  _gpu_topology_known_quantity(${target} "${quantity}" gpu_topology_get)
  get_target_property(value ${target} GPU_TOPOLOGY_${quantity})
  get_target_property(why ${target} GPU_TOPOLOGY_${quantity}_UNMEASURED)
  get_target_property(lower ${target} GPU_TOPOLOGY_${quantity}_IS_LOWER_BOUND)
  get_target_property(doubt ${target} GPU_TOPOLOGY_${quantity}_DOUBT)
  foreach(property why lower doubt)  # unset properties read as <name>-NOTFOUND
    if(NOT ${property})
      set(${property} "")
    endif()
  endforeach()
  set(${out_var} "${value}" PARENT_SCOPE)
  set(${out_var}_UNMEASURED "${why}" PARENT_SCOPE)
  set(${out_var}_IS_LOWER_BOUND "${lower}" PARENT_SCOPE)
  set(${out_var}_DOUBT "${doubt}" PARENT_SCOPE)
endfunction()

function(gpu_topology_require)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FOR" "")
  list(LENGTH ARG_UNPARSED_ARGUMENTS count)
  if(NOT count EQUAL 3)
    message(FATAL_ERROR "gpu_topology_require([FOR <name>] <QUANTITY> <operator> <value>): got '${ARGV}'")
  endif()
  list(GET ARG_UNPARSED_ARGUMENTS 0 quantity)
  list(GET ARG_UNPARSED_ARGUMENTS 1 op)
  list(GET ARG_UNPARSED_ARGUMENTS 2 value)
  _gpu_topology_target("${ARG_FOR}" gpu_topology_require target)
  _gpu_topology_known_quantity(${target} "${quantity}" gpu_topology_require)
  set(ops LESS LESS_EQUAL EQUAL GREATER_EQUAL GREATER)
  if(NOT op IN_LIST ops)
    message(FATAL_ERROR "gpu_topology_require: '${op}' is not one of ${ops}")
  endif()
  if(NOT value MATCHES "^[0-9]+$")
    message(FATAL_ERROR "gpu_topology_require: '${value}' is not a whole number")
  endif()
  get_target_property(actual ${target} GPU_TOPOLOGY_${quantity})
  get_target_property(device ${target} GPU_TOPOLOGY_DEVICE_NAME)
  get_target_property(source ${target} GPU_TOPOLOGY_PROFILE_SOURCE)
  get_target_property(bound ${target} GPU_TOPOLOGY_${quantity}_IS_LOWER_BOUND)
  get_target_property(doubt ${target} GPU_TOPOLOGY_${quantity}_DOUBT)
  if(actual STREQUAL "")
    get_target_property(why ${target} GPU_TOPOLOGY_${quantity}_UNMEASURED)
    message(FATAL_ERROR "GPUTopology: requirement ${quantity} ${op} ${value} cannot be checked: "
                        "${quantity} was not measured on ${device} (${why})")
  endif()
  set(shown "${actual}")
  if(bound)
    set(shown "at least ${actual}")
    # Only a lower bound is known: it settles GREATER(_EQUAL) when it already meets it, nothing else.
    if(NOT ((op STREQUAL "GREATER_EQUAL" OR op STREQUAL "GREATER") AND actual ${op} value))
      message(FATAL_ERROR "GPUTopology: requirement ${quantity} ${op} ${value} cannot be decided: ${device} has "
                          "${quantity} of at least ${actual}, a lower bound (profile: ${source})")
    endif()
  elseif(NOT actual ${op} value)
    message(FATAL_ERROR "GPUTopology: requirement not met: ${quantity} ${op} ${value}, but ${device} has "
                        "${quantity} = ${actual} (profile: ${source})")
  endif()
  if(doubt)
    message(WARNING "GPUTopology: requirement ${quantity} ${op} ${value} rests on a value not vouched for: ${doubt}")
  endif()
  message(STATUS "GPUTopology: requirement met: ${quantity} = ${shown} ${op} ${value}")
endfunction()

# CTest tests for CI on GPU runners (label gpu; skipped without a GPU):
#   <prefix>identity  the runner's GPU is the model the header describes
#   <prefix>remeasure a fresh measurement agrees with the header's profile
# They run GPUTopologyCheck.cmake, which uses an installed probe or builds one
# when the tests run (a configure compiles nothing for them).
function(gpu_topology_add_tests)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FOR;PREFIX;DEVICE" "")
  _gpu_topology_target("${ARG_FOR}" gpu_topology_add_tests target)
  if(NOT DEFINED ARG_PREFIX)
    string(REGEX REPLACE "^GPUTopology_" "" name "${target}")
    set(ARG_PREFIX "gpu_topology.${name}.")
  endif()
  get_target_property(generated_for ${target} GPU_TOPOLOGY_DEVICE)
  if(NOT DEFINED ARG_DEVICE)
    set(ARG_DEVICE "${generated_for}")
  elseif(generated_for STREQUAL "ALL" AND NOT ARG_DEVICE STREQUAL "ALL")
    message(FATAL_ERROR "gpu_topology_add_tests: ${target} describes every device (DEVICES ALL); its tests check "
                        "every device, so DEVICE ${ARG_DEVICE} does not apply")
  endif()
  if(NOT ARG_DEVICE MATCHES "^([0-9]+|ALL)$")
    message(FATAL_ERROR "gpu_topology_add_tests: DEVICE '${ARG_DEVICE}' is not a device index (or ALL)")
  endif()
  get_target_property(profile ${target} GPU_TOPOLOGY_PROFILE_FILE)
  set(probe "${GPU_TOPOLOGY_PROBE_EXECUTABLE}")
  if(NOT probe AND TARGET GPUTopology::gpu-topology-probe AND GPU_TOPOLOGY_PROBE_HAS_CUDA)
    get_target_property(imported GPUTopology::gpu-topology-probe IMPORTED)
    if(imported)
      _gpu_topology_probe(measures probe)
    endif()
  endif()
  set(arguments -DGPU_TOPOLOGY_PACKAGE_DIR=${GPU_TOPOLOGY_PACKAGE_DIR} -DGPU_TOPOLOGY_BUILD_ROOT=${CMAKE_BINARY_DIR}
                -DPROBE=${probe} -DPROFILE=${profile} -DDEVICE=${ARG_DEVICE}
                -DCMAKE_GENERATOR=${CMAKE_GENERATOR} -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
  foreach(variable CMAKE_GENERATOR_PLATFORM CMAKE_GENERATOR_TOOLSET CMAKE_CUDA_COMPILER CMAKE_CUDA_HOST_COMPILER
                   CMAKE_CUDA_ARCHITECTURES CUDAToolkit_ROOT)
    if(DEFINED ${variable} AND NOT "${${variable}}" STREQUAL "")
      list(APPEND arguments "-D${variable}=${${variable}}")
    endif()
  endforeach()
  foreach(mode identity remeasure)
    add_test(NAME ${ARG_PREFIX}${mode}
             COMMAND "${CMAKE_COMMAND}" ${arguments} -DMODE=${mode} -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GPUTopologyCheck.cmake")
    set_tests_properties(${ARG_PREFIX}${mode} PROPERTIES LABELS gpu RESOURCE_LOCK gpu_topology_gpu TIMEOUT 900
                                                         SKIP_REGULAR_EXPRESSION "GPU_TOPOLOGY_SKIPPED")
  endforeach()
endfunction()

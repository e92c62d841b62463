# GPUTopology: the memory hierarchy of this machine's GPU, measured at configure
# time (or read from a stored profile), as gpu_topology.hpp.
#
#   gpu_topology_generate([NAME n] [TARGET t...] [SCOPE PRIVATE|PUBLIC|INTERFACE] [DEVICE i | DEVICES ALL]
#                         [PROFILE name|path] [OUTPUT_DIR d])
#       Probes the GPU (or uses a stored profile), writes <d>/gpu_topology.hpp and
#       creates the INTERFACE target GPUTopology::<n> that puts it on the include
#       path, and links it to each TARGET in SCOPE (default PRIVATE; INTERFACE for an
#       interface or imported library), in the build tree only. NAME defaults to the
#       first TARGET made a C identifier (my-kernels: my_kernels), or "header". Each
#       call owns its name, output directory, header and values; anything wrong with
#       them stops the configure before anything is written. A first configure that
#       measures builds the probe for the GPUs here (machine code for them, whatever
#       the project's CMAKE_CUDA_ARCHITECTURES); a re-configure builds and measures nothing.
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
#       For DEVICES ALL, per device, each on the GPU CTest hands it (docs/ci.md):
#       the measurement wrote a CTest resource spec file of the node's GPUs and made
#       it CTEST_RESOURCE_SPEC_FILE.
#   gpu_topology_test_resources(TEST t [GPUS n] [SLOTS s])
#       The project's own test asks CTest for n GPUs (RESOURCE_GROUPS); it reads the
#       one it got with gpu_topology::ctest_device().
#   FOR may be left out while a project has made one gpu_topology_generate call.
#
# Internal functions (_gpu_topology_*) take keyword arguments and set the variables
# their caller names (RESULT, or PREFIX_<FIELD>) with return(PROPAGATE).
#
# A configure prints a few lines (the probe's build and run with their times, the
# headline facts, the header); --log-level=VERBOSE shows every stage and the whole table.
#
# Cache variables (documented in README.md):
#   GPU_TOPOLOGY_PROFILE, GPU_TOPOLOGY_DEVICE, GPU_TOPOLOGY_REPROBE, GPU_TOPOLOGY_ON_NO_GPU,
#   GPU_TOPOLOGY_ON_BUSY_GPU, GPU_TOPOLOGY_PROBE_TIMEOUT, GPU_TOPOLOGY_LEVEL, GPU_TOPOLOGY_TIME_BUDGET,
#   GPU_TOPOLOGY_DEFAULT_PROFILE, GPU_TOPOLOGY_PROBE_EXECUTABLE, GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES,
#   GPU_TOPOLOGY_HOST_CXX_COMPILER, GPU_TOPOLOGY_LOCK_DIR, GPU_TOPOLOGY_SLOTS_PER_GPU, GPU_TOPOLOGY_CACHE,
#   GPU_TOPOLOGY_CACHE_DIR, GPU_TOPOLOGY_NINJA
include_guard(GLOBAL)
# The functions keep the policies of CMake 3.25 (return(PROPAGATE), ...) whatever the
# project that includes this file asks for: a function runs with those it was defined under.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)
# A keyword given "" leaves its variable of cmake_parse_arguments undefined, as in 3.25, on every
# CMake (3.31 and later warn every configure where the policy is not set, CMP0174).
if(POLICY CMP0174)
  cmake_policy(SET CMP0174 OLD)
endif()

# Where include/, templates/, generated/ (and probe/ in a source tree) live:
# the source tree this file is in, or share/GPUTopology in an install (the
# package config passes it, and the installed probe). Global properties, found
# again at every configure: never cache entries, which would outlive a moved
# source tree or a switch between find_package and add_subdirectory, and never
# directory variables, which a find_package in a subdirectory would hide from
# the functions called elsewhere.
unset(GPU_TOPOLOGY_PACKAGE_DIR CACHE)  # cache entries of earlier versions
unset(GPU_TOPOLOGY_INCLUDE_DIR CACHE)
if(NOT DEFINED GPU_TOPOLOGY_PACKAGE_DIR)
  get_filename_component(GPU_TOPOLOGY_PACKAGE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
if(NOT DEFINED GPU_TOPOLOGY_INCLUDE_DIR)
  set(GPU_TOPOLOGY_INCLUDE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}/include")
endif()
set_property(GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR "${GPU_TOPOLOGY_PACKAGE_DIR}")
set_property(GLOBAL PROPERTY GPU_TOPOLOGY_INCLUDE_DIR "${GPU_TOPOLOGY_INCLUDE_DIR}")
# An installed probe (the package config imported it just now): its file, and whether it measures.
function(_gpu_topology_record_installed_probe)
  set_property(GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE "")
  if(NOT TARGET GPUTopology::gpu-topology-probe)
    return()
  endif()
  get_target_property(imported GPUTopology::gpu-topology-probe IMPORTED)
  if(NOT imported)
    return()  # the package's own build (add_subdirectory): a target, not a file to run at configure time
  endif()
  get_target_property(configurations GPUTopology::gpu-topology-probe IMPORTED_CONFIGURATIONS)
  set(location "")
  if(configurations)
    list(GET configurations 0 configuration)
    string(TOUPPER "${configuration}" configuration)
    get_target_property(location GPUTopology::gpu-topology-probe IMPORTED_LOCATION_${configuration})
  endif()
  if(NOT location)
    get_target_property(location GPUTopology::gpu-topology-probe IMPORTED_LOCATION)
  endif()
  set_property(GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE "${location}")
  set_property(GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE_MEASURES "${GPU_TOPOLOGY_PROBE_HAS_CUDA}")
endfunction()
_gpu_topology_record_installed_probe()

set(GPU_TOPOLOGY_PROFILE "" CACHE STRING "Stored profile to use instead of probing (name or path)")
set(GPU_TOPOLOGY_DEVICE 0 CACHE STRING "CUDA device index to probe")
option(GPU_TOPOLOGY_REPROBE "Measure again even when a cached profile matches this GPU" OFF)
option(GPU_TOPOLOGY_CACHE "Share measurements and built probes with this user's other build trees (also the environment variable)" ON)
set(GPU_TOPOLOGY_CACHE_DIR "" CACHE PATH
    "This user's cache of measurements and probes (empty: the environment variable, else XDG_CACHE_HOME or ~/.cache, gpu-topology/)")
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
set(GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES "" CACHE STRING
    "CUDA architectures to build the measuring probe for besides those of the GPUs here (never instead of them)")
set(GPU_TOPOLOGY_HOST_CXX_COMPILER "" CACHE FILEPATH
    "When cross-compiling: the host C++ compiler that builds the probe which renders a profile (empty: the default one)")
set(GPU_TOPOLOGY_NINJA ON CACHE STRING
    "A Unix Makefiles project's probe is built with Ninja: ON (one on PATH), OFF (make) or the path of a Ninja")
set(GPU_TOPOLOGY_LOCK_DIR "" CACHE PATH
    "Where the per-GPU locks of this user's probes are (empty: XDG_CACHE_HOME or ~/.cache, gpu-topology/)")
set(GPU_TOPOLOGY_SLOTS_PER_GPU 1 CACHE STRING
    "CTest resource slots of each GPU in the resource spec file a DEVICES ALL measurement writes")

include("${CMAKE_CURRENT_LIST_DIR}/GPUTopologyProbe.cmake")

# --- options ---------------------------------------------------------------------

# RESULT: the value of the policy VARIABLE, lower case; one that is not ALLOWED (a typo) stops the configure.
function(_gpu_topology_policy)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "VARIABLE;RESULT" "ALLOWED")
  string(TOLOWER "${${ARG_VARIABLE}}" ${ARG_RESULT})
  if(NOT ${ARG_RESULT} IN_LIST ARG_ALLOWED)
    string(REPLACE ";" ", " choices "${ARG_ALLOWED}")
    message(FATAL_ERROR "GPUTopology: ${ARG_VARIABLE} is '${${ARG_VARIABLE}}'; use one of ${choices} (any case)")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the probe's arguments from the options (level, time budget), checked with its timeout.
function(_gpu_topology_probe_arguments)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  _gpu_topology_policy(VARIABLE GPU_TOPOLOGY_LEVEL ALLOWED full quick RESULT level)
  set(${ARG_RESULT} --level ${level})
  if(NOT GPU_TOPOLOGY_TIME_BUDGET STREQUAL "")
    if(NOT GPU_TOPOLOGY_TIME_BUDGET MATCHES "^[0-9]+([.][0-9]+)?$" OR GPU_TOPOLOGY_TIME_BUDGET MATCHES "^0*([.]0*)?$")
      message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_TIME_BUDGET is '${GPU_TOPOLOGY_TIME_BUDGET}'; "
                          "use a positive number of seconds, or leave it empty for no limit")
    endif()
    list(APPEND ${ARG_RESULT} --budget "${GPU_TOPOLOGY_TIME_BUDGET}")
  endif()
  if(NOT GPU_TOPOLOGY_PROBE_TIMEOUT MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_PROBE_TIMEOUT is '${GPU_TOPOLOGY_PROBE_TIMEOUT}'; use whole seconds")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: a probe that measures (PURPOSE measures) or one that only renders (renders):
# GPU_TOPOLOGY_PROBE_EXECUTABLE, the installed one when it can, else one built here
# (for the CUDA ARCHITECTURES of the GPUs here, when it measures), once per configure.
function(_gpu_topology_probe)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PURPOSE;RESULT" "ARCHITECTURES")
  set(${ARG_RESULT} "${GPU_TOPOLOGY_PROBE_EXECUTABLE}")
  if(NOT GPU_TOPOLOGY_PROBE_EXECUTABLE)
    get_property(${ARG_RESULT} GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_${ARG_PURPOSE})
  endif()
  if(NOT ${ARG_RESULT} AND ARG_PURPOSE STREQUAL "renders")
    get_property(${ARG_RESULT} GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_measures)  # a probe that measures renders too
  endif()
  if(${ARG_RESULT})
    return(PROPAGATE ${ARG_RESULT})
  endif()
  get_property(exe GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE)
  get_property(measures GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE_MEASURES)
  if(ARG_PURPOSE STREQUAL "measures" AND NOT measures)
    set(exe "")  # installed without CUDA: it cannot measure
  endif()
  if(NOT exe AND ARG_PURPOSE STREQUAL "measures")
    _gpu_topology_build_probe(KIND measure RESULT exe ARCHITECTURES ${ARG_ARCHITECTURES})
  elseif(NOT exe)
    _gpu_topology_build_probe(KIND render RESULT exe)
  endif()
  set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_${ARG_PURPOSE} "${exe}")
  set(${ARG_RESULT} "${exe}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# --- profiles ----------------------------------------------------------------------

# RESULT: the absolute path of the existing profile SPEC names: a stored one
# (generated/profiles/<name>.json) or a file (relative to the calling source dir).
function(_gpu_topology_resolve_profile)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "SPEC;RESULT" "")
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  set(stored "${package_dir}/generated/profiles")
  get_filename_component(path "${ARG_SPEC}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_SPEC MATCHES "^[A-Za-z0-9_.-]+$" AND EXISTS "${stored}/${ARG_SPEC}.json")
    set(${ARG_RESULT} "${stored}/${ARG_SPEC}.json")
  elseif(EXISTS "${path}" AND NOT IS_DIRECTORY "${path}")
    set(${ARG_RESULT} "${path}")
  else()
    file(GLOB known RELATIVE "${stored}" "${stored}/*.json")
    string(REPLACE ".json" "" known "${known}")
    string(REPLACE ";" ", " known "${known}")
    message(FATAL_ERROR "GPUTopology: profile '${ARG_SPEC}' is neither a file (${path}) nor a stored profile (${known})")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the package's stored profile of the GPU model DEVICE_NAME, or "".
function(_gpu_topology_stored_profile_of)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DEVICE_NAME;RESULT" "")
  set(${ARG_RESULT} "")
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  file(GLOB stored "${package_dir}/generated/profiles/*.json")
  foreach(candidate IN LISTS stored)
    file(READ "${candidate}" text LIMIT 1048576)
    string(JSON stored_name ERROR_VARIABLE not_json GET "${text}" device name)
    if(NOT not_json AND stored_name STREQUAL ARG_DEVICE_NAME)
      set(${ARG_RESULT} "${candidate}")
      break()
    endif()
  endforeach()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: where this user's per-GPU locks are. Per user, because a lock file in a
# directory every user shares (/tmp) is created by the first user and cannot be
# opened by the next one (CMake opens it for writing; a sticky /tmp and
# fs.protected_regular forbid even that on a file mode 0666), and a world-writable
# directory without the sticky bit lets any user swap a lock for a link to another
# user's file, which file(LOCK) would then truncate. Probes of one GPU by two users
# are not kept apart by it; each sees the other's work as other work on the GPU
# (the probe's monitors), which is measured again or not vouched for, and not cached.
# GPU_TOPOLOGY_LOCK_DIR, else the user's own directory (XDG_CACHE_HOME or ~/.cache,
# /gpu-topology: GPUTopologyCache.cmake), else, when none of these can hold a lock, this
# build tree: then only its own configures wait.
function(_gpu_topology_lock_dir)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  _gpu_topology_user_dirs(PREFIX dirs)
  set(${ARG_RESULT} "${dirs_LOCKS}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the probe's arguments for DEVICE: --device N, or --all-devices for ALL.
function(_gpu_topology_device_arguments)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DEVICE;RESULT" "")
  set(${ARG_RESULT} --device "${ARG_DEVICE}")
  if(ARG_DEVICE STREQUAL "ALL")
    set(${ARG_RESULT} --all-devices)
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Who PROBE finds at DEVICE (an index or ALL), after PREFIX: _NO_GPU why there is none
# usable ("" when there is); else _IDENTITY its JSON, _UUIDS every device's UUID, _NAME
# the model, _WHAT for messages. A GPU that is there but cannot be probed stops the configure.
function(_gpu_topology_identify)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROBE;DEVICE;PREFIX" "")
  set(out ${ARG_PREFIX}_NO_GPU ${ARG_PREFIX}_IDENTITY ${ARG_PREFIX}_UUIDS ${ARG_PREFIX}_NAME ${ARG_PREFIX}_WHAT)
  foreach(variable IN LISTS out)
    set(${variable} "")
  endforeach()
  _gpu_topology_device_arguments(DEVICE "${ARG_DEVICE}" RESULT which)
  execute_process(COMMAND "${ARG_PROBE}" identity ${which}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE identity ERROR_VARIABLE why TIMEOUT 120)
  string(STRIP "${why}" why)
  if(rc EQUAL 77)
    set(${ARG_PREFIX}_NO_GPU "device ${ARG_DEVICE}: ${why}")
    return(PROPAGATE ${out})
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "GPUTopology: a GPU is present, but device ${ARG_DEVICE} cannot be probed (${rc}): ${why}\n"
                        "Set GPU_TOPOLOGY_DEVICE to another device, or choose a stored profile with GPU_TOPOLOGY_PROFILE.")
  endif()
  set(${ARG_PREFIX}_IDENTITY "${identity}")
  if(ARG_DEVICE STREQUAL "ALL")  # a list of identities
    string(JSON count LENGTH "${identity}")
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON uuid GET "${identity}" ${i} uuid)
      list(APPEND ${ARG_PREFIX}_UUIDS "${uuid}")
    endforeach()
    string(JSON ${ARG_PREFIX}_NAME GET "${identity}" 0 name)
    set(${ARG_PREFIX}_WHAT "${count} devices")
    if(count EQUAL 1)
      set(${ARG_PREFIX}_WHAT "1 device")
    endif()
  else()
    string(JSON ${ARG_PREFIX}_UUIDS GET "${identity}" uuid)
    string(JSON ${ARG_PREFIX}_NAME GET "${identity}" name)
    set(${ARG_PREFIX}_WHAT "device ${ARG_DEVICE}, ${${ARG_PREFIX}_UUIDS}")
  endif()
  return(PROPAGATE ${out})
endfunction()

# RESULT: whether this build tree's measurement PROFILE is there, valid (by PROBE) and
# not to be measured again (GPU_TOPOLOGY_REPROBE); a corrupt one is removed, with a warning.
function(_gpu_topology_cached_measurement)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROBE;PROFILE;NAME;RESULT" "")
  set(${ARG_RESULT} FALSE)
  if(NOT EXISTS "${ARG_PROFILE}" OR GPU_TOPOLOGY_REPROBE)
    return(PROPAGATE ${ARG_RESULT})
  endif()
  execute_process(COMMAND "${ARG_PROBE}" validate "${ARG_PROFILE}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE why)
  if(rc EQUAL 0)
    message(STATUS "GPUTopology: ${ARG_NAME}: this build tree's measurement (GPU_TOPOLOGY_REPROBE=ON measures again)")
    message(VERBOSE "GPUTopology: the measurement: ${ARG_PROFILE}")
    set(${ARG_RESULT} TRUE)
  else()
    string(STRIP "${why}" why)
    message(WARNING "GPUTopology: the cached profile is corrupt, so the GPU is measured again:\n${why}")
    file(REMOVE "${ARG_PROFILE}")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Runs PROBE on DEVICE (of model NAME, WHAT for messages) with PROBE_ARGS into MEASURING
# and, when the GPU was quiet, keeps the result as KEEP (this build tree's measurement),
# with its picture beside it. After PREFIX: _FILE the profile to render, _BUSY whether
# other work ran (then nothing is kept), _NO_GPU why the probe found no usable GPU after
# all (exit 77: a driver too old, a device that is not there; "" otherwise).
function(_gpu_topology_run_probe)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROBE;DEVICE;NAME;WHAT;MEASURING;KEEP;PREFIX" "PROBE_ARGS")
  set(${ARG_PREFIX}_FILE "")
  set(${ARG_PREFIX}_BUSY FALSE)
  set(${ARG_PREFIX}_NO_GPU "")
  set(out ${ARG_PREFIX}_FILE ${ARG_PREFIX}_BUSY ${ARG_PREFIX}_NO_GPU)
  _gpu_topology_device_arguments(DEVICE "${ARG_DEVICE}" RESULT which)
  _gpu_topology_state_dir(RESULT state)
  # A stored profile of this model tells the probe how long its reference work
  # takes on a quiet GPU, so work already running when it starts is seen too.
  _gpu_topology_stored_profile_of(DEVICE_NAME "${ARG_NAME}" RESULT quiet_reference)
  if(quiet_reference)
    list(APPEND ARG_PROBE_ARGS --quiet-reference "${quiet_reference}")
  endif()
  # Each stage's progress shows with --log-level=VERBOSE, and in full when the probe fails.
  # The probe writes its profile atomically, so an interrupted run leaves none.
  _gpu_topology_now(RESULT start)
  message(CHECK_START "GPUTopology: probing ${ARG_NAME} (${ARG_WHAT})")
  _gpu_topology_run(RUN "${state}/probe-run" TIMEOUT "${GPU_TOPOLOGY_PROBE_TIMEOUT}" PREFIX step
                    COMMAND "${ARG_PROBE}" probe ${which} --output "${ARG_MEASURING}" ${ARG_PROBE_ARGS})
  _gpu_topology_seconds_since(START ${start} RESULT took)
  if(step_RC EQUAL 3)
    # Measured while other work ran: used for this configure, never cached, so the next one measures again.
    message(CHECK_PASS "done, while other work ran (${took})")
    set(${ARG_PREFIX}_FILE "${ARG_MEASURING}")
    set(${ARG_PREFIX}_BUSY TRUE)
  elseif(step_RC EQUAL 77)
    message(CHECK_FAIL "no usable GPU")
    string(STRIP "${step_LOG}" step_LOG)
    set(${ARG_PREFIX}_NO_GPU "device ${ARG_DEVICE}: ${step_LOG}")
  elseif(NOT step_RC EQUAL 0)
    message(CHECK_FAIL "failed")
    file(REMOVE "${ARG_MEASURING}")
    if(step_RC STREQUAL "timeout")
      set(step_RC "stopped after GPU_TOPOLOGY_PROBE_TIMEOUT=${GPU_TOPOLOGY_PROBE_TIMEOUT} s")
    endif()
    message(FATAL_ERROR "GPUTopology: the probe failed (${step_RC}). Nothing was cached; the next configure "
                        "measures again. What it printed:\n${step_LOG}")
  else()
    message(CHECK_PASS "done (${took})")
    # The probe draws the hierarchy beside its profile: both are kept.
    foreach(extension json svg)
      string(REGEX REPLACE "\\.json$" ".${extension}" from "${ARG_MEASURING}")
      string(REGEX REPLACE "\\.json$" ".${extension}" to "${ARG_KEEP}")
      if(EXISTS "${from}")
        file(RENAME "${from}" "${to}")
      endif()
    endforeach()
    set(${ARG_PREFIX}_FILE "${ARG_KEEP}")
  endif()
  return(PROPAGATE ${out})
endfunction()

# Measures DEVICE (an index, or ALL: every device and the links between them, into one
# node profile) with the probe built for ARCHITECTURES, or reuses a measurement of the
# same devices, driver and settings, probe and options (PROBE_ARGS): this build tree's,
# else one this user's cache keeps. After PREFIX, as _gpu_topology_run_probe: _FILE,
# _BUSY, _NO_GPU (the caller's policy decides).
function(_gpu_topology_measure)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DEVICE;PREFIX" "PROBE_ARGS;ARCHITECTURES")
  set(out ${ARG_PREFIX}_FILE ${ARG_PREFIX}_BUSY ${ARG_PREFIX}_NO_GPU)
  _gpu_topology_probe(PURPOSE measures RESULT probe ARCHITECTURES ${ARG_ARCHITECTURES})
  _gpu_topology_identify(PROBE "${probe}" DEVICE "${ARG_DEVICE}" PREFIX gpu)
  if(NOT gpu_NO_GPU STREQUAL "")
    set(${ARG_PREFIX}_FILE "")
    set(${ARG_PREFIX}_BUSY FALSE)
    set(${ARG_PREFIX}_NO_GPU "${gpu_NO_GPU}")
    return(PROPAGATE ${out})
  endif()
  # The key: the devices' identity (model, UUIDs, SMs, CUDA driver and runtime, probe
  # version), what nvidia-smi says changes a measurement (driver version, MIG and ECC
  # modes, application clocks, power limit), which devices, and what was asked. Without
  # nvidia-smi's word the cache is not used: a measurement is then this build tree's alone.
  _gpu_topology_device_arguments(DEVICE "${ARG_DEVICE}" RESULT which)
  _gpu_topology_gpu_settings(UUIDS ${gpu_UUIDS} PREFIX settings)
  string(SHA256 key "${gpu_IDENTITY};${settings_ROWS};${which};${ARG_PROBE_ARGS}")
  string(SUBSTRING "${key}" 0 24 key)
  _gpu_topology_cache_dir(RESULT cache)
  if(NOT cache STREQUAL "" AND NOT settings_WHY STREQUAL "")
    message(VERBOSE "GPUTopology: the cache is not used for ${gpu_WHAT}: ${settings_WHY}")
    set(cache "")
  endif()
  _gpu_topology_measure_locked(PROBE "${probe}" DEVICE "${ARG_DEVICE}" IDENTITY "${gpu_IDENTITY}" NAME "${gpu_NAME}"
                               WHAT "${gpu_WHAT}" KEY ${key} CACHE "${cache}" PREFIX ${ARG_PREFIX}
                               UUIDS ${gpu_UUIDS} PROBE_ARGS ${ARG_PROBE_ARGS})
  return(PROPAGATE ${out})
endfunction()

# _gpu_topology_measure once it knows the devices (IDENTITY, their UUIDS, NAME, WHAT) and the
# KEY: holds their locks (GUARD FUNCTION: until this returns); reuses this build tree's
# measurement, else the one the cache CACHE keeps ("": none), else measures with PROBE and
# PROBE_ARGS and, when the GPU was quiet, lets the cache keep it. After PREFIX: as _gpu_topology_measure.
function(_gpu_topology_measure_locked)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROBE;DEVICE;IDENTITY;NAME;WHAT;KEY;CACHE;PREFIX" "UUIDS;PROBE_ARGS")
  set(out ${ARG_PREFIX}_FILE ${ARG_PREFIX}_BUSY ${ARG_PREFIX}_NO_GPU)
  # Configures on one machine never measure one GPU at the same time, in one
  # order everywhere (sorted), so two that lock several never wait on each other
  # in a circle.
  _gpu_topology_lock_dir(RESULT lock_dir)
  set(uuids ${ARG_UUIDS})
  list(SORT uuids)
  foreach(uuid IN LISTS uuids)
    _gpu_topology_lock_file(DIRECTORY "${lock_dir}" UUID "${uuid}" RESULT lock)
    if(NOT lock STREQUAL "")
      file(LOCK "${lock}" GUARD FUNCTION TIMEOUT "${GPU_TOPOLOGY_PROBE_TIMEOUT}" RESULT_VARIABLE locked)
      if(NOT locked EQUAL 0)
        message(FATAL_ERROR "GPUTopology: waited ${GPU_TOPOLOGY_PROBE_TIMEOUT} s for another probe of ${uuid} "
                            "(${lock}): ${locked}")
      endif()
    endif()
  endforeach()
  _gpu_topology_state_dir(RESULT state)
  set(profile "${state}/profile-${ARG_KEY}.json")
  set(${ARG_PREFIX}_FILE "${profile}")
  set(${ARG_PREFIX}_BUSY FALSE)
  set(${ARG_PREFIX}_NO_GPU "")
  _gpu_topology_cached_measurement(PROBE "${ARG_PROBE}" PROFILE "${profile}" NAME "${ARG_NAME}" RESULT reused)
  if(NOT reused AND NOT "${ARG_CACHE}" STREQUAL "" AND NOT GPU_TOPOLOGY_REPROBE)
    list(FIND ARG_PROBE_ARGS --level at)
    math(EXPR at "${at} + 1")
    list(GET ARG_PROBE_ARGS ${at} level)
    _gpu_topology_cache_take(DIRECTORY "${ARG_CACHE}" KEY ${ARG_KEY} PROBE "${ARG_PROBE}" IDENTITY "${ARG_IDENTITY}"
                             DEVICE "${ARG_DEVICE}" LEVEL ${level} PROFILE "${profile}" NAME "${ARG_NAME}"
                             RESULT reused)
  endif()
  if(reused)
    return(PROPAGATE ${out})
  endif()
  _gpu_topology_run_probe(PROBE "${ARG_PROBE}" DEVICE "${ARG_DEVICE}" NAME "${ARG_NAME}" WHAT "${ARG_WHAT}"
                          MEASURING "${state}/measuring-${ARG_KEY}.json" KEEP "${profile}" PREFIX ${ARG_PREFIX}
                          PROBE_ARGS ${ARG_PROBE_ARGS})
  if(NOT "${ARG_CACHE}" STREQUAL "" AND NOT ${ARG_PREFIX}_BUSY AND ${ARG_PREFIX}_NO_GPU STREQUAL "")
    _gpu_topology_cache_keep(DIRECTORY "${ARG_CACHE}" KEY ${ARG_KEY} PROFILE "${${ARG_PREFIX}_FILE}")
  endif()
  return(PROPAGATE ${out})
endfunction()

# RESULT: the lock file of the GPU UUID in DIRECTORY, made if need be, or "" (with a
# warning) when it cannot be: file(LOCK) stops the configure when it cannot create the
# file, so a child process tries that first.
function(_gpu_topology_lock_file)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;UUID;RESULT" "")
  string(MAKE_C_IDENTIFIER "${ARG_UUID}" lock_name)
  set(${ARG_RESULT} "${ARG_DIRECTORY}/${lock_name}.lock")
  set(rc "a symbolic link or a directory")  # a link is never followed: the lock would be its target
  if(NOT IS_SYMLINK "${${ARG_RESULT}}" AND NOT IS_DIRECTORY "${${ARG_RESULT}}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E touch "${${ARG_RESULT}}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  endif()
  if(NOT rc EQUAL 0)
    message(WARNING "GPUTopology: cannot use the lock ${${ARG_RESULT}}; this probe of ${ARG_UUID} does not wait for "
                    "others (set GPU_TOPOLOGY_LOCK_DIR to a directory of yours)")
    set(${ARG_RESULT} "")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Writes INTO/gpu_topology.hpp and INTO/gpu_topology_vars.cmake from PROFILE, labelled
# SOURCE: a copy of the package's pre-rendered files for a stored profile they were
# rendered from, else the probe renders (and so validates). TABLE_VARIABLE (optional)
# gets the whole table when the probe rendered; "" otherwise.
function(_gpu_topology_render)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROFILE;SOURCE;INTO;TABLE_VARIABLE" "")
  get_filename_component(stem "${ARG_PROFILE}" NAME_WE)
  get_filename_component(profile_dir "${ARG_PROFILE}" DIRECTORY)
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  set(rendered "${package_dir}/generated/${stem}")
  set(header "${ARG_INTO}/gpu_topology.hpp")
  set(vars "${ARG_INTO}/gpu_topology_vars.cmake")
  set(table "")
  # The regenerate step (cmake/GPUTopologyRegenerate.cmake) rendered, so validated, the
  # profile whose hash it wrote beside the copies; any other profile is rendered here.
  set(rendered_from "")
  set(hash "")
  if(EXISTS "${rendered}/profile.sha256")
    file(STRINGS "${rendered}/profile.sha256" rendered_from LIMIT_COUNT 1)
    file(SHA256 "${ARG_PROFILE}" hash)
  endif()
  if(ARG_SOURCE MATCHES "^stored:" AND profile_dir STREQUAL "${package_dir}/generated/profiles"
     AND NOT rendered_from STREQUAL "" AND hash STREQUAL rendered_from
     AND EXISTS "${rendered}/gpu_topology.hpp" AND EXISTS "${rendered}/gpu_topology_vars.cmake")
    file(COPY_FILE "${rendered}/gpu_topology.hpp" "${header}" ONLY_IF_DIFFERENT)
    file(COPY_FILE "${rendered}/gpu_topology_vars.cmake" "${vars}" ONLY_IF_DIFFERENT)
  else()
    _gpu_topology_probe(PURPOSE renders RESULT probe)
    _gpu_topology_verbose(RESULT verbose)
    set(want_table "")
    if(verbose AND DEFINED ARG_TABLE_VARIABLE)
      set(want_table --table)
    endif()
    execute_process(COMMAND "${probe}" render "${ARG_PROFILE}" --header "${header}" --cmake "${vars}"
                            --source "${ARG_SOURCE}" ${want_table}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE why)
    if(NOT rc EQUAL 0)
      string(STRIP "${why}" why)
      message(FATAL_ERROR "GPUTopology: cannot use the profile: ${why}")
    endif()
  endif()
  if(DEFINED ARG_TABLE_VARIABLE)
    set(${ARG_TABLE_VARIABLE} "${table}")
    return(PROPAGATE ${ARG_TABLE_VARIABLE})
  endif()
endfunction()

# --- gpu_topology_generate: its arguments, checked before anything is written ------

# The targets TARGET names, checked: each a target here that compiles, or an imported
# library (an ALIAS counts as the target it names), each once, none with the header of
# another call, and each one that SCOPE (PRIVATE, PUBLIC or INTERFACE; "": the default)
# applies to. RESULT: the targets to link.
function(_gpu_topology_consumers)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT;SCOPE" "TARGETS")
  if(NOT "${ARG_SCOPE}" MATCHES "^(|PRIVATE|PUBLIC|INTERFACE)$")
    message(FATAL_ERROR "gpu_topology_generate: SCOPE '${ARG_SCOPE}' is not PRIVATE, PUBLIC or INTERFACE")
  endif()
  set(consumers "")
  foreach(given IN LISTS ARG_TARGETS)
    if(NOT TARGET "${given}")
      message(FATAL_ERROR "gpu_topology_generate: TARGET '${given}' is not a target here: call gpu_topology_generate "
                          "after the add_executable or add_library that makes it (an IMPORTED target: in its own "
                          "directory, or made GLOBAL)")
    endif()
    set(target "${given}")
    get_property(aliased TARGET "${given}" PROPERTY ALIASED_TARGET)
    if(NOT "${aliased}" STREQUAL "")
      set(target "${aliased}")
    endif()
    get_property(type TARGET "${target}" PROPERTY TYPE)
    get_property(imported TARGET "${target}" PROPERTY IMPORTED)
    if(NOT type MATCHES "_LIBRARY$|^EXECUTABLE$" OR (imported AND type STREQUAL "EXECUTABLE"))
      if(imported)
        set(type "imported ${type}")
      endif()
      message(FATAL_ERROR "gpu_topology_generate: TARGET '${given}' is of type ${type}: nothing of it is compiled "
                          "here, so no header can reach it")
    endif()
    if((type STREQUAL "INTERFACE_LIBRARY" OR imported) AND "${ARG_SCOPE}" MATCHES "^(PRIVATE|PUBLIC)$")
      message(FATAL_ERROR "gpu_topology_generate: TARGET '${given}' compiles nothing itself (an interface or imported "
                          "library): it can only pass the header on, SCOPE INTERFACE, not ${ARG_SCOPE}")
    endif()
    get_property(other TARGET "${target}" PROPERTY GPU_TOPOLOGY_CALL)
    if(NOT "${other}" STREQUAL "")
      message(FATAL_ERROR "gpu_topology_generate: TARGET '${given}' has the header of the call '${other}' already; "
                          "a target includes one gpu_topology.hpp")
    endif()
    list(APPEND consumers "${target}")
  endforeach()
  list(REMOVE_DUPLICATES consumers)
  set(${ARG_RESULT} "${consumers}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# The call's NAME: the one given (a C identifier), or the FIRST_TARGET made one
# (my-kernels: my_kernels), or "header"; one no earlier call took and no target
# GPUTopology_<name> or GPUTopology::<name> has. RESULT: the name.
function(_gpu_topology_call_name)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;FIRST_TARGET;RESULT" "")
  set(name "${ARG_NAME}")
  set(named_by "NAME '${name}'")
  if(name STREQUAL "" AND NOT "${ARG_FIRST_TARGET}" STREQUAL "")
    string(MAKE_C_IDENTIFIER "${ARG_FIRST_TARGET}" name)
    set(named_by "NAME '${name}' (from TARGET ${ARG_FIRST_TARGET})")
  elseif(name STREQUAL "")
    set(name header)
    set(named_by "the default NAME 'header'")
  elseif(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "gpu_topology_generate: NAME '${name}' must be a C identifier")
  endif()
  get_property(names GLOBAL PROPERTY GPU_TOPOLOGY_NAMES)
  if(name IN_LIST names)
    message(FATAL_ERROR "gpu_topology_generate: ${named_by} is used by an earlier call; give each call its own NAME")
  endif()
  foreach(taken GPUTopology_${name} GPUTopology::${name})
    if(TARGET ${taken})
      message(FATAL_ERROR "gpu_topology_generate: ${named_by} would make the target GPUTopology::${name}, but the "
                          "project has a target ${taken} already; give the call another NAME")
    endif()
  endforeach()
  set(${ARG_RESULT} "${name}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# The device a call probes, from DEVICE, DEVICES ALL or GPU_TOPOLOGY_DEVICE. RESULT: an index or ALL.
function(_gpu_topology_call_device)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DEVICE;DEVICES;RESULT" "")
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
  set(${ARG_RESULT} "${ARG_DEVICE}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# The directory a call writes its header to: OUTPUT_DIR (a relative one from the calling
# binary directory), or gpu_topology/<NAME> there. Each call owns its directory: one an
# earlier call writes to is refused, and so is a gpu_topology.hpp there that is not a
# regular file GPUTopology wrote (a link, a directory, a file of the project's own).
# RESULT: the absolute directory.
function(_gpu_topology_output_dir)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "OUTPUT_DIR;NAME;RESULT" "")
  set(dir "${ARG_OUTPUT_DIR}")
  if(dir STREQUAL "")
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/gpu_topology/${ARG_NAME}")
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  string(SHA256 key "${dir}")
  get_property(owner GLOBAL PROPERTY _GPU_TOPOLOGY_OUTPUT_DIR_${key})
  if(NOT "${owner}" STREQUAL "")
    message(FATAL_ERROR "gpu_topology_generate: OUTPUT_DIR ${dir} is the output directory of the call '${owner}'; "
                        "each call writes its own gpu_topology.hpp, so give this one (${ARG_NAME}) another")
  endif()
  set(header "${dir}/gpu_topology.hpp")
  if(EXISTS "${dir}" AND NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "gpu_topology_generate: OUTPUT_DIR ${dir} is a file, not a directory")
  elseif(IS_SYMLINK "${header}" OR IS_DIRECTORY "${header}")
    message(FATAL_ERROR "gpu_topology_generate: ${header} is a link or a directory; GPUTopology replaces only a "
                        "regular file it wrote. Remove it, or give another OUTPUT_DIR.")
  elseif(EXISTS "${header}")
    file(READ "${header}" head LIMIT 4096)
    if(NOT head MATCHES "GPU_TOPOLOGY_")
      message(FATAL_ERROR "gpu_topology_generate: ${header} is not a header GPUTopology wrote, and it is not "
                          "replaced. Remove it, or give another OUTPUT_DIR.")
    endif()
  endif()
  set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_OUTPUT_DIR_${key} "${ARG_NAME}")
  set(${ARG_RESULT} "${dir}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# --- gpu_topology_generate: the profile, what the configure says, the target --------

# The profile a call renders: one it names (on purpose: a status line), this GPU's
# measurement, or, without a usable GPU and by GPU_TOPOLOGY_ON_NO_GPU, the default
# stored one (a warning). Sets, after PREFIX: _FILE the profile; _SOURCE "measured",
# "stored:<file>" (one of the package's stored profiles) or "file:<file>" (another);
# _WHY why it is not a measurement of this machine ("" when it is); _FALLBACK whether
# it stands in for a GPU that is not there; _BUSY whether the probe saw other work.
function(_gpu_topology_choose_profile)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DEVICE;PROFILE;ON_NO_GPU;PREFIX" "PROBE_ARGS")
  set(busy FALSE)
  set(why "")
  set(fallback FALSE)
  if(NOT "${ARG_PROFILE}" STREQUAL "")
    _gpu_topology_resolve_profile(SPEC "${ARG_PROFILE}" RESULT profile)
    set(why "GPU_TOPOLOGY_PROFILE or PROFILE names it")
  else()
    _gpu_topology_gpus_here(PREFIX here)
    set(measured_NO_GPU "${here_NO_GPU}")
    if(here_NO_GPU STREQUAL "")
      _gpu_topology_measure(DEVICE "${ARG_DEVICE}" PREFIX measured PROBE_ARGS ${ARG_PROBE_ARGS}
                            ARCHITECTURES ${here_ARCHITECTURES})
      set(profile "${measured_FILE}")
      set(busy ${measured_BUSY})
    endif()
    set(no_gpu "${measured_NO_GPU}")
    if(NOT no_gpu STREQUAL "")
      if(ARG_ON_NO_GPU STREQUAL "error")
        message(FATAL_ERROR "GPUTopology: no GPU to probe (${no_gpu}) and GPU_TOPOLOGY_ON_NO_GPU=${GPU_TOPOLOGY_ON_NO_GPU}")
      endif()
      _gpu_topology_resolve_profile(SPEC "${GPU_TOPOLOGY_DEFAULT_PROFILE}" RESULT profile)
      set(why "no GPU to probe: ${no_gpu}")
      set(fallback TRUE)
    endif()
  endif()
  get_filename_component(file_name "${profile}" NAME)
  get_filename_component(profile_dir "${profile}" DIRECTORY)
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  if(why STREQUAL "")
    set(source "measured")
  elseif(profile_dir STREQUAL "${package_dir}/generated/profiles")
    set(source "stored:${file_name}")
  else()
    set(source "file:${file_name}")
  endif()
  set(${ARG_PREFIX}_FILE "${profile}")
  set(${ARG_PREFIX}_SOURCE "${source}")
  set(${ARG_PREFIX}_WHY "${why}")
  set(${ARG_PREFIX}_FALLBACK ${fallback})
  set(${ARG_PREFIX}_BUSY ${busy})
  return(PROPAGATE ${ARG_PREFIX}_FILE ${ARG_PREFIX}_SOURCE ${ARG_PREFIX}_WHY ${ARG_PREFIX}_FALLBACK ${ARG_PREFIX}_BUSY)
endfunction()

# A warning (or, by ON_BUSY, the policy GPU_TOPOLOGY_ON_BUSY_GPU, an error) when the
# rendered profile was measured while other work ran: what the profile says (a stored or
# named profile too), not only the probe's exit status (BUSY). Reads the rendered variables.
function(_gpu_topology_warn_if_busy)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "BUSY;ON_BUSY" "")
  if(NOT ARG_BUSY AND GPU_TOPOLOGY_CONDITIONS_QUIET)
    return()
  endif()
  string(REPLACE ";" ", " doubted "${GPU_TOPOLOGY_NOT_VOUCHED_FOR}")
  if(doubted STREQUAL "")
    set(doubted "(none listed)")
  endif()
  set(again "")
  if(ARG_BUSY)
    set(again " The next configure measures again.")
  endif()
  string(CONCAT text "GPUTopology: other work ran on ${GPU_TOPOLOGY_DEVICE_NAME} while it was probed; these "
                     "values are not vouched for (the header marks them, .vouched is false): ${doubted}.${again}")
  if(ARG_ON_BUSY STREQUAL "error")
    message(FATAL_ERROR "${text} GPU_TOPOLOGY_ON_BUSY_GPU=${GPU_TOPOLOGY_ON_BUSY_GPU} stops the configure.")
  endif()
  message(WARNING "${text}")
endfunction()

# What a header describes when that is not this machine's GPU, after PREFIX: _LEVEL and
# _TEXT of a message. A stored profile that stands in for a missing GPU is a WARNING
# when it is new (a first configure, another profile or reason) and one STATUS line on
# a re-configure that changed nothing (UNCHANGED); a profile the project chose is a STATUS line.
function(_gpu_topology_not_measured_notice)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;PROFILE;SOURCE;WHY;FALLBACK;UNCHANGED;PREFIX" "")
  get_filename_component(stem "${ARG_PROFILE}" NAME_WE)
  get_filename_component(file_name "${ARG_PROFILE}" NAME)
  set(level STATUS)
  if(ARG_FALLBACK AND ARG_UNCHANGED)
    string(CONCAT text "gpu_topology.hpp (${ARG_NAME}) still describes the stored profile ${file_name}, not a GPU measured "
             "here (${ARG_WHY}; -DGPU_TOPOLOGY_PROFILE=${stem} chooses it on purpose)")
  elseif(ARG_FALLBACK)
    set(level WARNING)
    string(CONCAT text "gpu_topology.hpp (${ARG_NAME}) describes the GPU of the stored profile ${file_name}, not one measured "
             "here (${ARG_WHY}). -DGPU_TOPOLOGY_PROFILE=${stem} chooses it on purpose and silences this warning; "
             "-DGPU_TOPOLOGY_ON_NO_GPU=error stops the configure instead.")
  else()
    set(what "the profile file")
    if(ARG_SOURCE MATCHES "^stored:")
      set(what "the stored profile")
    endif()
    string(CONCAT text "gpu_topology.hpp (${ARG_NAME}) describes the GPU of ${what} ${ARG_PROFILE}, not one measured here "
             "(${ARG_WHY}): gpu_topology::identity.stored is true, and gpu_topology_add_tests() fails on a GPU "
             "that differs from it.")
  endif()
  set(${ARG_PREFIX}_LEVEL ${level})
  set(${ARG_PREFIX}_TEXT "GPUTopology: ${text}")
  return(PROPAGATE ${ARG_PREFIX}_LEVEL ${ARG_PREFIX}_TEXT)
endfunction()

# Whether a call shows what it showed at the last configure of the tree (SHOWN: the
# profile's hash, source, output directory and why it is not measured here), and its
# header is still there. RESULT: TRUE or FALSE.
function(_gpu_topology_unchanged)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "STATE;SHOWN;HEADER;RESULT" "")
  set(${ARG_RESULT} FALSE)
  if(EXISTS "${ARG_STATE}/shown.txt" AND EXISTS "${ARG_HEADER}")
    file(READ "${ARG_STATE}/shown.txt" shown_before)
    if(shown_before STREQUAL ARG_SHOWN)
      set(${ARG_RESULT} TRUE)
    endif()
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: every quantity of the rendered variables, one row each, for --log-level=VERBOSE
# when no probe rendered a table (a stored profile's pre-rendered copy).
function(_gpu_topology_rows)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  set(rows "")
  foreach(q IN LISTS GPU_TOPOLOGY_QUANTITIES)
    set(value "${GPU_TOPOLOGY_${q}}")
    if(value STREQUAL "")
      set(value "unmeasured: ${GPU_TOPOLOGY_${q}_UNMEASURED}")
    elseif(GPU_TOPOLOGY_${q}_IS_LOWER_BOUND)
      set(value "at least ${value}")
    endif()
    if(NOT "${GPU_TOPOLOGY_${q}_DOUBT}" STREQUAL "")
      string(APPEND value " (not vouched for: ${GPU_TOPOLOGY_${q}_DOUBT})")
    endif()
    string(APPEND rows "\n   ${q} = ${value}")
  endforeach()
  set(${ARG_RESULT} "${rows}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# What a call says: the headline facts when its header describes another profile than
# at the last configure (not UNCHANGED: a first configure, a new measurement); every
# quantity with --log-level=VERBOSE; whether the header was written or is up to date.
# Reads the rendered variables; records SHOWN in STATE, the call's directory in the build tree.
function(_gpu_topology_report)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;PROFILE;OUTPUT_DIR;STATE;SHOWN;UNCHANGED;TABLE" "")
  _gpu_topology_verbose(RESULT verbose)
  if(verbose OR NOT ARG_UNCHANGED)
    set(summary "${GPU_TOPOLOGY_SUMMARY}")
    if(NOT verbose)
      # A node's summary lists every device and link first: by default, their count.
      string(REGEX REPLACE "^node: ([^\n]*)(\n  [^\n]*)*\n"
             "node of \\1 (each device and link: --log-level=VERBOSE): " summary "${summary}")
      string(REGEX REPLACE "^node of 1 devices " "node of 1 device " summary "${summary}")
    endif()
    string(REPLACE "\n" "\n   " summary "${summary}")
    message(STATUS "GPUTopology: ${summary}")
  endif()
  if(verbose)
    set(table "${ARG_TABLE}")
    if(table STREQUAL "")
      _gpu_topology_rows(RESULT table)
      set(table "every quantity of ${ARG_PROFILE}:${table}")
    endif()
    string(STRIP "${table}" table)
    string(REPLACE "\n" "\n   " table "${table}")
    message(VERBOSE "GPUTopology: ${table}")
  endif()
  set(header "${ARG_OUTPUT_DIR}/gpu_topology.hpp")
  if(ARG_UNCHANGED)
    message(STATUS "GPUTopology: ${header} (GPUTopology::${ARG_NAME}) is up to date")
  else()
    message(STATUS "GPUTopology: wrote ${header} (GPUTopology::${ARG_NAME})")
    file(WRITE "${ARG_STATE}/shown.txt" "${ARG_SHOWN}")
  endif()
  string(REGEX REPLACE "\\.json$" ".svg" picture "${ARG_PROFILE}")
  if(EXISTS "${picture}")
    message(VERBOSE "GPUTopology: picture: ${picture}")
  endif()
endfunction()

# The call's INTERFACE target GPUTopology::<NAME>: its header (which the build writes
# again from STAGED, the configure's copy, when it is gone), C++17 for the languages of
# the calling directory, and its values as properties (gpu_topology_get, read from the
# rendered variables). Linked to every target of CONSUMERS in SCOPE (default: PRIVATE, and
# INTERFACE for a target that compiles nothing itself), in the build tree only
# ($<BUILD_INTERFACE>): the header describes this build's GPU, so an installed or exported
# target never carries it, and install(EXPORT) of a consumer library needs nothing of it.
function(_gpu_topology_add_header_target)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;OUTPUT_DIR;STAGED;PROFILE;DEVICE;RESOURCE_SPEC;SCOPE"
                        "RESOURCE_IDS;CONSUMERS")
  set(target GPUTopology_${ARG_NAME})
  set(header "${ARG_OUTPUT_DIR}/gpu_topology.hpp")
  add_custom_command(OUTPUT "${header}" COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${ARG_STAGED}" "${header}"
                     COMMENT "GPUTopology: writing ${header} again (configure again if this fails)" VERBATIM)
  add_library(${target} INTERFACE "${header}")
  add_library(GPUTopology::${ARG_NAME} ALIAS ${target})
  get_property(include_dir GLOBAL PROPERTY GPU_TOPOLOGY_INCLUDE_DIR)
  target_include_directories(${target} INTERFACE "${ARG_OUTPUT_DIR}" "${include_dir}")
  # The header is C++17 where it is C++ or CUDA. A language that is enabled only in other
  # directories (the package's own, a source build's) has no standard to ask for here: a
  # C or CUDA-only project compiles the header without it.
  foreach(language IN ITEMS CXX CUDA)
    if(NOT "${CMAKE_${language}_COMPILE_FEATURES}" STREQUAL "")
      string(TOLOWER "${language}_std_17" standard)
      target_compile_features(${target} INTERFACE ${standard})
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES GPU_TOPOLOGY_PROFILE_FILE "${ARG_PROFILE}"
                                             GPU_TOPOLOGY_DEVICE "${ARG_DEVICE}"
                                             GPU_TOPOLOGY_RESOURCE_SPEC_FILE "${ARG_RESOURCE_SPEC}"
                                             GPU_TOPOLOGY_RESOURCE_IDS "${ARG_RESOURCE_IDS}"
                                             GPU_TOPOLOGY_QUANTITIES "${GPU_TOPOLOGY_QUANTITIES}"
                                             GPU_TOPOLOGY_RENAMED "${GPU_TOPOLOGY_RENAMED}")
  foreach(q IN LISTS GPU_TOPOLOGY_QUANTITIES ITEMS DEVICE_NAME DEVICE_UUID PROFILE_SOURCE PROFILE_HASH)
    foreach(suffix "" _UNMEASURED _IS_LOWER_BOUND _DOUBT)
      set_property(TARGET ${target} PROPERTY GPU_TOPOLOGY_${q}${suffix} "${GPU_TOPOLOGY_${q}${suffix}}")
    endforeach()
  endforeach()
  foreach(consumer IN LISTS ARG_CONSUMERS)
    get_property(type TARGET "${consumer}" PROPERTY TYPE)
    get_property(imported TARGET "${consumer}" PROPERTY IMPORTED)
    set(scope "${ARG_SCOPE}")
    if(type STREQUAL "INTERFACE_LIBRARY" OR imported)
      set(scope INTERFACE)
    elseif(scope STREQUAL "")
      set(scope PRIVATE)
    endif()
    target_link_libraries("${consumer}" ${scope} "$<BUILD_INTERFACE:GPUTopology::${ARG_NAME}>")
    set_property(TARGET "${consumer}" PROPERTY GPU_TOPOLOGY_CALL "${ARG_NAME}")
  endforeach()
endfunction()

# What a call renders (PROFILE and its SOURCE) says of the CTest resources of a node
# measured here (DEVICE ALL), after PREFIX: _FILE the resource spec file and _IDS its GPUs
# ("" for one device, or a node not measured here); it becomes CTEST_RESOURCE_SPEC_FILE.
function(_gpu_topology_node_resources)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DEVICE;PROFILE;SOURCE;PREFIX" "")
  set(${ARG_PREFIX}_FILE "")
  set(${ARG_PREFIX}_IDS "")
  if(ARG_DEVICE STREQUAL "ALL")
    if(ARG_SOURCE STREQUAL "measured")
      _gpu_topology_resource_spec(PROFILE "${ARG_PROFILE}" PREFIX ${ARG_PREFIX})
    endif()
    _gpu_topology_use_resource_spec(FILE "${${ARG_PREFIX}_FILE}")
  endif()
  return(PROPAGATE ${ARG_PREFIX}_FILE ${ARG_PREFIX}_IDS)
endfunction()

function(gpu_topology_generate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;DEVICE;DEVICES;PROFILE;OUTPUT_DIR;SCOPE" "TARGET")
  # Never if(<value>) on what the caller wrote: a NAME, a TARGET or a stray word may be "N" or "OFF".
  if(DEFINED ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gpu_topology_generate: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  # Wrong arguments and values stop the configure before anything is probed or written.
  _gpu_topology_consumers(RESULT consumers SCOPE "${ARG_SCOPE}" TARGETS ${ARG_TARGET})
  set(first_target "")
  if(NOT "${ARG_TARGET}" STREQUAL "")
    list(GET ARG_TARGET 0 first_target)
  endif()
  _gpu_topology_call_name(NAME "${ARG_NAME}" FIRST_TARGET "${first_target}" RESULT name)
  set(device_arguments "")
  foreach(keyword DEVICE DEVICES)
    if(DEFINED ARG_${keyword})
      list(APPEND device_arguments ${keyword} "${ARG_${keyword}}")
    endif()
  endforeach()
  _gpu_topology_call_device(${device_arguments} RESULT device)
  _gpu_topology_output_dir(OUTPUT_DIR "${ARG_OUTPUT_DIR}" NAME ${name} RESULT output_dir)
  _gpu_topology_policy(VARIABLE GPU_TOPOLOGY_ON_NO_GPU ALLOWED fallback error RESULT on_no_gpu)
  _gpu_topology_policy(VARIABLE GPU_TOPOLOGY_ON_BUSY_GPU ALLOWED warn error RESULT on_busy)
  _gpu_topology_probe_arguments(RESULT probe_args)
  if("${ARG_PROFILE}" STREQUAL "")
    set(ARG_PROFILE "${GPU_TOPOLOGY_PROFILE}")
  endif()

  _gpu_topology_state_dir(RESULT state)
  set(call_state "${state}/call-${name}")
  file(MAKE_DIRECTORY "${call_state}")
  _gpu_topology_choose_profile(DEVICE "${device}" PROFILE "${ARG_PROFILE}" PROBE_ARGS ${probe_args}
                               ON_NO_GPU ${on_no_gpu} PREFIX chosen)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${chosen_FILE}")
  _gpu_topology_node_resources(DEVICE ${device} PROFILE "${chosen_FILE}" SOURCE "${chosen_SOURCE}" PREFIX resources)
  # Rendered (so validated) in the build tree first: the output directory gets a header only when it is good.
  _gpu_topology_render(PROFILE "${chosen_FILE}" SOURCE "${chosen_SOURCE}" INTO "${call_state}" TABLE_VARIABLE table)
  include("${call_state}/gpu_topology_vars.cmake")  # the GPU_TOPOLOGY_* variables the steps below read
  _gpu_topology_warn_if_busy(BUSY ${chosen_BUSY} ON_BUSY ${on_busy})
  set(shown "${GPU_TOPOLOGY_PROFILE_HASH};${chosen_SOURCE};${output_dir};${chosen_WHY}")
  _gpu_topology_unchanged(STATE "${call_state}" SHOWN "${shown}" HEADER "${output_dir}/gpu_topology.hpp"
                          RESULT unchanged)
  if(NOT chosen_WHY STREQUAL "")
    _gpu_topology_not_measured_notice(NAME ${name} PROFILE "${chosen_FILE}" SOURCE "${chosen_SOURCE}"
                                      WHY "${chosen_WHY}" FALLBACK ${chosen_FALLBACK} UNCHANGED ${unchanged}
                                      PREFIX notice)
    message(${notice_LEVEL} "${notice_TEXT}")  # here, so that a warning's call stack is the project's line
  endif()
  file(MAKE_DIRECTORY "${output_dir}")
  file(COPY_FILE "${call_state}/gpu_topology.hpp" "${output_dir}/gpu_topology.hpp" ONLY_IF_DIFFERENT)
  _gpu_topology_report(NAME ${name} PROFILE "${chosen_FILE}" OUTPUT_DIR "${output_dir}" STATE "${call_state}"
                       SHOWN "${shown}" UNCHANGED ${unchanged} TABLE "${table}")
  _gpu_topology_add_header_target(NAME ${name} OUTPUT_DIR "${output_dir}" STAGED "${call_state}/gpu_topology.hpp"
                                  PROFILE "${chosen_FILE}" DEVICE ${device} RESOURCE_SPEC "${resources_FILE}"
                                  SCOPE "${ARG_SCOPE}" RESOURCE_IDS ${resources_IDS} CONSUMERS ${consumers})
  set_property(GLOBAL APPEND PROPERTY GPU_TOPOLOGY_NAMES "${name}")
endfunction()

# --- CTest resource allocation (docs/ci.md) ---------------------------------------------

# The CTest resource spec file (version 1.0) for the node this configure measured
# (DEVICES ALL, PROFILE): one `gpus` entry per device, its id the CUDA device index, with
# GPU_TOPOLOGY_SLOTS_PER_GPU slots (default 1: a test that takes a GPU has it to
# itself). A device measured while busy is listed, and the configure says so; one
# the profile does not describe as measured on this machine is left out, and the
# configure says so. Written atomically, and only when it changes (new devices make
# a new measurement, hence a new file). After PREFIX: _FILE the file, or "" when no
# device qualifies; _IDS the ids listed.
function(_gpu_topology_resource_spec)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROFILE;PREFIX" "")
  if(NOT GPU_TOPOLOGY_SLOTS_PER_GPU MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_SLOTS_PER_GPU is '${GPU_TOPOLOGY_SLOTS_PER_GPU}'; use a whole "
                        "number of slots, 1 or more")
  endif()
  file(READ "${ARG_PROFILE}" text)
  string(JSON count LENGTH "${text}" devices)
  set(entries "")
  set(${ARG_PREFIX}_IDS "")
  set(${ARG_PREFIX}_FILE "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON id ERROR_VARIABLE no_index GET "${text}" devices ${i} device index)
    string(JSON source ERROR_VARIABLE no_source GET "${text}" devices ${i} source)
    string(JSON quiet ERROR_VARIABLE no_conditions GET "${text}" devices ${i} conditions quiet)
    if(no_index OR NOT id MATCHES "^[0-9]+$" OR NOT source STREQUAL "measured")
      message(WARNING "GPUTopology: the node's device ${i} (index '${id}', source '${source}') was not measured on "
                      "this machine: the CTest resource spec file leaves it out")
      continue()
    endif()
    if(NOT quiet)
      message(STATUS "GPUTopology: device ${id} is in the CTest resource spec file, but other work ran on it while "
                     "it was measured: its facts are not vouched for")
    endif()
    list(APPEND entries "{\"id\": \"${id}\", \"slots\": ${GPU_TOPOLOGY_SLOTS_PER_GPU}}")
    list(APPEND ${ARG_PREFIX}_IDS "${id}")
  endforeach()
  # Never if(NOT <ids>): one GPU's id, "0", is false to CMake. A spec without GPUs would
  # leave every test that asks for one "Not Run".
  if(NOT "${${ARG_PREFIX}_IDS}" STREQUAL "")
    list(JOIN entries ", " entries)
    _gpu_topology_state_dir(RESULT state)
    set(${ARG_PREFIX}_FILE "${state}/ctest-resource-spec.json")
    _gpu_topology_write_if_changed(FILE "${${ARG_PREFIX}_FILE}"
                                   TEXT "{\"version\": {\"major\": 1, \"minor\": 0},\n \"local\": [{\"gpus\": [${entries}]}]}\n")
  endif()
  return(PROPAGATE ${ARG_PREFIX}_FILE ${ARG_PREFIX}_IDS)
endfunction()

# Writes TEXT to FILE atomically (a file of its own, renamed: two configures of one tree
# at once write two files), and only when it differs.
function(_gpu_topology_write_if_changed)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FILE;TEXT" "")
  set(before "")
  if(EXISTS "${ARG_FILE}")
    file(READ "${ARG_FILE}" before)
  endif()
  if(NOT before STREQUAL ARG_TEXT)
    string(RANDOM LENGTH 12 unique)
    file(WRITE "${ARG_FILE}.${unique}" "${ARG_TEXT}")
    file(RENAME "${ARG_FILE}.${unique}" "${ARG_FILE}")
  endif()
endfunction()

# Makes FILE (or, for "", no file of ours) this build's CTEST_RESOURCE_SPEC_FILE,
# unless the project set another one.
function(_gpu_topology_use_resource_spec)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FILE" "")
  _gpu_topology_state_dir(RESULT state)
  set(ours "${state}/ctest-resource-spec.json")
  if(DEFINED CTEST_RESOURCE_SPEC_FILE AND NOT CTEST_RESOURCE_SPEC_FILE STREQUAL ours)
    if(NOT "${ARG_FILE}" STREQUAL "")
      message(STATUS "GPUTopology: CTEST_RESOURCE_SPEC_FILE is the project's (${CTEST_RESOURCE_SPEC_FILE}); "
                     "the one for the GPUs measured here is ${ARG_FILE}")
    endif()
  elseif("${ARG_FILE}" STREQUAL "")
    unset(CTEST_RESOURCE_SPEC_FILE CACHE)  # ours, from a configure that measured GPUs no longer here
    file(REMOVE "${ours}")
  else()
    set(CTEST_RESOURCE_SPEC_FILE "${ARG_FILE}" CACHE FILEPATH
        "CTest resource spec file: the GPUs GPUTopology measured (DEVICES ALL), for RESOURCE_GROUPS" FORCE)
  endif()
endfunction()

# --- the other public functions ----------------------------------------------------

# RESULT: the target of the call FOR names (or of the only one); CALLER names the
# public function in messages.
function(_gpu_topology_target)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FOR;CALLER;RESULT" "")
  get_property(names GLOBAL PROPERTY GPU_TOPOLOGY_NAMES)
  string(REPLACE ";" ", " listed "${names}")
  if("${names}" STREQUAL "")
    message(FATAL_ERROR "${ARG_CALLER}: call gpu_topology_generate() first")
  elseif("${ARG_FOR}" STREQUAL "" AND NOT listed STREQUAL names)
    message(FATAL_ERROR "${ARG_CALLER}: several gpu_topology_generate() calls (${listed}); say which with FOR <name>")
  elseif("${ARG_FOR}" STREQUAL "")
    set(ARG_FOR "${names}")
  elseif(NOT ARG_FOR IN_LIST names)
    message(FATAL_ERROR "${ARG_CALLER}: no gpu_topology_generate() call is named '${ARG_FOR}' (${listed})")
  endif()
  set(${ARG_RESULT} GPUTopology_${ARG_FOR})
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the name QUANTITY has now on the call's TARGET (a renamed one: with a
# deprecation message); a name that was never a quantity stops the configure, listing
# the known ones. CALLER names the public function in messages.
function(_gpu_topology_known_quantity)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;QUANTITY;CALLER;RESULT" "")
  get_property(renamed TARGET ${ARG_TARGET} PROPERTY GPU_TOPOLOGY_RENAMED)
  foreach(pair IN LISTS renamed)
    string(REPLACE "=" ";" old_new "${pair}")
    list(GET old_new 0 old)
    if(ARG_QUANTITY STREQUAL old)
      list(GET old_new 1 ARG_QUANTITY)
      message(DEPRECATION "${ARG_CALLER}: ${old} is now ${ARG_QUANTITY}")
    endif()
  endforeach()
  get_property(known TARGET ${ARG_TARGET} PROPERTY GPU_TOPOLOGY_QUANTITIES)
  if(ARG_CALLER STREQUAL "gpu_topology_get")
    list(APPEND known DEVICE_NAME DEVICE_UUID PROFILE_SOURCE PROFILE_HASH)
  endif()
  if(NOT ARG_QUANTITY IN_LIST known)
    string(REPLACE ";" ", " known "${known}")
    message(FATAL_ERROR "${ARG_CALLER}: unknown quantity '${ARG_QUANTITY}'; known: ${known}")
  endif()
  set(${ARG_RESULT} "${ARG_QUANTITY}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# A quantity's value and what is known of it are target properties, read with
# get_property as text ("" when not set), never through if(<value>): a doubt "N" or a
# reason ending in -NOTFOUND is text, not false.
function(gpu_topology_get out_var quantity)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "FOR" "")
  _gpu_topology_target(FOR "${ARG_FOR}" CALLER gpu_topology_get RESULT target)
  _gpu_topology_known_quantity(TARGET ${target} QUANTITY "${quantity}" CALLER gpu_topology_get RESULT quantity)
  get_property(${out_var} TARGET ${target} PROPERTY GPU_TOPOLOGY_${quantity})
  foreach(suffix _UNMEASURED _IS_LOWER_BOUND _DOUBT)
    get_property(${out_var}${suffix} TARGET ${target} PROPERTY GPU_TOPOLOGY_${quantity}${suffix})
  endforeach()
  return(PROPAGATE ${out_var} ${out_var}_UNMEASURED ${out_var}_IS_LOWER_BOUND ${out_var}_DOUBT)
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
  _gpu_topology_target(FOR "${ARG_FOR}" CALLER gpu_topology_require RESULT target)
  _gpu_topology_known_quantity(TARGET ${target} QUANTITY "${quantity}" CALLER gpu_topology_require RESULT quantity)
  set(ops LESS LESS_EQUAL EQUAL GREATER_EQUAL GREATER)
  if(NOT op IN_LIST ops)
    message(FATAL_ERROR "gpu_topology_require: '${op}' is not one of ${ops}")
  endif()
  if(NOT value MATCHES "^[0-9]+$")
    message(FATAL_ERROR "gpu_topology_require: '${value}' is not a whole number")
  endif()
  get_property(actual TARGET ${target} PROPERTY GPU_TOPOLOGY_${quantity})
  get_property(device TARGET ${target} PROPERTY GPU_TOPOLOGY_DEVICE_NAME)
  get_property(source TARGET ${target} PROPERTY GPU_TOPOLOGY_PROFILE_SOURCE)
  get_property(bound TARGET ${target} PROPERTY GPU_TOPOLOGY_${quantity}_IS_LOWER_BOUND)
  get_property(doubt TARGET ${target} PROPERTY GPU_TOPOLOGY_${quantity}_DOUBT)
  if("${actual}" STREQUAL "")
    get_property(why TARGET ${target} PROPERTY GPU_TOPOLOGY_${quantity}_UNMEASURED)
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
  if(NOT "${doubt}" STREQUAL "")
    message(WARNING "GPUTopology: requirement ${quantity} ${op} ${value} rests on a value not vouched for: ${doubt}")
  endif()
  message(STATUS "GPUTopology: requirement met: ${quantity} = ${shown} ${op} ${value}")
endfunction()

# CTest tests for CI on GPU runners (label gpu; skipped without a GPU):
#   <prefix>identity  the runner's GPU is the model the header describes
#   <prefix>remeasure a fresh measurement agrees with the header's profile
# For a node (DEVICES ALL) the same per device, and the node as a whole:
#   <prefix>identity.<k>, <prefix>remeasure.<k>   k = 0 .. devices - 1: each asks CTest for
#                     one GPU (RESOURCE_GROUPS), checks the one it is given against the
#                     node's entry for it, and says which; device k when CTest gives none
#                     (no resource spec file), so every device is checked either way
#   <prefix>node      the machine has the node's devices, each of its model (all GPUs)
# `ctest -j N` then checks N devices at once, never two checks on one GPU (docs/ci.md).
# They run GPUTopologyCheck.cmake, which uses an installed probe or builds one
# when the tests run (a configure compiles nothing for them).
function(gpu_topology_add_tests)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FOR;PREFIX;DEVICE" "")
  _gpu_topology_target(FOR "${ARG_FOR}" CALLER gpu_topology_add_tests RESULT target)
  if(NOT DEFINED ARG_PREFIX)
    string(REGEX REPLACE "^GPUTopology_" "" name "${target}")
    set(ARG_PREFIX "gpu_topology.${name}.")
  endif()
  get_property(generated_for TARGET ${target} PROPERTY GPU_TOPOLOGY_DEVICE)
  if(NOT DEFINED ARG_DEVICE)
    set(ARG_DEVICE "${generated_for}")
  elseif(generated_for STREQUAL "ALL" AND NOT ARG_DEVICE STREQUAL "ALL")
    message(FATAL_ERROR "gpu_topology_add_tests: ${target} describes every device (DEVICES ALL); its tests check "
                        "every device, so DEVICE ${ARG_DEVICE} does not apply")
  endif()
  if(NOT ARG_DEVICE MATCHES "^([0-9]+|ALL)$")
    message(FATAL_ERROR "gpu_topology_add_tests: DEVICE '${ARG_DEVICE}' is not a device index (or ALL)")
  endif()
  _gpu_topology_check_command(TARGET ${target} RESULT check)
  if(ARG_DEVICE STREQUAL "ALL")
    _gpu_topology_add_node_tests(TARGET ${target} PREFIX "${ARG_PREFIX}" COMMAND ${check})
    return()
  endif()
  foreach(mode identity remeasure)
    add_test(NAME ${ARG_PREFIX}${mode}
             COMMAND ${check} -DDEVICE=${ARG_DEVICE} -DMODE=${mode} -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GPUTopologyCheck.cmake")
    set_tests_properties(${ARG_PREFIX}${mode} PROPERTIES LABELS gpu RESOURCE_LOCK gpu_topology_gpu TIMEOUT 900
                                                         SKIP_REGULAR_EXPRESSION "GPU_TOPOLOGY_SKIPPED")
  endforeach()
endfunction()

# RESULT: the command of a GPU test of the call's TARGET up to the script (-DDEVICE=...
# -DMODE=... -P GPUTopologyCheck.cmake follow): its profile, a probe to run now (given, or installed and
# measuring; else the test builds one when it runs) and this build's toolchain.
function(_gpu_topology_check_command)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;RESULT" "")
  get_property(profile TARGET ${ARG_TARGET} PROPERTY GPU_TOPOLOGY_PROFILE_FILE)
  set(probe "${GPU_TOPOLOGY_PROBE_EXECUTABLE}")
  get_property(installed_measures GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE_MEASURES)
  if(NOT probe AND installed_measures)
    get_property(probe GLOBAL PROPERTY GPU_TOPOLOGY_INSTALLED_PROBE)
  endif()
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  # The generator this configure chose for the probe, not a search again when the tests run.
  _gpu_topology_nested_generator(PREFIX nested)
  set(ninja OFF)
  if(nested_NAME STREQUAL "Ninja" AND NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(ninja "${nested_MAKE_PROGRAM}")
  endif()
  set(${ARG_RESULT} "${CMAKE_COMMAND}" -DGPU_TOPOLOGY_PACKAGE_DIR=${package_dir} -DGPU_TOPOLOGY_BUILD_ROOT=${CMAKE_BINARY_DIR}
                    -DPROBE=${probe} -DPROFILE=${profile}
                    -DCMAKE_GENERATOR=${CMAKE_GENERATOR} -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
                    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DGPU_TOPOLOGY_NINJA=${ninja})
  foreach(variable CMAKE_GENERATOR_PLATFORM CMAKE_GENERATOR_TOOLSET CMAKE_CUDA_COMPILER CMAKE_CUDA_HOST_COMPILER
                   CUDAToolkit_ROOT GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES GPU_TOPOLOGY_CACHE GPU_TOPOLOGY_CACHE_DIR)
    if(DEFINED ${variable} AND NOT "${${variable}}" STREQUAL "")
      list(APPEND ${ARG_RESULT} "-D${variable}=${${variable}}")
    endif()
  endforeach()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# The GPU tests of a node's call TARGET (gpu_topology_add_tests), named after PREFIX,
# each running COMMAND: per device, and the node's.
function(_gpu_topology_add_node_tests)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;PREFIX" "COMMAND")
  # Its devices (a stored single profile, the fallback without a GPU, is one).
  get_property(profile TARGET ${ARG_TARGET} PROPERTY GPU_TOPOLOGY_PROFILE_FILE)
  file(READ "${profile}" text)
  string(JSON schema ERROR_VARIABLE not_json GET "${text}" schema)
  set(devices 1)
  if(schema MATCHES "^gpu-topology-node/")
    string(JSON devices LENGTH "${text}" devices)
  endif()
  get_property(resource_ids TARGET ${ARG_TARGET} PROPERTY GPU_TOPOLOGY_RESOURCE_IDS)
  list(LENGTH resource_ids listed)
  set(whole_gpu "gpus:${GPU_TOPOLOGY_SLOTS_PER_GPU}")  # every slot of a GPU: nothing else runs beside a check
  set(skip SKIP_REGULAR_EXPRESSION "GPU_TOPOLOGY_SKIPPED")
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GPUTopologyCheck.cmake")
  math(EXPR last "${devices} - 1")
  set(every_device "")
  foreach(k RANGE ${last})
    list(APPEND every_device gpu_topology_device_${k})
    foreach(mode identity remeasure)
      add_test(NAME ${ARG_PREFIX}${mode}.${k} COMMAND ${ARG_COMMAND} -DDEVICE=${k} -DASSIGNED=ON -DMODE=${mode} -P "${script}")
      # Without a resource spec file CTest ignores RESOURCE_GROUPS: the check takes device k, which the lock guards.
      set_tests_properties(${ARG_PREFIX}${mode}.${k} PROPERTIES LABELS gpu RESOURCE_GROUPS "${whole_gpu}"
                                                                RESOURCE_LOCK gpu_topology_device_${k} TIMEOUT 900 ${skip})
    endforeach()
  endforeach()
  add_test(NAME ${ARG_PREFIX}node COMMAND ${ARG_COMMAND} -DDEVICE=ALL -DMODE=identity -P "${script}")
  set_tests_properties(${ARG_PREFIX}node PROPERTIES LABELS gpu RESOURCE_LOCK "${every_device}" TIMEOUT 900 ${skip})
  if(listed GREATER 0)
    set_tests_properties(${ARG_PREFIX}node PROPERTIES RESOURCE_GROUPS "${listed},${whole_gpu}")
  endif()
endfunction()

# Asks CTest for GPUs for the project's own test `TEST`: GPUS of them (default 1), each
# with SLOTS slots (default GPU_TOPOLOGY_SLOTS_PER_GPU: the whole GPU). With the resource
# spec file of a DEVICES ALL measurement (or the project's own), `ctest -j N` hands each
# test distinct GPUs; the test reads them with gpu_topology::ctest_device(group) from
# gpu_topology.hpp (or CTEST_RESOURCE_GROUP_<group>_GPUS). Without a spec file CTest
# ignores the request, and ctest_device(group) is device `group`.
function(gpu_topology_test_resources)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TEST;GPUS;SLOTS" "")
  if(DEFINED ARG_UNPARSED_ARGUMENTS OR NOT DEFINED ARG_TEST)
    message(FATAL_ERROR "gpu_topology_test_resources(TEST <test> [GPUS n] [SLOTS s]): got '${ARGV}'")
  endif()
  if(NOT TEST "${ARG_TEST}")
    message(FATAL_ERROR "gpu_topology_test_resources: TEST '${ARG_TEST}' is not a test of this directory")
  endif()
  if(NOT DEFINED ARG_GPUS)
    set(ARG_GPUS 1)
  endif()
  if(NOT DEFINED ARG_SLOTS)
    set(ARG_SLOTS "${GPU_TOPOLOGY_SLOTS_PER_GPU}")
  endif()
  foreach(number GPUS SLOTS)
    if(NOT ARG_${number} MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "gpu_topology_test_resources: ${number} '${ARG_${number}}' is not a whole number, 1 or more")
    endif()
  endforeach()
  if(ARG_SLOTS GREATER GPU_TOPOLOGY_SLOTS_PER_GPU)
    message(FATAL_ERROR "gpu_topology_test_resources: SLOTS ${ARG_SLOTS} is more than a GPU has "
                        "(GPU_TOPOLOGY_SLOTS_PER_GPU=${GPU_TOPOLOGY_SLOTS_PER_GPU}): CTest would never run ${ARG_TEST}")
  endif()
  set_tests_properties("${ARG_TEST}" PROPERTIES RESOURCE_GROUPS "${ARG_GPUS},gpus:${ARG_SLOTS}")
endfunction()

cmake_policy(POP)

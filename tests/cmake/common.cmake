# What every consumer scenario (tests/cmake/<scenario>.cmake) shares: run as
#   cmake -DWORK=<dir> -DGENERATOR=<g> -DCMAKE_CTEST_COMMAND=<ctest> -DPACKAGE_SOURCE=<repo>
#         -DPACKAGE_BUILD=<build> -DPROBE=<gpu-topology-probe> -DRENDER_ONLY_PROBE=<its render-only build>
#         [-DCUDA_COMPILER=<nvcc>] -P <scenario>.cmake
# Each scenario includes this file first: a fresh WORK, the helpers below, the
# stand-ins' settings (fake_probe.sh, fake_make.sh) and a GPU lock directory of its own.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(stored "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200.json")

# A consumer's first configure (a cmake command line with -S and -B, and a tree not configured
# yet) takes the compiler checks of the package's own build, as CMake's try_compile projects take
# their parent's, and what the identification caches besides (the package's nested configure does
# the same): the scenarios test the package, not CMake's compiler identification (about 0.5 s a C++
# configure and 5 s a CUDA one on two cores). Only where the command names no other compiler,
# flags, toolchain or initial cache; never CUDA's checks, whose identification also caches the
# default architectures a CUDA project needs. A scenario that shows a user's first configure as it
# is sets `seed_checks` to OFF (minimal, native_arch's first).
# `command_var`: the command line, with the seed's definitions appended where it takes them.
include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
set(seed_checks ON)
# A scenario's trees all have the package build's C++ compiler: the seeded ones take it with its
# checks, and a user's own first configure finds it as CXX (whatever the environment names: the
# ci-clang preset on a machine whose CXX is g++), and as nvcc's host compiler, CUDAHOSTCXX, where the
# environment names none (one it names is kept: it may be the one host compiler this nvcc takes). So
# a CUDA project's nested probe has the compilers of a C++ project's (CMake 4 gives a CUDA project
# nvcc's own default host compiler, g++, where CUDAHOSTCXX names none).
file(STRINGS "${PACKAGE_BUILD}/CMakeCache.txt" package_cxx REGEX "^CMAKE_CXX_COMPILER:[A-Z]+=" LIMIT_COUNT 1)
string(REGEX REPLACE "^[^=]*=" "" package_cxx "${package_cxx}")
if(NOT package_cxx STREQUAL "")
  set(ENV{CXX} "${package_cxx}")
  if(NOT DEFINED ENV{CUDAHOSTCXX})
    set(ENV{CUDAHOSTCXX} "${package_cxx}")
  endif()
endif()
set(package_checks "${PACKAGE_BUILD}/CMakeFiles/${CMAKE_VERSION}")
function(seed_compiler_checks command_var)
  set(command ${${command_var}})
  list(FIND command "-B" at)
  list(LENGTH command count)
  math(EXPR at "${at} + 1")
  if(NOT seed_checks OR at EQUAL 0 OR at GREATER_EQUAL count OR NOT "-S" IN_LIST command
     OR NOT "${CMAKE_COMMAND}" IN_LIST command OR NOT EXISTS "${package_checks}/CMakeCXXCompiler.cmake"
     OR command MATCHES "(^|;)(-D[ ;]*CMAKE_(CXX_COMPILER|CXX_FLAGS|TOOLCHAIN_FILE)[:=]|--toolchain|-C;|CXX(FLAGS)?=)")
    return()
  endif()
  list(GET command ${at} build)
  if(EXISTS "${build}/CMakeCache.txt")
    return()
  endif()
  file(COPY "${package_checks}/CMakeSystem.cmake" "${package_checks}/CMakeCXXCompiler.cmake"
       DESTINATION "${build}/CMakeFiles/${CMAKE_VERSION}")
  _gpu_topology_identification_cache(FROM "${PACKAGE_BUILD}/CMakeCache.txt" RESULT identified)
  file(STRINGS "${PACKAGE_BUILD}/CMakeCache.txt" compiler REGEX "^CMAKE_CXX_COMPILER:[A-Z]+=" LIMIT_COUNT 1)
  list(APPEND command -DCMAKE_PLATFORM_INFO_INITIALIZED:INTERNAL=1 --no-warn-unused-cli "-D${compiler}" ${identified})
  set(${command_var} ${command} PARENT_SCOPE)
endfunction()

# Runs a command; `expect` is "ok" (must succeed) or "fail" (must fail). Output in `output`.
function(run expect)
  set(command ${ARGN})
  seed_compiler_checks(command)
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(output "${out}\n${err}" PARENT_SCOPE)
  set(stdout "${out}" PARENT_SCOPE)
  if(expect STREQUAL "ok" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  elseif(expect STREQUAL "fail" AND rc EQUAL 0)
    message(FATAL_ERROR "succeeded but should have failed: ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

# CMake wraps long messages: texts are compared with every run of white space as one space.
function(expect_in text)
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
  foreach(wanted IN LISTS ARGN)
    string(FIND "${text}" "${wanted}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "expected to find '${wanted}' in:\n${text}")
    endif()
  endforeach()
endfunction()

function(expect_not_in text)
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
  foreach(unwanted IN LISTS ARGN)
    string(FIND "${text}" "${unwanted}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "did not expect '${unwanted}' in:\n${text}")
    endif()
  endforeach()
endfunction()

# Configures `source` into `build` with the package from its source tree.
function(configure expect source build)
  run(${expect} "${CMAKE_COMMAND}" -S "${source}" -B "${build}" -G "${GENERATOR}"
      -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} ${ARGN})
  set(output "${output}" PARENT_SCOPE)
  set(stdout "${stdout}" PARENT_SCOPE)
endfunction()

# Nothing compiled for the GPU topology: no nested probe build.
function(expect_nothing_compiled build)
  foreach(kind render measure)
    if(EXISTS "${build}/_gpu_topology/probe-${kind}")
      message(FATAL_ERROR "a probe was built although nothing needed one: ${build}/_gpu_topology/probe-${kind}")
    endif()
  endforeach()
endfunction()

# The lines that GPUTopology's messages take in a configure's standard output
# `text` (a message of several lines counts them all) must be at most `most`.
function(expect_our_lines text most what)
  string(REPLACE ";" "," text "${text}")  # one line, one list element
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(ours FALSE)
  set(counted "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^-- ")
      string(REGEX MATCH "^-- GPUTopology" ours "${line}")
    endif()
    if(ours)
      string(APPEND counted "${line}\n")
    endif()
  endforeach()
  string(REGEX MATCHALL "\n" newlines "${counted}")
  list(LENGTH newlines count)
  if(count GREATER most)
    message(FATAL_ERROR "${what}: ${count} lines from GPUTopology, more than ${most}:\n${counted}")
  endif()
  message(STATUS "${what}: ${count} lines from GPUTopology (at most ${most})")
endfunction()

# Starts `ARGN` in the background; <name>.pid holds its process id, and
# <name>.rc its exit status once it has ended (a shell waits for it).
function(start_in_background name)
  set(arguments ${ARGN})
  seed_compiler_checks(arguments)
  set(command "")
  foreach(argument IN LISTS arguments)
    string(APPEND command " '${argument}'")
  endforeach()
  file(REMOVE "${WORK}/${name}.rc" "${WORK}/${name}.pid")
  # Each file written whole, then renamed: a reader waiting for it never reads it half written.
  file(WRITE "${WORK}/${name}.sh" "${command} > '${WORK}/${name}.log' 2>&1 &\n"
                                  "echo $! > '${WORK}/${name}.pid.part' && mv '${WORK}/${name}.pid.part' '${WORK}/${name}.pid'\n"
                                  "wait $!\necho $? > '${WORK}/${name}.rc.part' && mv '${WORK}/${name}.rc.part' '${WORK}/${name}.rc'\n")
  execute_process(COMMAND sh -c "sh '${WORK}/${name}.sh' < /dev/null > /dev/null 2>&1 &")
  wait_for_file("${WORK}/${name}.pid" 10)
  file(READ "${WORK}/${name}.pid" pid)
  string(STRIP "${pid}" pid)
  set(pid "${pid}" PARENT_SCOPE)
endfunction()

# Waits up to `seconds` for `file`; <found> (optional) says whether it came, else it must.
function(wait_for_file file seconds)
  foreach(tenth RANGE 1 ${seconds}0)
    if(EXISTS "${file}")
      break()
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.1)
  endforeach()
  if(ARGC GREATER 2)
    if(EXISTS "${file}")
      set(${ARGV2} TRUE PARENT_SCOPE)
    else()
      set(${ARGV2} FALSE PARENT_SCOPE)
    endif()
  elseif(NOT EXISTS "${file}")
    message(FATAL_ERROR "waited ${seconds} s for ${file}")
  endif()
endfunction()

# Whether process `pid` still runs (a zombie does not).
function(process_alive pid out_var)
  execute_process(COMMAND sh -c "kill -0 ${pid} 2>/dev/null && ! ps -o stat= -p ${pid} | grep -q Z"
                  RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    set(${out_var} TRUE PARENT_SCOPE)
  else()
    set(${out_var} FALSE PARENT_SCOPE)
  endif()
endfunction()

# A stand-in nvidia-smi in `dir` that sees FAKE_DEVICES GPUs (default 1) of compute
# capability 9.0, GPU-fake-0000 first (as fake_probe.sh), with driver FAKE_DRIVER
# (default 580.65.06) and ECC mode FAKE_ECC (default Enabled).
function(fake_nvidia_smi dir)
  file(WRITE "${dir}/nvidia-smi" [=[#!/bin/sh
i=0
while [ $i -lt "${FAKE_DEVICES:-1}" ]; do
  case "$*" in
  *uuid,compute_cap,driver_version*)
    echo "GPU-fake-000$i, 9.0, ${FAKE_DRIVER:-580.65.06}, Disabled, ${FAKE_ECC:-Enabled}, 1980 MHz, 3201 MHz, 700.00 W" ;;
  *compute_cap*) echo "9.0" ;;
  *) echo "GPU $i: NVIDIA H200 (UUID: GPU-fake-000$i)" ;;
  esac
  i=$((i + 1))
done
]=])
  file(CHMOD "${dir}/nvidia-smi" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                             WORLD_READ WORLD_EXECUTE)
  set(ENV{PATH} "${dir}:$ENV{PATH}")
endfunction()

# Runs the command `ARGN` twice at the same time (a shell script in WORK), each
# with its output in <name>-1.log and <name>-2.log; both must succeed.
function(twice_at_once name)
  set(command "")
  foreach(argument IN LISTS ARGN)
    string(APPEND command " '${argument}'")
  endforeach()
  file(WRITE "${WORK}/${name}.sh"
       "${command} > '${WORK}/${name}-1.log' 2>&1 &\nfirst=$!\n${command} > '${WORK}/${name}-2.log' 2>&1\n"
       "second=$?\nwait $first && exit $second\n")
  execute_process(COMMAND sh "${WORK}/${name}.sh" RESULT_VARIABLE rc)
  file(READ "${WORK}/${name}-1.log" one)
  file(READ "${WORK}/${name}-2.log" two)
  set(output "${one}\n${two}" PARENT_SCOPE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "two runs at once failed (${rc}):\n${one}\n${two}")
  endif()
endfunction()

# A consumer project of our own in `dir`.
function(write_project dir text)
  file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\n"
                                     "add_subdirectory(\"${PACKAGE_SOURCE}\" gpu_topology EXCLUDE_FROM_ALL)\n${text}")
endfunction()

# The stored profile with `edits` (pairs of JSON path and JSON value) written to `out`.
function(derive_profile out)
  file(READ "${stored}" json)
  set(edits ${ARGN})
  while(edits)
    list(POP_FRONT edits path value)
    string(REPLACE "." ";" keys "${path}")
    string(JSON json SET "${json}" ${keys} "${value}")
  endwhile()
  file(WRITE "${out}" "${json}")
endfunction()

# Configures the tree `build` again without its own measurement, with ARGN: it asks the user's
# cache, or measures.
function(reconfigure_unmeasured build)
  file(GLOB own "${build}/_gpu_topology/profile-*")
  file(REMOVE ${own})
  run(ok "${CMAKE_COMMAND}" "${build}" ${ARGN})
  set(output "${output}" PARENT_SCOPE)
  set(stdout "${stdout}" PARENT_SCOPE)
endfunction()

# What fake_probe.sh measures becomes this GPU's own (GPU-fake-0000, by a probe of the version
# its identity reports), as the user's cache wants of a measurement it keeps: `out` the profile.
function(fake_measures_this_gpu out)
  derive_profile("${out}" device.uuid "\"GPU-fake-0000\"")
  file(READ "${stored}" json)
  string(JSON version GET "${json}" probe version)
  set(ENV{FAKE_PROBE_VERSION} "${version}")
  set(ENV{FAKE_PROFILE} "${out}")
endfunction()

# The GPU tests: reported skipped (GPU_TOPOLOGY_SKIPPED) without a GPU, which this script then
# leaves; with one, they take the real GPU's lock, the one every configure of this user takes,
# and a cache of their own, so that they measure and build.
macro(skip_without_gpu)
  _gpu_topology_gpus_here(PREFIX here)
  if(NOT here_NO_GPU STREQUAL "")
    message("GPU_TOPOLOGY_SKIPPED: ${here_NO_GPU}")
    return()
  endif()
  set(ENV{XDG_CACHE_HOME} "")
  set(ENV{GPU_TOPOLOGY_CACHE_DIR} "${WORK}/cache")  # the user's locks, but nothing measured or built before
endmacro()

set(example "${PACKAGE_SOURCE}/examples/minimal")
set(stored_arg -DGPU_TOPOLOGY_PROFILE=nvidia-h200)
set(real_probe -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${PROBE})
set(fake "${CMAKE_CURRENT_LIST_DIR}/fake_probe.sh")
set(fake_make "${CMAKE_CURRENT_LIST_DIR}/fake_make.sh")
# The stand-ins' settings; the GPU locks of the tests stay in their own directory.
set(ENV{FAKE_REAL_PROBE} "${PROBE}")
set(ENV{FAKE_PROFILE} "${stored}")
set(ENV{FAKE_LOG} "${WORK}/probe.log")
set(ENV{FAKE_BUILT_PROBE} "${PROBE}")
set(ENV{FAKE_MAKE_LOG} "${WORK}/make.log")
set(ENV{XDG_CACHE_HOME} "${WORK}/cache")
unset(ENV{GPU_TOPOLOGY_CACHE_DIR})  # a cache of the user's own stays out of the tests
unset(ENV{GPU_TOPOLOGY_CACHE})


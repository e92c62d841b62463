# GPUTopology's helpers that also run in script mode (cmake -P), where the
# GPU tests of gpu_topology_add_tests() build their probe when they run:
#   _gpu_topology_gpus_here(<reason_var> <architectures_var>)
#       why there is no GPU to probe ("" when there is one), and the CUDA
#       architectures of the GPUs here ("" when nvidia-smi cannot say)
#   _gpu_topology_build_probe(render|measure <out_var> [ARCHITECTURES a...])
#       the nested build of gpu-topology-probe: render only, or one that measures
#   _gpu_topology_run(<run> <timeout> <rc_var> <log_var> COMMAND ...)
#       a long step that stops when the configure stops (GPUTopologyRun.sh)
# They read the global property GPU_TOPOLOGY_PACKAGE_DIR, GPU_TOPOLOGY_PROBE_EXECUTABLE,
# CMAKE_BINARY_DIR (or GPU_TOPOLOGY_BUILD_ROOT) and the toolchain variables
# (CMAKE_GENERATOR, CMAKE_CXX_COMPILER, CMAKE_CUDA_*, ...).
include_guard(GLOBAL)

# Sets <reason_var> to the reason there is no GPU to probe, or to "" when one is
# there, and <architectures_var> to the CUDA architectures of the GPUs here
# (90-real for a compute capability 9.0), or to "" when that is not known.
function(_gpu_topology_gpus_here reason_var architectures_var)
  set(${architectures_var} "" PARENT_SCOPE)
  if(CMAKE_CROSSCOMPILING)
    set(${reason_var} "cross-compiling: the target's GPU cannot be probed from this host" PARENT_SCOPE)
    return()
  endif()
  if(DEFINED ENV{CUDA_VISIBLE_DEVICES})
    string(STRIP "$ENV{CUDA_VISIBLE_DEVICES}" visible)
    if(visible STREQUAL "" OR visible MATCHES "^(-1|none|NoDevFiles)$")
      set(${reason_var} "CUDA_VISIBLE_DEVICES='$ENV{CUDA_VISIBLE_DEVICES}' hides every GPU" PARENT_SCOPE)
      return()
    endif()
  endif()
  if(GPU_TOPOLOGY_PROBE_EXECUTABLE)
    execute_process(COMMAND "${GPU_TOPOLOGY_PROBE_EXECUTABLE}" identity RESULT_VARIABLE rc OUTPUT_QUIET
                    ERROR_VARIABLE why TIMEOUT 120)
    string(STRIP "${why}" why)
    if(rc EQUAL 77)
      set(${reason_var} "${GPU_TOPOLOGY_PROBE_EXECUTABLE}: ${why}" PARENT_SCOPE)
    else()
      set(${reason_var} "" PARENT_SCOPE)
    endif()
    return()
  endif()
  find_program(GPU_TOPOLOGY_NVIDIA_SMI nvidia-smi)
  if(NOT CMAKE_SCRIPT_MODE_FILE)
    mark_as_advanced(GPU_TOPOLOGY_NVIDIA_SMI)
  endif()
  if(GPU_TOPOLOGY_NVIDIA_SMI)
    # One call answers both questions; a driver too old to know compute_cap answers the first with -L.
    execute_process(COMMAND "${GPU_TOPOLOGY_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_QUIET TIMEOUT 30)
    string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${listed}")
    if(rc EQUAL 0 AND capabilities)
      set(architectures "")
      foreach(capability IN LISTS capabilities)
        string(REPLACE "." "" number "${capability}")
        list(APPEND architectures "${number}-real")  # machine code only: a probe never runs as JIT-compiled PTX
      endforeach()
      list(REMOVE_DUPLICATES architectures)
      set(${reason_var} "" PARENT_SCOPE)
      set(${architectures_var} "${architectures}" PARENT_SCOPE)
      return()
    endif()
    execute_process(COMMAND "${GPU_TOPOLOGY_NVIDIA_SMI}" -L RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_QUIET
                    TIMEOUT 30)
    if(rc EQUAL 0 AND listed MATCHES "GPU [0-9]+:")
      set(${reason_var} "" PARENT_SCOPE)
      return()
    endif()
  endif()
  file(GLOB driver_gpus LIST_DIRECTORIES true "/proc/driver/nvidia/gpus/*")
  if(driver_gpus OR EXISTS "/dev/nvidiactl")
    set(${reason_var} "" PARENT_SCOPE)
    return()
  endif()
  set(${reason_var} "no NVIDIA driver or GPU found (nvidia-smi, /proc/driver/nvidia, /dev/nvidiactl)" PARENT_SCOPE)
endfunction()

# The CUDA compiler to build a measuring probe with, looked for the way CMake
# looks (CMAKE_CUDA_COMPILER, CUDACXX, nvcc on PATH or in CUDA_PATH), but at every
# configure and without caching the answer: after "no CUDA compiler" the advice
# to put nvcc on PATH works on the next configure. <out_var>: "" when there is
# none, and <why_var> then says where it looked.
function(_gpu_topology_cuda_compiler out_var why_var)
  set(${out_var} "" PARENT_SCOPE)
  if(CMAKE_CUDA_COMPILER)  # the consumer's own (a cached NOTFOUND is false)
    set(${out_var} "${CMAKE_CUDA_COMPILER}" PARENT_SCOPE)
    return()
  endif()
  if(NOT "$ENV{CUDACXX}" STREQUAL "")
    get_filename_component(compiler "$ENV{CUDACXX}" PROGRAM)
    if(NOT EXISTS "${compiler}")
      set(${why_var} "the environment variable CUDACXX is '$ENV{CUDACXX}', and no such file exists" PARENT_SCOPE)
      return()
    endif()
    set(${out_var} "${compiler}" PARENT_SCOPE)
    return()
  endif()
  set(hints "")
  foreach(root "${CUDAToolkit_ROOT}" "$ENV{CUDAToolkit_ROOT}" "$ENV{CUDA_PATH}")
    if(NOT root STREQUAL "")
      list(APPEND hints "${root}/bin")
    endif()
  endforeach()
  find_program(compiler nvcc HINTS ${hints} NO_CACHE)
  if(NOT compiler)
    set(${why_var} "no CUDA compiler was found (CMAKE_CUDA_COMPILER, CUDACXX, nvcc on PATH or in CUDAToolkit_ROOT or "
                   "CUDA_PATH)" PARENT_SCOPE)
    return()
  endif()
  set(${out_var} "${compiler}" PARENT_SCOPE)
endfunction()

# The consumer's build tree (in script mode the GPU tests pass it as GPU_TOPOLOGY_BUILD_ROOT).
function(_gpu_topology_state_dir out_var)
  set(root "${CMAKE_BINARY_DIR}")
  if(GPU_TOPOLOGY_BUILD_ROOT)
    set(root "${GPU_TOPOLOGY_BUILD_ROOT}")
  endif()
  set(${out_var} "${root}/_gpu_topology" PARENT_SCOPE)
endfunction()

# Microseconds since the epoch, for the times the configure reports.
function(_gpu_topology_now out_var)
  string(TIMESTAMP now "%s%f")
  set(${out_var} "${now}" PARENT_SCOPE)
endfunction()

# "<seconds> s" since `start` (from _gpu_topology_now), one decimal.
function(_gpu_topology_seconds_since start out_var)
  _gpu_topology_now(now)
  math(EXPR tenths "(${now} - ${start} + 50000) / 100000")
  math(EXPR whole "${tenths} / 10")
  math(EXPR tenth "${tenths} % 10")
  set(${out_var} "${whole}.${tenth} s" PARENT_SCOPE)
endfunction()

# Whether this configure shows what its steps print (cmake --log-level=VERBOSE or more).
function(_gpu_topology_verbose out_var)
  cmake_language(GET_MESSAGE_LOG_LEVEL level)
  if(level MATCHES "^(VERBOSE|DEBUG|TRACE)$")
    set(${out_var} TRUE PARENT_SCOPE)
  else()
    set(${out_var} FALSE PARENT_SCOPE)
  endif()
endfunction()

# Runs `COMMAND ...` as a step that stops when this configure stops, for at most
# `timeout` seconds; its output (stdout and stderr) goes to <run>.log and into
# <log_var>, shown line by line as it comes with --log-level=VERBOSE. <rc_var>:
# its exit status, or "timeout". A step that a stopped configure left running
# in the same place is waited for first, so two never run in one build directory.
function(_gpu_topology_run run timeout rc_var log_var)
  cmake_parse_arguments(PARSE_ARGV 4 ARG "" "" "COMMAND")
  _gpu_topology_verbose(verbose)
  if(NOT CMAKE_HOST_UNIX)  # no sh: a plain child process (a stopped configure may leave it running)
    execute_process(COMMAND ${ARG_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log
                    TIMEOUT ${timeout})
    if(verbose)
      message(VERBOSE "${log}")
    endif()
    if(rc MATCHES "timeout")
      set(rc timeout)
    endif()
    set(${rc_var} "${rc}" PARENT_SCOPE)
    set(${log_var} "${log}" PARENT_SCOPE)
    return()
  endif()
  # Waits up to a second for `file` to appear, looking every 50 ms (a sleep that
  # knows no fractions sleeps a whole second instead of spinning).
  set(wait_for [=[i=0; while [ ! -e "$1" ] && [ $i -lt 20 ]; do sleep 0.05 2>/dev/null || sleep 1; i=$((i+1)); done]=])
  # A step of this run that a stopped configure left running: its waiting shell is
  # alive and names the run (not a later process that got the same id).
  set(running [=[kill -0 "$1" 2>/dev/null && ps -o args= -p "$1" 2>/dev/null | grep -F -q -e "$2"]=])
  set(waited 0)
  while(EXISTS "${run}.pid" AND waited LESS timeout)
    file(READ "${run}.pid" left_running)
    string(STRIP "${left_running}" left_running)
    execute_process(COMMAND sh -c "${running}" sh "${left_running}" "${run}" RESULT_VARIABLE alive)
    if(NOT alive EQUAL 0)
      break()
    elseif(waited EQUAL 0)
      message(STATUS "GPUTopology: waiting for ${run}, left running by a stopped configure, to stop")
    endif()
    execute_process(COMMAND sh -c "${wait_for}" sh "${run}.status")
    math(EXPR waited "${waited} + 1")
  endwhile()
  execute_process(COMMAND sh "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GPUTopologyRun.sh" "${run}" "${timeout}" ${ARG_COMMAND}
                  RESULT_VARIABLE started)
  if(NOT started EQUAL 0)
    message(FATAL_ERROR "GPUTopology: could not start ${ARG_COMMAND} (${started})")
  endif()
  set(shown 0)
  while(TRUE)
    set(finished FALSE)
    if(EXISTS "${run}.status")
      set(finished TRUE)  # what the step printed last is shown below, before leaving
    else()
      execute_process(COMMAND sh -c "${wait_for}" sh "${run}.status")
    endif()
    if(verbose AND EXISTS "${run}.log")
      file(READ "${run}.log" fresh OFFSET ${shown})
      if(NOT finished)
        string(FIND "${fresh}" "\n" last_newline REVERSE)  # whole lines only while it runs
        math(EXPR last_newline "${last_newline} + 1")
        string(SUBSTRING "${fresh}" 0 ${last_newline} fresh)
      endif()
      string(LENGTH "${fresh}" length)
      math(EXPR shown "${shown} + ${length}")
      string(STRIP "${fresh}" fresh)
      string(REGEX REPLACE "(^|\n)-- " "\\1" fresh "${fresh}")  # a status line of the step: one "-- " is enough
      if(NOT fresh STREQUAL "")
        message(VERBOSE "${fresh}")
      endif()
    endif()
    if(finished)
      break()
    endif()
  endwhile()
  file(READ "${run}.status" rc)
  string(STRIP "${rc}" rc)
  if(EXISTS "${run}.timeout")
    set(rc timeout)
  endif()
  set(log "")
  if(EXISTS "${run}.log")
    file(READ "${run}.log" log)
  endif()
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(${log_var} "${log}" PARENT_SCOPE)
endfunction()

# The probe that the nested build in `build_dir` made, or "".
function(_gpu_topology_built_probe build_dir out_var)
  set(${out_var} "" PARENT_SCOPE)
  foreach(candidate "${build_dir}/gpu-topology-probe" "${build_dir}/Release/gpu-topology-probe"
                    "${build_dir}/gpu-topology-probe.exe" "${build_dir}/Release/gpu-topology-probe.exe")
    if(EXISTS "${candidate}")
      set(${out_var} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The CUDA host compiler the probe's build in `build_dir` was configured with, as a real path ("" when none).
function(_gpu_topology_nested_host_compiler build_dir out_var)
  set(${out_var} "" PARENT_SCOPE)
  if(EXISTS "${build_dir}/CMakeCache.txt")
    file(STRINGS "${build_dir}/CMakeCache.txt" line REGEX "^CMAKE_CUDA_HOST_COMPILER:[A-Z]+=.+$" LIMIT_COUNT 1)
    if(line)
      string(REGEX REPLACE "^[^=]*=" "" host "${line}")
      file(REAL_PATH "${host}" host)
      set(${out_var} "${host}" PARENT_SCOPE)
    endif()
  endif()
endfunction()

# The stamp of a nested configure: its arguments with the compilers as real paths, and
# the CUDA host compiler the consumer names or, when it names none, `configured_host`.
function(_gpu_topology_probe_stamp arguments configured_host out_var)
  set(stamped "")
  set(host "${configured_host}")
  foreach(argument IN LISTS arguments)
    if(argument MATCHES "^-DCMAKE_CUDA_HOST_COMPILER=(.+)$")
      file(REAL_PATH "${CMAKE_MATCH_1}" host)
      continue()
    elseif(argument MATCHES "^-D(CMAKE_CUDA_COMPILER|CMAKE_CXX_COMPILER)=(/.+)$")
      file(REAL_PATH "${CMAKE_MATCH_2}" compiler)
      set(argument "-D${CMAKE_MATCH_1}=${compiler}")
    endif()
    list(APPEND stamped "${argument}")
  endforeach()
  string(SHA256 stamp "${stamped};host=${host}")
  set(${out_var} "${stamp}" PARENT_SCOPE)
endfunction()

# Builds the probe in a nested build (the package's probe/ project), once per
# build tree and kind, and again only when its sources or its configuration change:
#   render   only what rendering a profile needs, with a host C++ compiler
#            (a host one when cross-compiling: GPU_TOPOLOGY_HOST_CXX_COMPILER, or the
#            default one), unoptimised: it renders in milliseconds and builds in half the time
#   measure  the whole probe, for the CUDA ARCHITECTURES of the GPUs here (machine
#            code for them, or `native` when they are not known) and
#            GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES, with the consumer's CUDA compiler,
#            CUDA root, host and C++ compilers; never the consumer's own
#            CMAKE_CUDA_ARCHITECTURES, which are for its kernels
# The generator is the consumer's. An interrupted configure of it is started afresh.
function(_gpu_topology_build_probe kind out_var)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "" "ARCHITECTURES")
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  if(NOT EXISTS "${package_dir}/probe/CMakeLists.txt")
    if(kind STREQUAL "measure")
      message(FATAL_ERROR "GPUTopology: a GPU is present, but this installation of GPUTopology has no probe that "
                          "measures (it was built without the CUDA toolkit). Reinstall it from a build configured "
                          "with CUDA, or choose a stored profile with GPU_TOPOLOGY_PROFILE.")
    endif()
    message(FATAL_ERROR "GPUTopology: this installation of GPUTopology has no probe to render the profile with")
  endif()

  set(configure_args -G "${CMAKE_GENERATOR}")
  set(environment "")
  if(kind STREQUAL "render")
    list(APPEND configure_args -DGPU_TOPOLOGY_PROBE_RENDER_ONLY=ON -DCMAKE_BUILD_TYPE=)
    set(shown "render only")
  elseif(kind STREQUAL "measure")
    _gpu_topology_cuda_compiler(cuda_compiler why)
    if(cuda_compiler STREQUAL "")
      message(FATAL_ERROR "GPUTopology: a GPU is present, but the probe cannot be built to measure it: ${why}. Put "
                          "nvcc on PATH, set CUDACXX or CMAKE_CUDA_COMPILER, or choose a stored profile with "
                          "GPU_TOPOLOGY_PROFILE; the next configure looks again.")
    endif()
    set(architectures ${ARG_ARCHITECTURES})
    if(NOT architectures)
      set(architectures native)
    endif()
    foreach(extra IN LISTS GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES)
      if(NOT extra MATCHES "^[0-9]+[a-z]?(-real|-virtual)?$")
        message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES has '${extra}'; use architectures "
                            "such as 80 or 90-real (the GPUs here are always built for)")
      endif()
      list(APPEND architectures "${extra}")
    endforeach()
    list(REMOVE_DUPLICATES architectures)
    list(APPEND configure_args -DGPU_TOPOLOGY_PROBE_RENDER_ONLY=OFF -DGPU_TOPOLOGY_PROBE_CUDA=ON
         "-DCMAKE_CUDA_COMPILER=${cuda_compiler}" "-DCMAKE_CUDA_ARCHITECTURES=${architectures}"
         -DCMAKE_BUILD_TYPE=Release)
    foreach(variable CMAKE_CUDA_HOST_COMPILER CUDAToolkit_ROOT)
      if(DEFINED ${variable} AND NOT "${${variable}}" STREQUAL "")
        list(APPEND configure_args "-D${variable}=${${variable}}")
      endif()
    endforeach()
    if(NOT DEFINED CUDAToolkit_ROOT AND DEFINED ENV{CUDAToolkit_ROOT})
      list(APPEND configure_args "-DCUDAToolkit_ROOT=$ENV{CUDAToolkit_ROOT}")
    endif()
    string(REPLACE ";" ", " shown "measuring, ${architectures}")
  else()
    message(FATAL_ERROR "_gpu_topology_build_probe: kind '${kind}' is not render or measure")
  endif()
  if(CMAKE_CROSSCOMPILING)
    # The probe runs here, on the host: never the target's compiler, toolchain or platform.
    if(GPU_TOPOLOGY_HOST_CXX_COMPILER)
      list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${GPU_TOPOLOGY_HOST_CXX_COMPILER}")
    endif()
    set(environment "${CMAKE_COMMAND}" -E env --unset=CXX --unset=CXXFLAGS --unset=LDFLAGS
                    --unset=CMAKE_TOOLCHAIN_FILE --unset=CMAKE_GENERATOR_PLATFORM --unset=CMAKE_GENERATOR_TOOLSET)
  else()
    if(CMAKE_CXX_COMPILER)
      list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}")
    endif()
    if(CMAKE_GENERATOR_PLATFORM)
      list(APPEND configure_args -A "${CMAKE_GENERATOR_PLATFORM}")
    endif()
    if(CMAKE_GENERATOR_TOOLSET)
      list(APPEND configure_args -T "${CMAKE_GENERATOR_TOOLSET}")
    endif()
  endif()
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles" AND CMAKE_MAKE_PROGRAM)
    list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}")
  endif()

  _gpu_topology_state_dir(state)
  set(build_dir "${state}/probe-${kind}")
  # One configure of this build tree at a time builds a kind of probe.
  file(MAKE_DIRECTORY "${state}")
  file(LOCK "${state}/probe-${kind}.lock" GUARD FUNCTION TIMEOUT 900 RESULT_VARIABLE locked)
  if(NOT locked EQUAL 0)
    message(FATAL_ERROR "GPUTopology: could not lock ${state}/probe-${kind}.lock: ${locked}")
  endif()
  # A configure that builds the probe says so, with the time; one that finds it built
  # (a re-configure) says nothing unless its sources changed and it was built again.
  _gpu_topology_now(start)
  _gpu_topology_built_probe("${build_dir}" before)
  set(before_time "")
  if(before)
    file(TIMESTAMP "${before}" before_time "%s")
  endif()
  # The stamp is written after a complete configure; a build dir without it (an
  # interrupted configure) or with other arguments is removed and made again.
  # Compilers count by the file they are. The CUDA host compiler counts as the
  # probe's configure found it when the consumer names none: a consumer whose own
  # enable_language(CUDA) comes after gpu_topology_generate (this project's top
  # level) has CMake 4 cache the same host compiler from its second configure on,
  # which is no change (seen on an H100: the README's second configure rebuilt the
  # probe for it).
  _gpu_topology_nested_host_compiler("${build_dir}" configured_host)
  _gpu_topology_probe_stamp("${environment};${configure_args};${package_dir}" "${configured_host}" wanted)
  set(stamp "${build_dir}/gpu-topology-configured.stamp")
  set(have "")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" have)
  endif()
  set(announced FALSE)
  if(NOT have STREQUAL wanted OR NOT before)
    message(CHECK_START "GPUTopology: building the probe (${shown})")
    set(announced TRUE)
  endif()
  if(NOT have STREQUAL wanted)
    if(EXISTS "${build_dir}")
      message(VERBOSE "GPUTopology: the probe's build directory ${build_dir} is incomplete or outdated; "
                      "configuring it afresh")
      file(REMOVE_RECURSE "${build_dir}")
    endif()
    _gpu_topology_run("${state}/probe-${kind}-configure" 900 rc log
                      COMMAND ${environment} "${CMAKE_COMMAND}" -S "${package_dir}/probe"
                              -B "${build_dir}" ${configure_args})
    if(NOT rc EQUAL 0)
      message(CHECK_FAIL "failed")
      message(FATAL_ERROR "GPUTopology: configuring the probe in ${build_dir} failed (${rc}):\n${log}")
    endif()
    _gpu_topology_nested_host_compiler("${build_dir}" configured_host)
    _gpu_topology_probe_stamp("${environment};${configure_args};${package_dir}" "${configured_host}" wanted)
    file(WRITE "${stamp}" "${wanted}")
  endif()
  cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
  _gpu_topology_run("${state}/probe-${kind}-build" 1800 rc log
                    COMMAND "${CMAKE_COMMAND}" --build "${build_dir}" --target gpu-topology-probe --config Release
                            --parallel ${cores})
  _gpu_topology_built_probe("${build_dir}" probe)
  if(NOT rc EQUAL 0 OR NOT probe)
    if(NOT announced)
      message(CHECK_START "GPUTopology: building the probe (${shown}) again")
    endif()
    if(rc EQUAL 0)
      set(log "the build succeeded, but no gpu-topology-probe was found in ${build_dir}")
    endif()
    message(CHECK_FAIL "failed")
    message(FATAL_ERROR "GPUTopology: building the probe in ${build_dir} failed (${rc}):\n${log}")
  endif()
  _gpu_topology_seconds_since(${start} took)
  if(announced)
    message(CHECK_PASS "done (${took})")
  else()
    file(TIMESTAMP "${probe}" after_time "%s")
    if(NOT after_time STREQUAL before_time)
      message(STATUS "GPUTopology: built the probe (${shown}) again, its sources changed (${took})")
    endif()
  endif()
  set(${out_var} "${probe}" PARENT_SCOPE)
endfunction()

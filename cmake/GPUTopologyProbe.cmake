# GPUTopology's helpers that also run in script mode (cmake -P), where the
# GPU tests of gpu_topology_add_tests() build their probe when they run:
#   _gpu_topology_gpus_here(PREFIX p)
#       p_NO_GPU: why there is no GPU to probe ("" when there is one); p_ARCHITECTURES:
#       the CUDA architectures of the GPUs here ("" when nvidia-smi cannot say)
#   _gpu_topology_gpu_settings(UUIDS u... PREFIX p)
#       p_ROWS: what nvidia-smi says of those GPUs that changes a measurement; p_WHY: why it cannot say
#   _gpu_topology_build_probe(KIND render|measure RESULT r [ARCHITECTURES a...])
#       the nested build of gpu-topology-probe: render only, or one that measures; a probe
#       this user's cache keeps for the same sources and toolchain (GPUTopologyCache.cmake) instead
#   _gpu_topology_run(RUN r TIMEOUT t PREFIX p COMMAND ...)
#       a long step that stops when the configure stops (GPUTopologyRun.sh)
# Outputs are named by the caller (RESULT, PREFIX) and set with return(PROPAGATE).
# They read the global property GPU_TOPOLOGY_PACKAGE_DIR, GPU_TOPOLOGY_PROBE_EXECUTABLE,
# CMAKE_BINARY_DIR (or GPU_TOPOLOGY_BUILD_ROOT) and the toolchain variables
# (CMAKE_GENERATOR, CMAKE_CXX_COMPILER, CMAKE_CUDA_*, ...).
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)  # return(PROPAGATE), whoever includes this file
# A keyword given "" leaves its variable of cmake_parse_arguments undefined, as in 3.25, on every
# CMake (3.31 and later warn every configure where the policy is not set, CMP0174).
if(POLICY CMP0174)
  cmake_policy(SET CMP0174 OLD)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/GPUTopologyCache.cmake")

# Why there is no GPU to probe, after PREFIX: _NO_GPU (the reason, or "" when one is
# there) and _ARCHITECTURES (the CUDA architectures of the GPUs here, 90-real for a
# compute capability 9.0, or "" when that is not known).
function(_gpu_topology_gpus_here)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "")
  set(no_gpu "")
  set(architectures "")
  if(CMAKE_CROSSCOMPILING)
    set(no_gpu "cross-compiling: the target's GPU cannot be probed from this host")
  elseif(DEFINED ENV{CUDA_VISIBLE_DEVICES} AND "$ENV{CUDA_VISIBLE_DEVICES}" MATCHES "^[ \t]*(-1|none|NoDevFiles)?[ \t]*$")
    set(no_gpu "CUDA_VISIBLE_DEVICES='$ENV{CUDA_VISIBLE_DEVICES}' hides every GPU")
  elseif(GPU_TOPOLOGY_PROBE_EXECUTABLE)
    execute_process(COMMAND "${GPU_TOPOLOGY_PROBE_EXECUTABLE}" identity RESULT_VARIABLE rc OUTPUT_QUIET
                    ERROR_VARIABLE why TIMEOUT 120)
    string(STRIP "${why}" why)
    if(rc EQUAL 77)
      set(no_gpu "${GPU_TOPOLOGY_PROBE_EXECUTABLE}: ${why}")
    endif()
  else()
    _gpu_topology_driver_gpus(RESULT architectures)
    if(architectures STREQUAL "none")
      set(no_gpu "no NVIDIA driver or GPU found (nvidia-smi, /proc/driver/nvidia, /dev/nvidiactl)")
      set(architectures "")
    endif()
  endif()
  set(${ARG_PREFIX}_NO_GPU "${no_gpu}")
  set(${ARG_PREFIX}_ARCHITECTURES "${architectures}")
  return(PROPAGATE ${ARG_PREFIX}_NO_GPU ${ARG_PREFIX}_ARCHITECTURES)
endfunction()

# What the driver shows. RESULT: the CUDA architectures of its GPUs (machine code only:
# a probe never runs as JIT-compiled PTX), "" when there are GPUs of unknown ones, or
# "none" when there is no GPU or driver.
function(_gpu_topology_driver_gpus)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  set(${ARG_RESULT} "")
  _gpu_topology_nvidia_smi(PREFIX smi)
  set(capabilities "")
  foreach(row IN LISTS smi_ROWS)
    if(row MATCHES "^[^,]*, ([0-9]+)\\.([0-9]+),")
      list(APPEND capabilities "${CMAKE_MATCH_1}${CMAKE_MATCH_2}-real")
    endif()
  endforeach()
  if(capabilities STREQUAL "" AND GPU_TOPOLOGY_NVIDIA_SMI)
    # A driver too old for the whole query may know compute_cap, else answers -L.
    execute_process(COMMAND "${GPU_TOPOLOGY_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_QUIET TIMEOUT 30)
    string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${listed}")
    if(rc EQUAL 0 AND capabilities)
      list(TRANSFORM capabilities REPLACE "\\." "")
      list(TRANSFORM capabilities APPEND "-real")
    else()
      set(capabilities "")
      execute_process(COMMAND "${GPU_TOPOLOGY_NVIDIA_SMI}" -L RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_QUIET
                      TIMEOUT 30)
      if(rc EQUAL 0 AND listed MATCHES "GPU [0-9]+:")
        return(PROPAGATE ${ARG_RESULT})
      endif()
    endif()
  endif()
  if(NOT capabilities STREQUAL "")
    list(REMOVE_DUPLICATES capabilities)
    set(${ARG_RESULT} "${capabilities}")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  file(GLOB driver_gpus LIST_DIRECTORIES true "/proc/driver/nvidia/gpus/*")
  if(NOT driver_gpus AND NOT EXISTS "/dev/nvidiactl")
    set(${ARG_RESULT} "none")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# What nvidia-smi says of every GPU, asked once per configure, after PREFIX: _ROWS, one
# per GPU, "<uuid>, <compute capability>, <driver version>, <MIG mode>, <ECC mode>,
# <application clocks: graphics>, <memory>, <power limit>" (what changes a measurement
# besides the GPU and probe); _WHY, when there are none, why: no nvidia-smi, or one that
# fails or is too old for the query.
function(_gpu_topology_nvidia_smi)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "")
  get_property(asked GLOBAL PROPERTY _GPU_TOPOLOGY_NVIDIA_SMI_ROWS SET)
  if(NOT asked)
    set(rows "")
    set(why "")
    find_program(GPU_TOPOLOGY_NVIDIA_SMI nvidia-smi)
    if(NOT CMAKE_SCRIPT_MODE_FILE)
      mark_as_advanced(GPU_TOPOLOGY_NVIDIA_SMI)
    endif()
    if(NOT GPU_TOPOLOGY_NVIDIA_SMI)
      set(why "no nvidia-smi was found")
    else()
      set(fields uuid,compute_cap,driver_version,mig.mode.current,ecc.mode.current,clocks.applications.graphics,
                 clocks.applications.memory,power.limit)
      string(REPLACE ";" "" fields "${fields}")
      execute_process(COMMAND "${GPU_TOPOLOGY_NVIDIA_SMI}" --query-gpu=${fields} --format=csv,noheader
                      RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_QUIET TIMEOUT 30)
      string(REPLACE ";" "," listed "${listed}")  # list separators are no part of an answer
      string(REGEX MATCHALL "[^\n]+" lines "${listed}")
      foreach(line IN LISTS lines)
        string(STRIP "${line}" line)
        string(REGEX REPLACE " *, *" ", " line "${line}")
        string(REGEX MATCHALL "," commas "${line}")
        list(LENGTH commas count)
        if(count EQUAL 7)
          list(APPEND rows "${line}")
        endif()
      endforeach()
      list(LENGTH lines listed_count)
      list(LENGTH rows row_count)
      if(NOT rc EQUAL 0 OR row_count EQUAL 0 OR NOT row_count EQUAL listed_count)
        set(rows "")
        set(why "${GPU_TOPOLOGY_NVIDIA_SMI} --query-gpu=${fields} did not answer (${rc})")
      endif()
    endif()
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_NVIDIA_SMI_ROWS "${rows}")
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_NVIDIA_SMI_WHY "${why}")
  endif()
  get_property(${ARG_PREFIX}_ROWS GLOBAL PROPERTY _GPU_TOPOLOGY_NVIDIA_SMI_ROWS)
  get_property(${ARG_PREFIX}_WHY GLOBAL PROPERTY _GPU_TOPOLOGY_NVIDIA_SMI_WHY)
  return(PROPAGATE ${ARG_PREFIX}_ROWS ${ARG_PREFIX}_WHY)
endfunction()

# What nvidia-smi says of the GPUs UUIDS (the probe's identity), after PREFIX: _ROWS, theirs
# in that order (_gpu_topology_nvidia_smi), and _WHY, why it cannot say ("" when it can):
# no nvidia-smi, or one that does not list a GPU by that UUID (a MIG instance).
function(_gpu_topology_gpu_settings)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "UUIDS")
  _gpu_topology_nvidia_smi(PREFIX smi)
  set(${ARG_PREFIX}_ROWS "")
  set(${ARG_PREFIX}_WHY "${smi_WHY}")
  foreach(uuid IN LISTS ARG_UUIDS)
    set(found "")
    foreach(row IN LISTS smi_ROWS)
      string(FIND "${row}" "," end)
      string(SUBSTRING "${row}" 0 ${end} listed)
      string(TOLOWER "${listed}" listed)
      string(TOLOWER "${uuid}" wanted)
      if(listed STREQUAL wanted)
        set(found "${row}")
      endif()
    endforeach()
    if(found STREQUAL "" AND ${ARG_PREFIX}_WHY STREQUAL "")
      set(${ARG_PREFIX}_WHY "nvidia-smi does not list ${uuid}")
    endif()
    list(APPEND ${ARG_PREFIX}_ROWS "${found}")
  endforeach()
  if(NOT ${ARG_PREFIX}_WHY STREQUAL "")
    set(${ARG_PREFIX}_ROWS "")
  endif()
  return(PROPAGATE ${ARG_PREFIX}_ROWS ${ARG_PREFIX}_WHY)
endfunction()

# The CUDA compiler to build a measuring probe with, looked for the way CMake
# looks (CMAKE_CUDA_COMPILER, CUDACXX, nvcc on PATH or in CUDA_PATH), but at every
# configure and without caching the answer: after "no CUDA compiler" the advice
# to put nvcc on PATH works on the next configure. After PREFIX: _COMPILER ("" when
# there is none) and _WHY (then, where it looked).
function(_gpu_topology_cuda_compiler)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "")
  set(compiler "")
  set(why "")
  if(CMAKE_CUDA_COMPILER)  # the consumer's own (a cached NOTFOUND is false)
    set(compiler "${CMAKE_CUDA_COMPILER}")
  elseif(NOT "$ENV{CUDACXX}" STREQUAL "")
    get_filename_component(compiler "$ENV{CUDACXX}" PROGRAM)
    if(NOT EXISTS "${compiler}")
      set(compiler "")
      set(why "the environment variable CUDACXX is '$ENV{CUDACXX}', and no such file exists")
    endif()
  else()
    set(hints "")
    foreach(root "${CUDAToolkit_ROOT}" "$ENV{CUDAToolkit_ROOT}" "$ENV{CUDA_PATH}")
      if(NOT root STREQUAL "")
        list(APPEND hints "${root}/bin")
      endif()
    endforeach()
    find_program(found nvcc HINTS ${hints} NO_CACHE)
    if(found)
      set(compiler "${found}")
    else()
      set(why "no CUDA compiler was found (CMAKE_CUDA_COMPILER, CUDACXX, nvcc on PATH or in CUDAToolkit_ROOT or CUDA_PATH)")
    endif()
  endif()
  set(${ARG_PREFIX}_COMPILER "${compiler}")
  set(${ARG_PREFIX}_WHY "${why}")
  return(PROPAGATE ${ARG_PREFIX}_COMPILER ${ARG_PREFIX}_WHY)
endfunction()

# The consumer's build tree (in script mode the GPU tests pass it as GPU_TOPOLOGY_BUILD_ROOT). RESULT: its _gpu_topology/.
function(_gpu_topology_state_dir)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  set(root "${CMAKE_BINARY_DIR}")
  if(GPU_TOPOLOGY_BUILD_ROOT)
    set(root "${GPU_TOPOLOGY_BUILD_ROOT}")
  endif()
  set(${ARG_RESULT} "${root}/_gpu_topology")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: microseconds since the epoch, for the times the configure reports.
function(_gpu_topology_now)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  string(TIMESTAMP ${ARG_RESULT} "%s%f")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: "<seconds> s" since START (from _gpu_topology_now), one decimal.
function(_gpu_topology_seconds_since)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "START;RESULT" "")
  _gpu_topology_now(RESULT now)
  math(EXPR tenths "(${now} - ${ARG_START} + 50000) / 100000")
  math(EXPR whole "${tenths} / 10")
  math(EXPR tenth "${tenths} % 10")
  set(${ARG_RESULT} "${whole}.${tenth} s")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: whether this configure shows what its steps print (cmake --log-level=VERBOSE or more).
function(_gpu_topology_verbose)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  cmake_language(GET_MESSAGE_LOG_LEVEL level)
  set(${ARG_RESULT} FALSE)
  if(level MATCHES "^(VERBOSE|DEBUG|TRACE)$")
    set(${ARG_RESULT} TRUE)
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Waits (up to TIMEOUT seconds) for a step of RUN that a stopped configure left running:
# its waiting shell is alive and names the run (not a later process that got the same id).
function(_gpu_topology_wait_for_left_running)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RUN;TIMEOUT" "")
  # -ww: the whole command line, which names RUN after a long script (ps may cut it to a width).
  set(running [=[kill -0 "$1" 2>/dev/null && ps -ww -o args= -p "$1" 2>/dev/null | grep -F -q -e "$2"]=])
  set(waited 0)
  while(EXISTS "${ARG_RUN}.pid" AND waited LESS ARG_TIMEOUT)
    file(READ "${ARG_RUN}.pid" left_running)
    string(STRIP "${left_running}" left_running)
    execute_process(COMMAND sh -c "${running}" sh "${left_running}" "${ARG_RUN}" RESULT_VARIABLE alive)
    if(NOT alive EQUAL 0)
      break()
    elseif(waited EQUAL 0)
      message(STATUS "GPUTopology: waiting for ${ARG_RUN}, left running by a stopped configure, to stop")
    endif()
    _gpu_topology_wait_for_status(RUN "${ARG_RUN}")
    math(EXPR waited "${waited} + 1")
  endwhile()
endfunction()

# Waits up to a second for RUN.status to appear, looking every 50 ms (a sleep that
# knows no fractions sleeps a whole second instead of spinning).
function(_gpu_topology_wait_for_status)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RUN" "")
  set(wait_for [=[i=0; while [ ! -e "$1" ] && [ $i -lt 20 ]; do sleep 0.05 2>/dev/null || sleep 1; i=$((i+1)); done]=])
  execute_process(COMMAND sh -c "${wait_for}" sh "${ARG_RUN}.status")
endfunction()

# Follows a started step of RUN to its end, showing its output (RUN.log) line by line as it
# comes when VERBOSE; the status line of a step of it needs one "-- ", not two.
function(_gpu_topology_follow)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RUN;VERBOSE" "")
  set(shown 0)
  set(finished FALSE)
  while(NOT finished)
    if(EXISTS "${ARG_RUN}.status")
      set(finished TRUE)  # what the step printed last is shown below, before leaving
    else()
      _gpu_topology_wait_for_status(RUN "${ARG_RUN}")
    endif()
    if(ARG_VERBOSE AND EXISTS "${ARG_RUN}.log")
      file(READ "${ARG_RUN}.log" fresh OFFSET ${shown})
      if(NOT finished)
        string(FIND "${fresh}" "\n" last_newline REVERSE)  # whole lines only while it runs
        math(EXPR last_newline "${last_newline} + 1")
        string(SUBSTRING "${fresh}" 0 ${last_newline} fresh)
      endif()
      string(LENGTH "${fresh}" length)
      math(EXPR shown "${shown} + ${length}")
      string(STRIP "${fresh}" fresh)
      string(REGEX REPLACE "(^|\n)-- " "\\1" fresh "${fresh}")
      if(NOT fresh STREQUAL "")
        message(VERBOSE "${fresh}")
      endif()
    endif()
  endwhile()
endfunction()

# Runs `COMMAND ...` as a step that stops when this configure stops, for at most TIMEOUT
# seconds; its output (stdout and stderr) goes to RUN.log, shown line by line as it comes
# with --log-level=VERBOSE. After PREFIX: _RC, its exit status or "timeout", and _LOG, its
# output. A step that a stopped configure left running in the same place is waited for
# first, so two never run in one build directory.
function(_gpu_topology_run)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RUN;TIMEOUT;PREFIX" "COMMAND")
  _gpu_topology_verbose(RESULT verbose)
  if(NOT CMAKE_HOST_UNIX)  # no sh: a plain child process (a stopped configure may leave it running)
    execute_process(COMMAND ${ARG_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log
                    TIMEOUT ${ARG_TIMEOUT})
    if(verbose)
      message(VERBOSE "${log}")
    endif()
  else()
    _gpu_topology_wait_for_left_running(RUN "${ARG_RUN}" TIMEOUT ${ARG_TIMEOUT})
    execute_process(COMMAND sh "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GPUTopologyRun.sh" "${ARG_RUN}" "${ARG_TIMEOUT}"
                            ${ARG_COMMAND}
                    RESULT_VARIABLE started)
    if(NOT started EQUAL 0)
      message(FATAL_ERROR "GPUTopology: could not start ${ARG_COMMAND} (${started})")
    endif()
    _gpu_topology_follow(RUN "${ARG_RUN}" VERBOSE ${verbose})
    file(READ "${ARG_RUN}.status" rc)
    string(STRIP "${rc}" rc)
    if(EXISTS "${ARG_RUN}.timeout")
      set(rc timeout)
    endif()
    set(log "")
    if(EXISTS "${ARG_RUN}.log")
      file(READ "${ARG_RUN}.log" log)
    endif()
  endif()
  if(rc MATCHES "timeout")
    set(rc timeout)
  endif()
  set(${ARG_PREFIX}_RC "${rc}")
  set(${ARG_PREFIX}_LOG "${log}")
  return(PROPAGATE ${ARG_PREFIX}_RC ${ARG_PREFIX}_LOG)
endfunction()

# RESULT: the probe that the nested build in BUILD_DIR made, or "".
function(_gpu_topology_built_probe)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "BUILD_DIR;RESULT" "")
  set(${ARG_RESULT} "")
  foreach(candidate gpu-topology-probe Release/gpu-topology-probe gpu-topology-probe.exe
                    Release/gpu-topology-probe.exe)
    if(EXISTS "${ARG_BUILD_DIR}/${candidate}")
      set(${ARG_RESULT} "${ARG_BUILD_DIR}/${candidate}")
      break()
    endif()
  endforeach()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the stamp of a nested configure: its ARGUMENTS with the compilers as real paths,
# and the host compiler nvcc is given there (probe/cuda_kernels.cmake): the one the consumer
# names, else CUDAHOSTCXX, else the C++ compiler. A consumer whose own enable_language(CUDA)
# comes after gpu_topology_generate names CMake 4's default from its second configure on, the
# C++ compiler: the same compiler, the same stamp.
function(_gpu_topology_probe_stamp)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "ARGUMENTS")
  set(stamped "")
  set(host "$ENV{CUDAHOSTCXX}")
  set(cxx "")
  foreach(argument IN LISTS ARG_ARGUMENTS)
    if(argument MATCHES "^-DCMAKE_CUDA_HOST_COMPILER=(.+)$")
      set(host "${CMAKE_MATCH_1}")
      continue()
    elseif(argument MATCHES "^-D(CMAKE_CUDA_COMPILER|CMAKE_CXX_COMPILER)=(/.+)$")
      file(REAL_PATH "${CMAKE_MATCH_2}" compiler)
      set(argument "-D${CMAKE_MATCH_1}=${compiler}")
      if(CMAKE_MATCH_1 STREQUAL "CMAKE_CXX_COMPILER")
        set(cxx "${compiler}")
      endif()
    endif()
    list(APPEND stamped "${argument}")
  endforeach()
  if(host STREQUAL "")
    set(host "${cxx}")
  elseif(IS_ABSOLUTE "${host}")
    file(REAL_PATH "${host}" host)
  endif()
  string(SHA256 ${ARG_RESULT} "${stamped};host=${host}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# How a measuring probe is configured, after PREFIX: _ARGUMENTS (the consumer's CUDA
# compiler and root, and the CUDA ARCHITECTURES of the GPUs here, `native` when they are
# not known, with GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES; never the consumer's own
# CMAKE_CUDA_ARCHITECTURES, which are for its kernels) and _SHOWN (for messages).
function(_gpu_topology_measuring_probe_settings)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "ARCHITECTURES")
  _gpu_topology_cuda_compiler(PREFIX cuda)
  if(cuda_COMPILER STREQUAL "")
    message(FATAL_ERROR "GPUTopology: a GPU is present, but the probe cannot be built to measure it: ${cuda_WHY}. Put "
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
  string(REPLACE ";" "\\;" listed "${architectures}")  # one argument of the nested configure, a list
  set(arguments -DGPU_TOPOLOGY_PROBE_RENDER_ONLY=OFF -DGPU_TOPOLOGY_PROBE_CUDA=ON
                "-DCMAKE_CUDA_COMPILER=${cuda_COMPILER}" "-DCMAKE_CUDA_ARCHITECTURES=${listed}"
                -DCMAKE_BUILD_TYPE=Release)
  foreach(variable CMAKE_CUDA_HOST_COMPILER CUDAToolkit_ROOT)
    if(DEFINED ${variable} AND NOT "${${variable}}" STREQUAL "")
      list(APPEND arguments "-D${variable}=${${variable}}")
    endif()
  endforeach()
  if(NOT DEFINED CUDAToolkit_ROOT AND DEFINED ENV{CUDAToolkit_ROOT})
    list(APPEND arguments "-DCUDAToolkit_ROOT=$ENV{CUDAToolkit_ROOT}")
  endif()
  string(REPLACE ";" ", " ${ARG_PREFIX}_SHOWN "measuring, ${architectures}")
  set(${ARG_PREFIX}_ARGUMENTS "${arguments}")
  return(PROPAGATE ${ARG_PREFIX}_ARGUMENTS ${ARG_PREFIX}_SHOWN)
endfunction()

# The nested build's generator, after PREFIX: _NAME and _MAKE_PROGRAM (or ""). The consumer's,
# but Ninja for a consumer of Unix Makefiles where there is a Ninja: the probe's layers are
# libraries that link one another, and under make a target compiles only once the ones it links are
# built, so the layers' unity units run one after the other (the measuring probe's build took 21.9 s
# under make on an H100, and 7.3 s in the README's Ninja configure: docs/records/configure-time.md).
# GPU_TOPOLOGY_NINJA: ON (default) a Ninja on this machine's PATH, never the target's when
# cross-compiling (the probe runs here); OFF make; or the path of a Ninja.
function(_gpu_topology_nested_generator)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "")
  set(${ARG_PREFIX}_NAME "${CMAKE_GENERATOR}")
  set(${ARG_PREFIX}_MAKE_PROGRAM "")
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles" AND CMAKE_MAKE_PROGRAM)
    set(${ARG_PREFIX}_MAKE_PROGRAM "${CMAKE_MAKE_PROGRAM}")
  endif()
  set(choice ON)
  if(DEFINED GPU_TOPOLOGY_NINJA)
    set(choice "${GPU_TOPOLOGY_NINJA}")
  endif()
  if(CMAKE_GENERATOR STREQUAL "Unix Makefiles" AND NOT (choice STREQUAL "" OR choice MATCHES "-NOTFOUND$"))
    set(ninja "")
    string(TOUPPER "${choice}" constant)
    if(constant MATCHES "^(ON|YES|TRUE|Y|1)$")
      find_program(found_ninja NAMES ninja ninja-build samu NO_CACHE NO_CMAKE_FIND_ROOT_PATH)
      if(found_ninja)
        set(ninja "${found_ninja}")
      endif()
    elseif(constant MATCHES "^(OFF|NO|FALSE|N|0)$")
      set(ninja "")
    elseif(IS_ABSOLUTE "${choice}" AND EXISTS "${choice}" AND NOT IS_DIRECTORY "${choice}")
      set(ninja "${choice}")
    else()
      message(FATAL_ERROR "GPUTopology: GPU_TOPOLOGY_NINJA is '${choice}': give ON (a Ninja on PATH), OFF (make) or "
                          "the absolute path of a Ninja")
    endif()
    if(ninja)
      set(${ARG_PREFIX}_NAME Ninja)
      set(${ARG_PREFIX}_MAKE_PROGRAM "${ninja}")
    endif()
  endif()
  return(PROPAGATE ${ARG_PREFIX}_NAME ${ARG_PREFIX}_MAKE_PROGRAM)
endfunction()

# How the probe of KIND is configured, after PREFIX: _ARGUMENTS (for cmake -S -B),
# _ENVIRONMENT (a `cmake -E env` prefix, or nothing) and _SHOWN (for messages):
#   render   only what rendering a profile needs, with a host C++ compiler
#            (a host one when cross-compiling: GPU_TOPOLOGY_HOST_CXX_COMPILER, or the
#            default one), unoptimised: it renders in milliseconds and builds in half the time
#   measure  the whole probe (_gpu_topology_measuring_probe_settings), with the
#            consumer's host and C++ compilers
# The generator is the consumer's (_gpu_topology_nested_generator).
function(_gpu_topology_probe_settings)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "KIND;PREFIX" "ARCHITECTURES")
  _gpu_topology_nested_generator(PREFIX generator)
  set(arguments -G "${generator_NAME}")
  set(environment "")
  if(ARG_KIND STREQUAL "render")
    list(APPEND arguments -DGPU_TOPOLOGY_PROBE_RENDER_ONLY=ON -DCMAKE_BUILD_TYPE=)
    set(shown "render only")
  else()
    _gpu_topology_measuring_probe_settings(PREFIX measuring ARCHITECTURES ${ARG_ARCHITECTURES})
    list(APPEND arguments "${measuring_ARGUMENTS}")  # quoted: its CUDA architectures are one argument
    set(shown "${measuring_SHOWN}")
  endif()
  if(CMAKE_CROSSCOMPILING)
    # The probe runs here, on the host: never the target's compiler, toolchain or platform.
    if(GPU_TOPOLOGY_HOST_CXX_COMPILER)
      list(APPEND arguments "-DCMAKE_CXX_COMPILER=${GPU_TOPOLOGY_HOST_CXX_COMPILER}")
    endif()
    set(environment "${CMAKE_COMMAND}" -E env --unset=CXX --unset=CXXFLAGS --unset=LDFLAGS
                    --unset=CMAKE_TOOLCHAIN_FILE --unset=CMAKE_GENERATOR_PLATFORM --unset=CMAKE_GENERATOR_TOOLSET)
  else()
    if(CMAKE_CXX_COMPILER)
      list(APPEND arguments "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}")
    endif()
    if(CMAKE_GENERATOR_PLATFORM)
      list(APPEND arguments -A "${CMAKE_GENERATOR_PLATFORM}")
    endif()
    if(CMAKE_GENERATOR_TOOLSET)
      list(APPEND arguments -T "${CMAKE_GENERATOR_TOOLSET}")
    endif()
  endif()
  if(NOT generator_MAKE_PROGRAM STREQUAL "")
    list(APPEND arguments "-DCMAKE_MAKE_PROGRAM=${generator_MAKE_PROGRAM}")
  endif()
  set(${ARG_PREFIX}_ARGUMENTS "${arguments}")
  set(${ARG_PREFIX}_ENVIRONMENT "${environment}")
  set(${ARG_PREFIX}_SHOWN "${shown}")
  return(PROPAGATE ${ARG_PREFIX}_ARGUMENTS ${ARG_PREFIX}_ENVIRONMENT ${ARG_PREFIX}_SHOWN)
endfunction()

# RESULT: the stamp the nested configure has when it was configured with ARGUMENTS (with its
# environment) from this package (_gpu_topology_probe_stamp).
function(_gpu_topology_probe_wanted_stamp)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "ARGUMENTS")
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  _gpu_topology_probe_stamp(ARGUMENTS ${ARG_ARGUMENTS} "${package_dir}" RESULT ${ARG_RESULT})
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# What a compiler identification caches besides the files of CMakeFiles/<version>/ (the
# executable format, which install's RPATH editing needs, and the binary tools it found:
# strip for `cmake --install --strip`, ar and ranlib): a tree that takes another's checks
# takes these too. RESULT: those of this project's cache, as NAME:TYPE; with FROM (a
# CMakeCache.txt), those of that file as -DNAME:TYPE=VALUE.
function(_gpu_topology_identification_cache)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FROM;RESULT" "")
  set(found "")
  foreach(entry CMAKE_EXECUTABLE_FORMAT:INTERNAL CMAKE_UNAME:INTERNAL CMAKE_AR:FILEPATH CMAKE_RANLIB:FILEPATH
                CMAKE_LINKER:FILEPATH CMAKE_NM:FILEPATH CMAKE_OBJCOPY:FILEPATH CMAKE_OBJDUMP:FILEPATH
                CMAKE_READELF:FILEPATH CMAKE_STRIP:FILEPATH CMAKE_ADDR2LINE:FILEPATH CMAKE_DLLTOOL:FILEPATH
                CMAKE_CXX_COMPILER_AR:FILEPATH CMAKE_CXX_COMPILER_RANLIB:FILEPATH)
    string(REGEX MATCH "^[^:]+" name "${entry}")
    if(DEFINED ARG_FROM)
      file(STRINGS "${ARG_FROM}" line REGEX "^${entry}=" LIMIT_COUNT 1)
      if(NOT line STREQUAL "")
        list(APPEND found "-D${line}")
      endif()
    elseif(DEFINED CACHE{${name}})
      list(APPEND found "${entry}")
    endif()
  endforeach()
  set(${ARG_RESULT} "${found}" PARENT_SCOPE)
endfunction()

# Gives the nested configure in BUILD_DIR (configured with ARGUMENTS) this project's
# C++ compiler checks, so that it does not run them again: CMake keeps what it found of the
# system and of each compiler in CMakeFiles/<version>/, and a tree whose platform is
# initialised loads those files instead of checking again (as CMake's own try_compile
# projects take their parent's). The file is given only when the nested configure names
# that very compiler, the consumer's flags for C++ are the ones the nested configure starts
# from (CXXFLAGS) and the compiler is not newer than the checks; none when cross-compiling
# or under a toolchain file, which the nested configure does not get. (The nested build
# enables no CUDA language: its kernels compile with nvcc directly, probe/cuda_kernels.cmake.)
# RESULT: the arguments that make the nested configure load them, or nothing.
function(_gpu_topology_seed_compiler_checks)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "BUILD_DIR;RESULT" "ARGUMENTS")
  set(${ARG_RESULT} "")
  set(from "${CMAKE_PLATFORM_INFO_DIR}")
  if(CMAKE_CROSSCOMPILING OR CMAKE_TOOLCHAIN_FILE OR NOT CMAKE_PLATFORM_INFO_DIR
     OR NOT EXISTS "${from}/CMakeSystem.cmake")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  set(named "")
  foreach(argument IN LISTS ARG_ARGUMENTS)
    if(argument MATCHES "^-DCMAKE_CXX_COMPILER=(.+)$")
      file(REAL_PATH "${CMAKE_MATCH_1}" named)
    endif()
  endforeach()
  set(checks "${from}/CMakeCXXCompiler.cmake")
  set(line "")
  if(NOT named STREQUAL "" AND EXISTS "${checks}")
    file(STRINGS "${checks}" line REGEX "^set\\(CMAKE_CXX_COMPILER \"[^\"]+\"\\)$" LIMIT_COUNT 1)
  endif()
  if(NOT line MATCHES "\"(.+)\"")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  file(REAL_PATH "${CMAKE_MATCH_1}" checked)
  string(STRIP "$CACHE{CMAKE_CXX_FLAGS}" consumer_flags)
  string(STRIP "$ENV{CXXFLAGS}" nested_flags)
  file(TIMESTAMP "${checks}" checked_at "%s" UTC)
  file(TIMESTAMP "${checked}" compiler_at "%s" UTC)
  if(NOT checked STREQUAL named OR NOT consumer_flags STREQUAL nested_flags OR compiler_at GREATER checked_at)
    return(PROPAGATE ${ARG_RESULT})
  endif()
  file(COPY "${from}/CMakeSystem.cmake" "${checks}" DESTINATION "${ARG_BUILD_DIR}/CMakeFiles/${CMAKE_VERSION}")
  # Tools the configure itself does not read (strip) would each draw an "unused" warning.
  set(${ARG_RESULT} -DCMAKE_PLATFORM_INFO_INITIALIZED:INTERNAL=1 --no-warn-unused-cli)
  _gpu_topology_identification_cache(RESULT found)
  foreach(entry IN LISTS found)
    string(REGEX MATCH "^[^:]+" name "${entry}")
    list(APPEND ${ARG_RESULT} "-D${entry}=$CACHE{${name}}")
  endforeach()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Configures the probe of KIND in BUILD_DIR afresh (cmake -S <package>/probe) with
# ARGUMENTS under ENVIRONMENT, and writes its stamp once the configure is complete: a
# build dir without one (an interrupted configure) or with another is configured again.
function(_gpu_topology_probe_configure)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "NO_SEED" "BUILD_DIR;KIND" "ARGUMENTS;ENVIRONMENT")
  if(EXISTS "${ARG_BUILD_DIR}")
    message(VERBOSE "GPUTopology: the probe's build directory ${ARG_BUILD_DIR} is incomplete or outdated; "
                    "configuring it afresh")
    file(REMOVE_RECURSE "${ARG_BUILD_DIR}")
  endif()
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  _gpu_topology_state_dir(RESULT state)
  set(seeded "")
  if("${ARG_ENVIRONMENT}" STREQUAL "" AND NOT ARG_NO_SEED)
    _gpu_topology_seed_compiler_checks(BUILD_DIR "${ARG_BUILD_DIR}" ARGUMENTS ${ARG_ARGUMENTS} RESULT seeded)
  endif()
  _gpu_topology_run(RUN "${state}/probe-${ARG_KIND}-configure" TIMEOUT 900 PREFIX step
                    COMMAND ${ARG_ENVIRONMENT} "${CMAKE_COMMAND}" -S "${package_dir}/probe" -B "${ARG_BUILD_DIR}"
                            ${ARG_ARGUMENTS} ${seeded})
  if(NOT step_RC EQUAL 0 AND NOT step_RC STREQUAL "timeout" AND NOT "${seeded}" STREQUAL "")
    # Whatever went wrong, the configure with checks of its own is the one that says so.
    message(VERBOSE "GPUTopology: the probe's configure with this project's compiler checks failed; "
                    "configuring it with checks of its own:\n${step_LOG}")
    file(REMOVE_RECURSE "${ARG_BUILD_DIR}")
    _gpu_topology_run(RUN "${state}/probe-${ARG_KIND}-configure" TIMEOUT 900 PREFIX step
                      COMMAND "${CMAKE_COMMAND}" -S "${package_dir}/probe" -B "${ARG_BUILD_DIR}" ${ARG_ARGUMENTS})
  elseif(step_RC EQUAL 0 AND NOT "${seeded}" STREQUAL "")
    file(WRITE "${ARG_BUILD_DIR}/gpu-topology-seeded" "")  # a failed build configures again, unseeded
  endif()
  if(NOT step_RC EQUAL 0)
    message(CHECK_FAIL "failed")
    message(FATAL_ERROR "GPUTopology: configuring the probe in ${ARG_BUILD_DIR} failed (${step_RC}):\n${step_LOG}")
  endif()
  _gpu_topology_probe_wanted_stamp(ARGUMENTS ${ARG_ENVIRONMENT} ${ARG_ARGUMENTS}
                                   RESULT stamp)
  file(WRITE "${ARG_BUILD_DIR}/gpu-topology-configured.stamp" "${stamp}")
endfunction()

# RESULT: the probe of KIND (render or measure: _gpu_topology_probe_settings) for the GPUs'
# ARCHITECTURES: the one this user's cache keeps for the same sources and toolchain, else
# one built in a nested build (_gpu_topology_nested_build), which the cache then keeps.
# Configures that need the same probe build it one at a time: the next one finds it kept.
function(_gpu_topology_build_probe)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "KIND;RESULT" "ARCHITECTURES")
  get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
  if(NOT EXISTS "${package_dir}/probe/CMakeLists.txt" AND ARG_KIND STREQUAL "measure")
    message(FATAL_ERROR "GPUTopology: a GPU is present, but this installation of GPUTopology has no probe that "
                        "measures (it was built without the CUDA toolkit). Reinstall it from a build configured "
                        "with CUDA, or choose a stored profile with GPU_TOPOLOGY_PROFILE.")
  elseif(NOT EXISTS "${package_dir}/probe/CMakeLists.txt")
    message(FATAL_ERROR "GPUTopology: this installation of GPUTopology has no probe to render the profile with")
  endif()
  _gpu_topology_probe_settings(KIND ${ARG_KIND} PREFIX nested ARCHITECTURES ${ARG_ARCHITECTURES})
  _gpu_topology_cache_dir(RESULT cache)
  set(locked "no cache")
  if(NOT cache STREQUAL "")
    _gpu_topology_probe_key(KIND ${ARG_KIND} ARGUMENTS ${nested_ARGUMENTS} ENVIRONMENT ${nested_ENVIRONMENT} RESULT key)
    _gpu_topology_cache_lockable(FILE "${cache}/probes/${key}.lock" RESULT lockable)
    if(lockable)
      file(LOCK "${cache}/probes/${key}.lock" GUARD FUNCTION TIMEOUT 1800 RESULT_VARIABLE locked)
    endif()
    _gpu_topology_cached_probe(DIRECTORY "${cache}" KEY ${key} RESULT ${ARG_RESULT})
    if(NOT "${${ARG_RESULT}}" STREQUAL "")
      message(VERBOSE "GPUTopology: the probe (${nested_SHOWN}) built before for these sources and toolchain: "
                      "${${ARG_RESULT}}")
      return(PROPAGATE ${ARG_RESULT})
    endif()
  endif()
  _gpu_topology_nested_build(KIND ${ARG_KIND} SHOWN "${nested_SHOWN}" RESULT ${ARG_RESULT} ARGUMENTS ${nested_ARGUMENTS}
                             ENVIRONMENT ${nested_ENVIRONMENT})
  if(locked EQUAL 0)
    _gpu_topology_state_dir(RESULT state)
    _gpu_topology_keep_probe(DIRECTORY "${cache}" KEY ${key} PROBE "${${ARG_RESULT}}" STATE "${state}" KEEP 4)
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Builds the probe of KIND in a nested build (the package's probe/ project) configured with
# ARGUMENTS under ENVIRONMENT (SHOWN in messages), once per build tree and kind, and again
# only when its sources or its configuration change. A configure that builds it says so,
# with the time; one that finds it built (a re-configure) says nothing unless its sources
# changed and it was built again. RESULT: the probe.
function(_gpu_topology_nested_build)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "KIND;SHOWN;RESULT" "ARGUMENTS;ENVIRONMENT")
  _gpu_topology_state_dir(RESULT state)
  set(build_dir "${state}/probe-${ARG_KIND}")
  # One configure of this build tree at a time builds a kind of probe.
  file(MAKE_DIRECTORY "${state}")
  file(LOCK "${state}/probe-${ARG_KIND}.lock" GUARD FUNCTION TIMEOUT 900 RESULT_VARIABLE locked)
  if(NOT locked EQUAL 0)
    message(FATAL_ERROR "GPUTopology: could not lock ${state}/probe-${ARG_KIND}.lock: ${locked}")
  endif()
  _gpu_topology_now(RESULT start)
  _gpu_topology_built_probe(BUILD_DIR "${build_dir}" RESULT before)
  set(before_time "")
  if(before)
    file(TIMESTAMP "${before}" before_time "%s")
  endif()
  _gpu_topology_probe_wanted_stamp(ARGUMENTS ${ARG_ENVIRONMENT} ${ARG_ARGUMENTS}
                                   RESULT wanted)
  set(have "")
  if(EXISTS "${build_dir}/gpu-topology-configured.stamp")
    file(READ "${build_dir}/gpu-topology-configured.stamp" have)
  endif()
  set(announced FALSE)
  if(NOT have STREQUAL wanted OR NOT before)
    message(CHECK_START "GPUTopology: building the probe (${ARG_SHOWN})")
    set(announced TRUE)
  endif()
  if(NOT have STREQUAL wanted)
    _gpu_topology_probe_configure(BUILD_DIR "${build_dir}" KIND ${ARG_KIND} ARGUMENTS ${ARG_ARGUMENTS}
                                  ENVIRONMENT ${ARG_ENVIRONMENT})
  endif()
  cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
  set(build_command "${CMAKE_COMMAND}" --build "${build_dir}" --target gpu-topology-probe --config Release
                    --parallel ${cores})
  _gpu_topology_run(RUN "${state}/probe-${ARG_KIND}-build" TIMEOUT 1800 PREFIX step COMMAND ${build_command})
  if(NOT step_RC EQUAL 0 AND NOT step_RC STREQUAL "timeout" AND EXISTS "${build_dir}/gpu-topology-seeded")
    message(VERBOSE "GPUTopology: the probe's build with this project's compiler checks failed; configuring and "
                    "building it with checks of its own:\n${step_LOG}")
    _gpu_topology_probe_configure(BUILD_DIR "${build_dir}" KIND ${ARG_KIND} NO_SEED ARGUMENTS ${ARG_ARGUMENTS}
                                  ENVIRONMENT ${ARG_ENVIRONMENT})
    _gpu_topology_run(RUN "${state}/probe-${ARG_KIND}-build" TIMEOUT 1800 PREFIX step COMMAND ${build_command})
  endif()
  _gpu_topology_built_probe(BUILD_DIR "${build_dir}" RESULT probe)
  _gpu_topology_probe_built_report(PROBE "${probe}" RC "${step_RC}" LOG "${step_LOG}" SHOWN "${ARG_SHOWN}"
                                   BUILD_DIR "${build_dir}" ANNOUNCED ${announced} BEFORE_TIME "${before_time}"
                                   START ${start})
  set(${ARG_RESULT} "${probe}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# What a build of the probe says at its end: a failure (RC, LOG) stops the configure; a
# build that was ANNOUNCED is done, with its time since START; one that was not says so
# only when it built the probe again (the file's time is not BEFORE_TIME).
function(_gpu_topology_probe_built_report)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PROBE;RC;LOG;SHOWN;BUILD_DIR;ANNOUNCED;BEFORE_TIME;START" "")
  if(NOT ARG_RC EQUAL 0 OR NOT ARG_PROBE)
    if(NOT ARG_ANNOUNCED)
      message(CHECK_START "GPUTopology: building the probe (${ARG_SHOWN}) again")
    endif()
    if(ARG_RC EQUAL 0)
      set(ARG_LOG "the build succeeded, but no gpu-topology-probe was found in ${ARG_BUILD_DIR}")
    endif()
    message(CHECK_FAIL "failed")
    message(FATAL_ERROR "GPUTopology: building the probe in ${ARG_BUILD_DIR} failed (${ARG_RC}):\n${ARG_LOG}")
  endif()
  _gpu_topology_seconds_since(START ${ARG_START} RESULT took)
  if(ARG_ANNOUNCED)
    message(CHECK_PASS "done (${took})")
    return()
  endif()
  file(TIMESTAMP "${ARG_PROBE}" after_time "%s")
  if(NOT after_time STREQUAL ARG_BEFORE_TIME)
    message(STATUS "GPUTopology: built the probe (${ARG_SHOWN}) again, its sources changed (${took})")
  endif()
endfunction()

cmake_policy(POP)

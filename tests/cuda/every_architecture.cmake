# The probe's CUDA sources compile for every GPU generation its users have
# (nvcc needs no GPU): a fat binary with machine code for each
# architecture, so a kernel that uses what an older architecture lacks
# (clusters before sm_90, an eviction hint before sm_70) must be guarded, and
# ptxas refuses an instruction its target does not have (checked below with
# the same flags). Device code is built without optimisation and for compile
# speed: this checks what compiles, not what runs fast (the probe itself is
# built optimised, for the GPU it measures), with CXX as nvcc's host compiler. With CXX, the engine's host sources too
# (kernels/*.cpp, measure/cuda_node.cpp, cli/device_commands.cpp: the CUDA runtime's host API), checked for the host:
# a test build without a GPU leaves the engine out of its build (GPU_TOPOLOGY_PROBE_CUDA=IF_GPU); the engine
# once more as toolkits before CUDA 12.6 build it.
#   cmake -DNVCC=... -DPROBE_DIR=... -DWORK_DIR=... -DARCHITECTURES="75;80;..." [-DFAST_COMPILE=...]
#         [-DCXX=... -DCXX_STANDARD_FLAG=... -DCUDA_INCLUDE="dir;..."] -P every_architecture.cmake
cmake_minimum_required(VERSION 3.25)  # IN_LIST
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${NVCC}" --list-gpu-code OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NVCC} --list-gpu-code failed (${rc})")
endif()
foreach(arch IN LISTS ARCHITECTURES)
  if(NOT arch MATCHES "^[0-9]+$")
    message(FATAL_ERROR "'${arch}' is not a plain architecture number (75, 80, ...): this test classes them by number")
  endif()
  if(NOT listed MATCHES "sm_${arch}")
    message(FATAL_ERROR "this CUDA toolkit (${NVCC}) cannot compile for sm_${arch}; it lists: ${listed}")
  endif()
endforeach()
file(GLOB sources "${PROBE_DIR}/kernels/*.cu")
if(NOT sources)
  message(FATAL_ERROR "no CUDA sources in ${PROBE_DIR}/kernels")
endif()
# Machine code for every architecture, but the device front end (cicc, most of the time) once per
# class of architectures that the kernels' __CUDA_ARCH__ guards cannot tell apart: the guards are
# read from the sources, and each class is compiled from its oldest member's virtual architecture,
# where every guard takes the same branch as for the others, then ptxas builds each member's
# machine code from it. The other members' code is thus built from older PTX than the probe's own
# build gives them (compute_N for sm_N); what could differ is only what the kernels' guards select.
# Any other test of the architecture in the kernels (a guard this does not read, a bound that is not
# a decimal number, __CUDA_ARCH_SPECIFIC__ and its kin, NV_IF_TARGET) fails the test. Branches on
# the architecture inside the toolkit's own headers are not read: they serve its intrinsics, which
# a kernel calls only where its own guard allows.
list(SORT ARCHITECTURES COMPARE NATURAL)  # the oldest member of a class comes first
file(GLOB guarded "${PROBE_DIR}/kernels/*.cu" "${PROBE_DIR}/kernels/*.cuh" "${PROBE_DIR}/kernels/*.hpp")
set(guards "")
foreach(file IN LISTS guarded)
  file(STRINGS "${file}" lines REGEX "__CUDA_ARCH|NV_IF_TARGET|NV_IF_ELSE_TARGET|NV_PROVIDES_SM|NV_IS_")
  foreach(line IN LISTS lines)
    # Device code or host code (#ifdef, defined) is the same for every architecture; comparisons
    # with a decimal bound class them.
    string(REGEX MATCHALL "__CUDA_ARCH__[ ]*[<>=!]+[ ]*[0-9]+" found "${line}")
    string(REGEX REPLACE "defined[ ]*\\([ ]*__CUDA_ARCH__[ ]*\\)|defined[ ]+__CUDA_ARCH__|#[ ]*if(n?def)[ ]+__CUDA_ARCH__|__CUDA_ARCH__[ ]*[<>=!]+[ ]*[0-9]+([^0-9A-Za-z_']|$)"
                         "" rest "${line}")
    if(rest MATCHES "__CUDA_ARCH|NV_IF_TARGET|NV_IF_ELSE_TARGET|NV_PROVIDES_SM|NV_IS_")
      message(FATAL_ERROR "${file}: a test of the architecture this test cannot class architectures by: ${line}")
    endif()
    foreach(guard IN LISTS found)
      string(REGEX MATCH "(>=|>|<=|<|==|!=)[ ]*([0-9]+)" _ "${guard}")
      list(APPEND guards "${CMAKE_MATCH_1}:${CMAKE_MATCH_2}")
    endforeach()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES guards)
set(classes "")
foreach(arch IN LISTS ARCHITECTURES)
  math(EXPR value "${arch} * 10")
  set(key "class")
  foreach(guard IN LISTS guards)
    string(REPLACE ":" ";" guard "${guard}")
    list(GET guard 0 op)
    list(GET guard 1 bound)
    if((op STREQUAL ">=" AND value GREATER_EQUAL bound) OR (op STREQUAL ">" AND value GREATER bound) OR
       (op STREQUAL "<=" AND value LESS_EQUAL bound) OR (op STREQUAL "<" AND value LESS bound) OR
       (op STREQUAL "==" AND value EQUAL bound) OR (op STREQUAL "!=" AND NOT value EQUAL bound))
      string(APPEND key "_1")
    else()
      string(APPEND key "_0")
    endif()
  endforeach()
  if(NOT key IN_LIST classes)
    list(APPEND classes "${key}")
    set(${key}_oldest "${arch}")
  endif()
  list(APPEND ${key}_codes "sm_${arch}")
endforeach()
set(targets "")
set(shown_classes "")
foreach(key IN LISTS classes)
  list(JOIN ${key}_codes "," codes)
  list(APPEND targets "--generate-code=arch=compute_${${key}_oldest},code=[${codes}]")
  list(APPEND shown_classes "compute_${${key}_oldest} for ${codes}")
endforeach()
list(JOIN shown_classes "; " shown_classes)
list(JOIN guards " " shown_guards)
message(STATUS "guards ${shown_guards}: ${shown_classes}")
# All of them in one translation unit: nvcc parses them once per class above, not once per
# source and class (half the time); an error still names the source file and line it is in.
set(together "${WORK_DIR}/all_kernels.cu")
file(WRITE "${together}" "")
foreach(source IN LISTS sources)
  file(APPEND "${together}" "#include \"${source}\"\n")
endforeach()
# FAST_COMPILE (--Ofast-compile=max where nvcc has it) takes ptxas's time to less than half.
set(flags ${FAST_COMPILE} -Xcicc -O0 -Xptxas -O0)
# With these flags ptxas still refuses what its target lacks: a cluster register for sm_80.
set(lacking "${WORK_DIR}/lacking.cu")
file(WRITE "${lacking}" "__global__ void rank(unsigned* out) {\n  unsigned r;\n"
                        "  asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n  *out = r;\n}\n")
execute_process(COMMAND "${NVCC}" --fatbin --generate-code=arch=compute_80,code=sm_80 ${flags} "${lacking}"
                        -o "${WORK_DIR}/lacking.fatbin" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "cluster_ctarank")
  message(FATAL_ERROR "with ${flags}, nvcc compiled a cluster register for sm_80 (${rc}):\n${out}${err}")
endif()
set(host_compiler "")
if(CXX)
  set(host_compiler -ccbin "${CXX}")  # the build's C++ compiler, as the probe's kernels have it
endif()
execute_process(COMMAND "${NVCC}" -std=c++20 "-I${PROBE_DIR}" --fatbin ${targets} ${flags} ${host_compiler}
                        "${together}" -o "${WORK_DIR}/all_kernels.fatbin"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the probe's CUDA sources do not compile for every architecture (${ARCHITECTURES}):\n${out}${err}")
endif()
list(JOIN ARCHITECTURES ", sm_" shown)
list(TRANSFORM sources REPLACE "^.*/" "")
list(JOIN sources ", " names)
message(STATUS "${names}: sm_${shown}")
if(CXX)
  # One translation unit: they parse the same headers. The commands that measure (device_commands.cpp)
  # compile only with CUDA.
  set(host_sources "${PROBE_DIR}/kernels/cuda_engine.cpp" "${PROBE_DIR}/kernels/device_lookup.cpp"
                   "${PROBE_DIR}/kernels/peer_link.cpp" "${PROBE_DIR}/measure/cuda_node.cpp"
                   "${PROBE_DIR}/cli/device_commands.cpp")
  set(host_together "${WORK_DIR}/engine_host.cpp")
  file(WRITE "${host_together}" "")
  foreach(source IN LISTS host_sources)
    file(APPEND "${host_together}" "#include \"${source}\"\n")
  endforeach()
  list(TRANSFORM CUDA_INCLUDE PREPEND "-I")
  execute_process(COMMAND "${CXX}" ${CXX_STANDARD_FLAG} -fsyntax-only -DGPU_TOPOLOGY_WITH_CUDA=1 "-I${PROBE_DIR}"
                          ${CUDA_INCLUDE} "${host_together}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the CUDA engine's host sources do not compile:\n${out}${err}")
  endif()
  # And the engine as headers before CUDA 12.6 have it: this toolkit's, with 12.4's runtime version and the
  # per-launch carveout attribute's name made undeclared once they are in (kernels/chase_program.hpp).
  set(cuda_12_4 "${WORK_DIR}/as_cuda_12_4.hpp")
  file(WRITE "${cuda_12_4}" "#include <cuda_runtime_api.h>\n#undef CUDART_VERSION\n#define CUDART_VERSION 12040\n"
                            "#define cudaLaunchAttributePreferredSharedMemoryCarveout not_declared_before_cuda_12_6\n")
  execute_process(COMMAND "${CXX}" ${CXX_STANDARD_FLAG} -fsyntax-only -DGPU_TOPOLOGY_WITH_CUDA=1 "-I${PROBE_DIR}"
                          ${CUDA_INCLUDE} -include "${cuda_12_4}" "${PROBE_DIR}/kernels/cuda_engine.cpp"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the CUDA engine does not compile as headers before CUDA 12.6 have it (no per-launch carveout):\n${out}${err}")
  endif()
  message(STATUS "the engine's host sources compile (${CXX}), cuda_engine.cpp also as headers before CUDA 12.6 have it")
endif()

# The probe's CUDA sources compile for every GPU generation its users have
# (nvcc needs no GPU): a fat binary with machine code for each
# architecture, so a kernel that uses what an older architecture lacks
# (clusters before sm_90, an eviction hint before sm_70) must be guarded, and
# ptxas refuses an instruction its target does not have (checked below with
# the same flags). Device code is built without optimisation and for compile
# speed: this checks what compiles, not what runs fast (the probe itself is
# built optimised, for the GPU it measures). With CXX, the engine's host sources too
# (kernels/*.cpp, measure/cuda_node.cpp: the CUDA runtime's host API), checked for the host:
# a test build without a GPU leaves the engine out of its build (GPU_TOPOLOGY_PROBE_CUDA=IF_GPU).
#   cmake -DNVCC=... -DPROBE_DIR=... -DWORK_DIR=... -DARCHITECTURES="75;80;..." [-DFAST_COMPILE=...]
#         [-DCXX=... -DCXX_STANDARD_FLAG=... -DCUDA_INCLUDE="dir;..."] -P every_architecture.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${NVCC}" --list-gpu-code OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NVCC} --list-gpu-code failed (${rc})")
endif()
foreach(arch IN LISTS ARCHITECTURES)
  if(NOT listed MATCHES "sm_${arch}")
    message(FATAL_ERROR "this CUDA toolkit (${NVCC}) cannot compile for sm_${arch}; it lists: ${listed}")
  endif()
endforeach()
file(GLOB sources "${PROBE_DIR}/kernels/*.cu")
if(NOT sources)
  message(FATAL_ERROR "no CUDA sources in ${PROBE_DIR}/kernels")
endif()
# All of them in one translation unit: nvcc parses the host side once per
# architecture, not once per source and architecture (half the time); an error
# still names the source file and line it is in.
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
set(compile "${NVCC}" -std=c++20 "-I${PROBE_DIR}" --fatbin ${flags} "${together}")
# Architectures whose device code preprocesses to the same text share one front end (cicc, 1.3 s
# of the 2.2 s an architecture costs on two cores): nvcc compiles the lowest one's PTX and ptxas
# makes machine code for each of them from it. The text is what nvcc's own device preprocessing
# step (its --dryrun) writes for each architecture, so a guard on __CUDA_ARCH__ in the probe or in
# CUDA's headers that tells two of them apart gives each its own front end. cicc sees nothing else
# of the architecture but its target, and a later one's target only adds what it accepts, so the
# lowest of a group refuses whatever the others would.
set(groups "")
foreach(arch IN LISTS ARCHITECTURES)
  execute_process(COMMAND ${compile} --generate-code=arch=compute_${arch},code=sm_${arch} -o "${WORK_DIR}/dry.fatbin"
                          --dryrun RESULT_VARIABLE rc ERROR_VARIABLE steps OUTPUT_VARIABLE out)
  string(REGEX MATCH "#\\$ ([^\n]* -D__CUDA_ARCH__=${arch}0 [^\n]* -E [^\n]*)" found "${steps}")
  string(REGEX REPLACE " -o \"[^\"]*\"" " -o \"${WORK_DIR}/device_${arch}.ii\"" preprocess "${CMAKE_MATCH_1}")
  if(NOT rc EQUAL 0 OR NOT found OR preprocess STREQUAL CMAKE_MATCH_1)
    message(FATAL_ERROR "no device preprocessing step for sm_${arch} in nvcc --dryrun (${rc}):\n${out}${steps}")
  endif()
  execute_process(COMMAND sh -c "${preprocess}" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the device preprocessing for sm_${arch} failed (${rc}): ${preprocess}\n${out}${err}")
  endif()
  file(SHA256 "${WORK_DIR}/device_${arch}.ii" text)
  if(NOT DEFINED group_${text})
    list(APPEND groups ${text})
  endif()
  list(APPEND group_${text} ${arch})
endforeach()
set(targets "")
set(shown_groups "")
foreach(text IN LISTS groups)
  list(GET group_${text} 0 lowest)
  list(TRANSFORM group_${text} PREPEND "sm_" OUTPUT_VARIABLE real)
  list(JOIN real "," codes)
  list(APPEND targets "--generate-code=arch=compute_${lowest},code=[${codes}]")
  list(JOIN real " " shown)
  list(APPEND shown_groups "compute_${lowest}: ${shown}")
endforeach()
list(JOIN shown_groups "; " shown_groups)
message(STATUS "one front end per device text: ${shown_groups}")
execute_process(COMMAND ${compile} ${targets} -o "${WORK_DIR}/all_kernels.fatbin"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the probe's CUDA sources do not compile for every architecture (${ARCHITECTURES}):\n${out}${err}")
endif()
list(JOIN ARCHITECTURES ", sm_" shown)
list(TRANSFORM sources REPLACE "^.*/" "")
list(JOIN sources ", " names)
message(STATUS "${names}: sm_${shown}")
if(CXX)
  # One translation unit: the four parse the same headers.
  set(host_sources "${PROBE_DIR}/kernels/cuda_engine.cpp" "${PROBE_DIR}/kernels/device_lookup.cpp"
                   "${PROBE_DIR}/kernels/peer_link.cpp" "${PROBE_DIR}/measure/cuda_node.cpp")
  set(host_together "${WORK_DIR}/engine_host.cpp")
  file(WRITE "${host_together}" "")
  foreach(source IN LISTS host_sources)
    file(APPEND "${host_together}" "#include \"${source}\"\n")
  endforeach()
  list(TRANSFORM CUDA_INCLUDE PREPEND "-I")
  execute_process(COMMAND "${CXX}" ${CXX_STANDARD_FLAG} -fsyntax-only "-I${PROBE_DIR}" ${CUDA_INCLUDE} "${host_together}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the CUDA engine's host sources do not compile:\n${out}${err}")
  endif()
  message(STATUS "the engine's host sources compile (${CXX})")
endif()

# The probe's layering, held by the compiler and by layers.cmake (probe/CMakeLists.txt):
#   cmake -DCXX=<compiler> -DSTD_FLAG=<-std=c++20> -DSTAGES_ROOT=<dirs> -DNVML_ROOT=<dirs>
#         -DLAYERS_CHECK=<probe/layers.cmake> -DWORK_DIR=<dir> -P include_refused.cmake
# 1. A file of stages/ that includes a header of nvml/, a layer above it, does not compile
#    against the include root of stages: the compiler finds no such file.
# 2. The same file compiles against the root of nvml, which may see both: the header is
#    there and sound, so what refused it in 1 is the root.
# 3. layers.cmake refuses a "../" include, which the compiler would find beside the
#    including file, past any root; and a header of a layer above, written from probe/.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(source "${WORK_DIR}/stages_file.cpp")
file(WRITE "${source}" "#include \"nvml/nvml_library.hpp\"\n#include \"stages/monitor.hpp\"\n")

# `roots`: the include directories a target's users get (its root and those of the layers it links).
function(compile roots result_var output_var)
  list(TRANSFORM roots PREPEND "-I")
  execute_process(COMMAND "${CXX}" ${STD_FLAG} -fsyntax-only ${roots} "${source}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(${result_var} "${result}" PARENT_SCOPE)
  set(${output_var} "${out}" PARENT_SCOPE)
endfunction()

compile("${STAGES_ROOT}" result output)
if(result EQUAL 0)
  message(FATAL_ERROR "A file of stages/ included nvml/nvml_library.hpp, a layer above, against the root ${STAGES_ROOT}, and it compiled")
endif()
# GCC: "nvml/nvml_library.hpp: No such file or directory"; Clang: "'nvml/nvml_library.hpp' file not found".
if(NOT output MATCHES "nvml/nvml_library\\.hpp'?:? (No such file|file not found)")
  message(FATAL_ERROR "Compiling against ${STAGES_ROOT} failed, but not for want of nvml/nvml_library.hpp:\n${output}")
endif()

compile("${NVML_ROOT}" result output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "The same file does not compile against the root of nvml, ${NVML_ROOT}:\n${output}")
endif()

# A probe tree of two layers, util below stages, with one file that climbs each way.
set(tree "${WORK_DIR}/tree")
file(WRITE "${tree}/stages/runner.hpp" "#pragma once\n")
file(WRITE "${tree}/util/by_path.hpp" "#include \"../stages/runner.hpp\"\n")
file(WRITE "${tree}/util/from_root.hpp" "#include \"stages/runner.hpp\"\n")
execute_process(COMMAND "${CMAKE_COMMAND}" "-DROOT=${tree}" "-DRULES=util=util;stages=stages,util"
                        "-DSTAMP=${WORK_DIR}/stamp" -P "${LAYERS_CHECK}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0 OR EXISTS "${WORK_DIR}/stamp")
  message(FATAL_ERROR "layers.cmake passed a tree with climbing includes:\n${output}")
endif()
foreach(expected "util/by_path.hpp: includes \"../stages/runner.hpp\" by a relative path"
                 "util/from_root.hpp: includes \"stages/runner.hpp\" \\(layer stages\\), above layer util")
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "layers.cmake did not say '${expected}':\n${output}")
  endif()
endforeach()

# The static headers (include/gpu_topology/) and the generated header together:
# each misuse (a static header without a generated one, static headers of another
# version, two profiles in one translation unit) stops the compile with an error
# that says what to do, the versions that fit compile, the facts header does not
# bring the CTest helper along, and the macros work from C with no static header.
#   cmake -DHEADER_DIR=<a rendered header's dir> -DOTHER_HEADER_DIR=<another profile's> -DINCLUDE=<package include/>
#         -DCXX=... -DWORK=... -P static_headers.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# Compiles `code` (C++17, or C with LANGUAGE c) with the include directories given;
# `expect` is "ok" or a regular expression the compiler's error must match.
function(compile name expect code)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "LANGUAGE" "INCLUDES")
  set(flags -std=c++17 -x c++)
  if(arg_LANGUAGE STREQUAL "c")
    set(flags -std=c99 -Wall -Wextra -Wpedantic -Werror -x c)
  endif()
  set(includes "")
  foreach(dir IN LISTS arg_INCLUDES)
    list(APPEND includes "-I${dir}")
  endforeach()
  file(WRITE "${WORK}/${name}.src" "${code}")
  execute_process(COMMAND "${CXX}" ${flags} -fsyntax-only ${includes} "${WORK}/${name}.src"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(expect STREQUAL "ok")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name}: did not compile:\n${err}")
    endif()
  elseif(rc EQUAL 0)
    message(FATAL_ERROR "${name}: compiled, where it must stop with '${expect}'")
  elseif(NOT err MATCHES "${expect}")
    message(FATAL_ERROR "${name}: stopped without saying '${expect}':\n${err}")
  endif()
endfunction()

set(generated "${HEADER_DIR}" "${INCLUDE}")
set(use_facts "#include <gpu_topology.hpp>\nstatic_assert(gpu_topology::l2.size_bytes > 0, \"\");\n")

# The helpers that read facts, without the facts.
compile(helpers_alone "reads the facts of one GPU: include <gpu_topology.hpp>"
        "#include <gpu_topology/fact_helpers.hpp>\n" INCLUDES "${INCLUDE}")
compile(check_alone "compares the running GPU with the facts of one GPU: include <gpu_topology.hpp>"
        "#include <gpu_topology/check.hpp>\n" INCLUDES "${INCLUDE}")
# The stencil model over a gpu_topology.hpp that is not one this package renders.
file(WRITE "${WORK}/old/gpu_topology.hpp" "#define GPU_TOPOLOGY_SCHEMA \"gpu-topology/2\"\n")
compile(stencil_over_another_header "is not a header this GPUTopology renders"
        "#include <gpu_topology/stencil.hpp>\n" INCLUDES "${WORK}/old" "${INCLUDE}")
# Two profiles' headers in one translation unit (one profile's twice is one).
compile(two_profiles_in_one_unit "already includes the gpu_topology.hpp of another profile"
        "#include <gpu_topology.hpp>\n#include \"${OTHER_HEADER_DIR}/gpu_topology.hpp\"\n" INCLUDES ${generated})
compile(one_profile_twice ok "${use_facts}#include \"${HEADER_DIR}/gpu_topology.hpp\"\n" INCLUDES ${generated})
# The generated header without the static headers.
compile(no_static_headers "needs GPUTopology's static headers" "${use_facts}" INCLUDES "${HEADER_DIR}")

# Static headers of another version first on the include path: another major, an older
# minor stop the compile; a newer minor of the same major compiles.
file(STRINGS "${INCLUDE}/gpu_topology/version.hpp" major REGEX "^#define GPU_TOPOLOGY_VERSION_MAJOR ")
file(STRINGS "${INCLUDE}/gpu_topology/version.hpp" minor REGEX "^#define GPU_TOPOLOGY_VERSION_MINOR ")
string(REGEX REPLACE ".* " "" major "${major}")
string(REGEX REPLACE ".* " "" minor "${minor}")
file(READ "${INCLUDE}/gpu_topology/version.hpp" version_text)
math(EXPR next_major "${major} + 1")
math(EXPR next_minor "${minor} + 1")
math(EXPR previous_minor "${minor} - 1")
set(refused "was rendered by GPUTopology [0-9.]+ for its static headers")
foreach(version "next_major;${next_major};${minor};${refused}" "next_minor;${major};${next_minor};ok"
                "previous_minor;${major};${previous_minor};${refused}")
  list(POP_FRONT version name other_major other_minor expect)
  if(other_minor LESS 0)  # no minor before 0
    continue()
  endif()
  string(REGEX REPLACE "MAJOR [0-9]+" "MAJOR ${other_major}" text "${version_text}")
  string(REGEX REPLACE "MINOR [0-9]+" "MINOR ${other_minor}" text "${text}")
  file(WRITE "${WORK}/${name}/gpu_topology/version.hpp" "${text}")
  compile(${name} "${expect}" "${use_facts}" INCLUDES "${WORK}/${name}" ${generated})
endforeach()

# The CTest helper is a header of its own, which the facts header does not include.
set(ctest_use "int main() { return gpu_topology::ctest_device(); }\n")
compile(ctest_from_facts "ctest_device" "#include <gpu_topology.hpp>\n${ctest_use}" INCLUDES ${generated})
compile(ctest_header ok "#include <gpu_topology/ctest.hpp>\n${ctest_use}" INCLUDES "${INCLUDE}")

# C: the macros, with no static header on the include path.
string(CONCAT c_code "#include <gpu_topology.hpp>\n#if GPU_TOPOLOGY_L2_SIZE_BYTES <= 0\n#error no L2\n#endif\n"
                     "int main(void) { return GPU_TOPOLOGY_SM_COUNT > 0 ? 0 : 1; }\n")
compile(from_c ok "${c_code}" LANGUAGE c INCLUDES "${HEADER_DIR}")
message("the static headers stop every misuse with a message, fit the versions they promise to, and C reads the macros")

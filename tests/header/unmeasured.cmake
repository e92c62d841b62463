# The README's example, a square tile in half of L1, must not compile from a
# profile whose L1 size is unmeasured, and the compiler must name the quantity.
# The same code compiles once it asks for a fallback explicitly.
#   cmake -DPROBE=... -DPROFILE=... -DCXX=... -DINCLUDE=... -DWORK=... -P unmeasured.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(READ "${PROFILE}" json)
string(JSON json SET "${json}" caches l1 size_bytes
       "{\"value\": null, \"unit\": \"bytes\", \"source\": \"unmeasured\", \"reason\": \"skipped: stage 'l1 size'\"}")
file(WRITE "${WORK}/unmeasured.json" "${json}")
execute_process(COMMAND "${PROBE}" render "${WORK}/unmeasured.json" --header "${WORK}/gpu_topology.hpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rendering failed: ${err}")
endif()
file(WRITE "${WORK}/readme.cpp" "#include <gpu_topology.hpp>\n"
           "constexpr auto edge = gpu_topology::square_tile_edge<float>(gpu_topology::l1.size_bytes / 2);\n"
           "int main() { return int(edge); }\n")
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK} "${WORK}/readme.cpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "the README example compiled although L1_SIZE_BYTES is unmeasured")
endif()
if(NOT err MATCHES "not_measured::L1_SIZE_BYTES")
  message(FATAL_ERROR "the compile failed without naming L1_SIZE_BYTES:\n${err}")
endif()
file(WRITE "${WORK}/fallback.cpp" "#include <gpu_topology.hpp>\n"
           "constexpr auto edge = gpu_topology::square_tile_edge<float>(gpu_topology::l1.size_bytes.value_or(16384) / 2);\n"
           "static_assert(edge == 45);  // 8192 B: 2048 floats, 45 x 45 of them\nint main() { return 0; }\n")
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK} "${WORK}/fallback.cpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "an explicit fallback did not compile:\n${err}")
endif()
message("an unmeasured L1 stops the README example, and the compiler names not_measured::L1_SIZE_BYTES")

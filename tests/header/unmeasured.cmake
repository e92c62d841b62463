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
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK} -I${INCLUDE} "${WORK}/readme.cpp"
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
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK} -I${INCLUDE} "${WORK}/fallback.cpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "an explicit fallback did not compile:\n${err}")
endif()
# The README's tile from the L1 of the user's own launch: it compiles for a kernel kind
# the profile measured, and not for one it did not (its 0 cannot become a tile size).
execute_process(COMMAND "${PROBE}" render "${PROFILE}" --header "${WORK}/measured/gpu_topology.hpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rendering ${PROFILE} failed: ${err}")
endif()
foreach(bytes 8192 12345)
  file(WRITE "${WORK}/launch_${bytes}.cpp" "#include <gpu_topology.hpp>\n"
             "constexpr auto l1 = gpu_topology::l1_bytes_at(0, 256, ${bytes});\n"
             "constexpr auto edge = gpu_topology::square_tile_edge<float>(l1 / 2);\n"
             "int main() { return int(edge); }\n")
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK}/measured -I${INCLUDE} "${WORK}/launch_${bytes}.cpp"
                  RESULT_VARIABLE rc_${bytes} ERROR_VARIABLE err_${bytes})
endforeach()
if(NOT rc_8192 EQUAL 0)
  message(FATAL_ERROR "the tile from a measured launch (8 KiB of shared memory) did not compile:\n${err_8192}")
endif()
if(rc_12345 EQUAL 0)
  message(FATAL_ERROR "a tile from l1_bytes_at() of an unmeasured kernel kind (12345 B) compiled")
endif()
if(NOT err_12345 MATCHES "l1_bytes_at_no_launch_of_this_kind_was_measured")
  message(FATAL_ERROR "the compile failed without naming the unmeasured launch:\n${err_12345}")
endif()
# The SGEMM helper takes the one L2 latency only where the profile shows L2 uniform: with the far
# latency unmeasured on a profile whose near part is half of L2, it must not compile (the near
# latency would be half of what a load from across the chip takes).
file(READ "${PROFILE}" json)
string(JSON json SET "${json}" caches l2 far_latency_cycles
       "{\"value\": null, \"unit\": \"cycles\", \"source\": \"unmeasured\", \"reason\": \"skipped: stage 'hierarchy curve'\"}")
file(WRITE "${WORK}/no_far/unmeasured.json" "${json}")
execute_process(COMMAND "${PROBE}" render "${WORK}/no_far/unmeasured.json" --header "${WORK}/no_far/gpu_topology.hpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rendering without the far L2 latency failed: ${err}")
endif()
file(WRITE "${WORK}/no_far/gemm.cpp" "#include <gpu_topology/gemm.hpp>\n"
           "constexpr auto pick = gpu_topology::choose_sgemm({1024, 1024, 1024});\n"
           "int main() { return int(pick.tile.block_m); }\n")
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK}/no_far -I${INCLUDE} "${WORK}/no_far/gemm.cpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "the SGEMM helper compiled with the far L2 latency unmeasured on an L2 not shown uniform")
endif()
if(NOT err MATCHES "leaves the far L2 latency unmeasured")
  message(FATAL_ERROR "the compile failed without saying the far L2 latency is unmeasured:\n${err}")
endif()
message("an unmeasured L1 stops the README example, and the compiler names not_measured::L1_SIZE_BYTES; "
        "so does l1_bytes_at() of a kernel kind the profile did not measure, and the SGEMM helper an "
        "unmeasured far L2 latency where L2 is not shown uniform")

# The README's example, a square tile in half of L1, must not compile from a
# profile whose L1 size is unmeasured, and the compiler must name the quantity.
# The same code compiles once it asks for a fallback explicitly.
#   cmake -DPROBE=... -DPROFILE=... -DCXX=... -DINCLUDE=... -DWORK=... -P unmeasured.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# Renders DIR/gpu_topology.hpp from PROFILE with one quantity (its JSON path in ARGN) unmeasured.
function(render_without dir unit reason)
  file(READ "${PROFILE}" json)
  string(JSON json SET "${json}" ${ARGN}
         "{\"value\": null, \"unit\": \"${unit}\", \"source\": \"unmeasured\", \"reason\": \"${reason}\"}")
  file(WRITE "${dir}/unmeasured.json" "${json}")
  execute_process(COMMAND "${PROBE}" render "${dir}/unmeasured.json" --header "${dir}/gpu_topology.hpp"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rendering ${dir}/unmeasured.json failed: ${err}")
  endif()
endfunction()

# SOURCE, against the header in DIR, must not compile, and the compiler must say WANTED (a regex).
function(expect_refused dir source wanted what)
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${dir} -I${INCLUDE} "${source}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${what} compiled (${source})")
  endif()
  if(NOT err MATCHES "${wanted}")
    message(FATAL_ERROR "${what}: the compile failed without saying '${wanted}':\n${err}")
  endif()
endfunction()

render_without("${WORK}" bytes "skipped: stage 'l1 size'" caches l1 size_bytes)
file(WRITE "${WORK}/readme.cpp" "#include <gpu_topology.hpp>\n"
           "constexpr auto edge = gpu_topology::square_tile_edge<float>(gpu_topology::l1.size_bytes / 2);\n"
           "int main() { return int(edge); }\n")
expect_refused("${WORK}" "${WORK}/readme.cpp" "not_measured::L1_SIZE_BYTES"
               "the README example with L1_SIZE_BYTES unmeasured")
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
endforeach()
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I${WORK}/measured -I${INCLUDE} "${WORK}/launch_8192.cpp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the tile from a measured launch (8 KiB of shared memory) did not compile:\n${err}")
endif()
expect_refused("${WORK}/measured" "${WORK}/launch_12345.cpp" "l1_bytes_at_no_launch_of_this_kind_was_measured"
               "a tile from l1_bytes_at() of an unmeasured kernel kind (12345 B)")
# The SGEMM helper takes the one L2 latency only where the profile shows L2 uniform: with the far
# latency unmeasured on a profile whose near part is half of L2, it must not compile (the near
# latency would be half of what a load from across the chip takes).
render_without("${WORK}/no_far" cycles "skipped: stage 'hierarchy curve'" caches l2 far_latency_cycles)
file(WRITE "${WORK}/no_far/gemm.cpp" "#include <gpu_topology/gemm.hpp>\n"
           "constexpr auto pick = gpu_topology::choose_sgemm({1024, 1024, 1024});\n"
           "int main() { return int(pick.tile.block_m); }\n")
expect_refused("${WORK}/no_far" "${WORK}/no_far/gemm.cpp" "leaves the far L2 latency unmeasured"
               "the SGEMM helper with the far L2 latency unmeasured on an L2 not shown uniform")
message("an unmeasured L1 stops the README example, and the compiler names not_measured::L1_SIZE_BYTES; "
        "so does l1_bytes_at() of a kernel kind the profile did not measure, and the SGEMM helper an "
        "unmeasured far L2 latency where L2 is not shown uniform")

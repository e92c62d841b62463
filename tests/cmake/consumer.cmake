# Consumer projects configured (and built) from CTest, the way users consume
# the package. One MODE per test (tests/cmake/CMakeLists.txt):
#   subdirectory, fetchcontent, installed   examples/minimal three ways, with a stored profile
#   no_gpu            no GPU: a warning naming the stored profile; ON_NO_GPU=error stops; nothing compiled
#   broken            a broken profile stops the configure, naming the file, the field and the value
#   hostile           text meant to break out of CMake and C++ stays text, byte for byte
#   require           requirements: met, not met, a lower bound, unmeasured, identity quantities;
#                     gpu_topology_get returns the lower-bound flag and the doubt beside the value
#   bad_options       each wrong option value stops the configure, naming variable and value
#   two_calls         two gpu_topology_generate calls own their headers, targets and values
#   fake_gpu          the measuring path with a stand-in probe: cache, corrupt cache, busy GPU,
#                     failures, and the per-GPU lock between configures
#   heal              an interrupted nested build heals; two configures of one tree at once both work
#   node              DEVICES ALL with a stand-in probe: a node of one model configures (what differs
#                     is withheld), one of two models stops the configure; wrong DEVICES values stop it;
#                     without a GPU it falls back to the stored profile
#   gpu_identity      (a GPU runner) the consumer's GPU tests fail against another GPU's profile, and pass
#                     against this one's, measured at configure time
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(stored "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200.json")

# Runs a command; `expect` is "ok" (must succeed) or "fail" (must fail). Output in `output`.
function(run expect)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(output "${out}\n${err}" PARENT_SCOPE)
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
endfunction()

# Nothing compiled for the GPU topology: no nested probe build.
function(expect_nothing_compiled build)
  file(GLOB nested "${build}/_gpu_topology/probe-*")
  if(nested)
    message(FATAL_ERROR "a probe was built although nothing was measured: ${nested}")
  endif()
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

set(example "${PACKAGE_SOURCE}/examples/minimal")
set(stored_arg -DGPU_TOPOLOGY_PROFILE=nvidia-h200)
set(real_probe -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${PROBE})

if(MODE MATCHES "^(subdirectory|fetchcontent|installed)$")
  set(args ${stored_arg} -DMINIMAL_REQUIRE_L2_NEAR=1048576)
  if(MODE STREQUAL "installed")
    # The package as a user installs it: the tested build tree, no second build.
    run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
    run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer" -G "${GENERATOR}"
        -DCMAKE_PREFIX_PATH=${WORK}/prefix ${args})
    if(NOT EXISTS "${WORK}/prefix/bin/gpu-topology-probe")
      message(FATAL_ERROR "the install has no prebuilt probe")
    endif()
  elseif(MODE STREQUAL "fetchcontent")
    write_project("${WORK}/project" "")
    file(WRITE "${WORK}/project/CMakeLists.txt"
         "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\ninclude(FetchContent)\n"
         "FetchContent_Declare(GPUTopology SOURCE_DIR \"${PACKAGE_SOURCE}\")\nFetchContent_MakeAvailable(GPUTopology)\n"
         "add_executable(minimal \"${example}/main.cpp\")\ngpu_topology_generate(TARGET minimal)\n"
         "gpu_topology_require(L2_NEAR_SIZE_BYTES GREATER_EQUAL 1048576)\n"
         "enable_testing()\nadd_test(NAME minimal.prints COMMAND minimal)\ngpu_topology_add_tests()\n")
    run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/consumer" -G "${GENERATOR}" ${stored_arg})
  else()
    configure(ok "${example}" "${WORK}/consumer" ${args})
  endif()
  expect_in("${output}" "requirement met: L2_NEAR_SIZE_BYTES" "describes the GPU of the stored profile")
  expect_nothing_compiled("${WORK}/consumer")
  # The package imposes no CUDA on its consumer.
  file(STRINGS "${WORK}/consumer/CMakeCache.txt" cuda REGEX "^CMAKE_CUDA_COMPILER:")
  if(cuda)
    message(FATAL_ERROR "the consumer's project got CUDA enabled: ${cuda}")
  endif()
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
  # The consumer's own tests; its GPU tests are registered (cmake.gpu_identity runs them on a GPU).
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/consumer" --output-on-failure -LE gpu)
  expect_in("${output}" "minimal.prints" "100% tests passed")
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/consumer" -N -L gpu)
  expect_in("${output}" "gpu_topology.minimal.identity" "gpu_topology.minimal.remeasure")
  # A second configure reuses everything and leaves the header alone.
  file(TIMESTAMP "${WORK}/consumer/gpu_topology/minimal/gpu_topology.hpp" before "%s")
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
  file(TIMESTAMP "${WORK}/consumer/gpu_topology/minimal/gpu_topology.hpp" after "%s")
  if(NOT before STREQUAL after)
    message(FATAL_ERROR "a reconfigure rewrote an unchanged header")
  endif()

elseif(MODE STREQUAL "no_gpu")
  run(ok "${CMAKE_COMMAND}" -E env CUDA_VISIBLE_DEVICES= "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer"
      -G "${GENERATOR}" -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE})
  expect_in("${output}" "CMake Warning" "describes the GPU of the stored profile"
            "nvidia-h200.json" "no GPU to probe: CUDA_VISIBLE_DEVICES='' hides every GPU")
  expect_nothing_compiled("${WORK}/consumer")
  foreach(policy error Error ERROR)
    run(fail "${CMAKE_COMMAND}" -E env CUDA_VISIBLE_DEVICES= "${CMAKE_COMMAND}" -S "${example}"
        -B "${WORK}/error-${policy}" -G "${GENERATOR}" -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE}
        -DGPU_TOPOLOGY_ON_NO_GPU=${policy})
    expect_in("${output}" "no GPU to probe" "GPU_TOPOLOGY_ON_NO_GPU=${policy}")
  endforeach()

elseif(MODE STREQUAL "broken")
  file(READ "${stored}" json)
  string(JSON json SET "${json}" caches l1 size_bytes value "\"big\"")
  string(JSON json REMOVE "${json}" caches l2 line_bytes)
  file(WRITE "${WORK}/broken-profile.json" "${json}")
  configure(fail "${example}" "${WORK}/consumer" ${real_probe} -DGPU_TOPOLOGY_PROFILE=${WORK}/broken-profile.json)
  expect_in("${output}" "broken-profile.json: invalid profile"
            "caches.l1.size_bytes.value: expected number, got string (\"big\")" "caches.l2.line_bytes: missing")
  # A relative PROFILE is found from the calling project's source directory.
  file(COPY "${example}/" DESTINATION "${WORK}/relative")
  file(COPY "${WORK}/broken-profile.json" DESTINATION "${WORK}/relative")
  configure(fail "${WORK}/relative" "${WORK}/relative-build" ${real_probe} -DGPU_TOPOLOGY_PROFILE=broken-profile.json)
  expect_in("${output}" "${WORK}/relative/broken-profile.json: invalid profile")

elseif(MODE STREQUAL "hostile")
  set(name [=[H200 ]==] message(FATAL_ERROR pwned) #[==[ "*/ #define l1 0 /*" \ ${HOME} $ENV{PATH} ; @ONLY@]=])
  file(READ "${stored}" json)
  string(REPLACE "\\" "\\\\" escaped "${name}")
  string(REPLACE "\"" "\\\"" escaped "${escaped}")
  string(JSON json SET "${json}" device name "\"${escaped}\"")
  file(WRITE "${WORK}/hostile.json" "${json}")
  write_project("${WORK}/project" [=[
add_executable(prints_name prints_name.cpp)
gpu_topology_generate(TARGET prints_name)
gpu_topology_get(name DEVICE_NAME)
file(WRITE "${CMAKE_BINARY_DIR}/name.txt" "${name}")
]=])
  file(WRITE "${WORK}/project/prints_name.cpp"
       "#include <gpu_topology.hpp>\n#include <cstdio>\nint main() { std::fputs(GPU_TOPOLOGY_DEVICE_NAME, stdout); return 0; }\n")
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${real_probe}
      -DGPU_TOPOLOGY_PROFILE=${WORK}/hostile.json)
  expect_not_in("${output}" "CMake Error")
  file(READ "${WORK}/build/name.txt" seen)
  if(NOT seen STREQUAL name)
    message(FATAL_ERROR "the device name changed on its way through CMake:\n  ${name}\n  ${seen}")
  endif()
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/build")
  run(ok "${WORK}/build/prints_name")
  if(NOT output STREQUAL "${name}\n")
    message(FATAL_ERROR "the device name changed on its way through C++:\n  ${name}\n  ${output}")
  endif()

elseif(MODE STREQUAL "require")
  write_project("${WORK}/project" [=[
add_library(kernels INTERFACE)
gpu_topology_generate(TARGET kernels)
gpu_topology_require(${QUANTITY} ${OP} ${VALUE})
]=])
  set(n 0)
  foreach(case "ok;SM_COUNT;GREATER_EQUAL;100;requirement met: SM_COUNT = 132 GREATER_EQUAL 100"
               "ok;CC_MAJOR;EQUAL;9;requirement met: CC_MAJOR = 9 EQUAL 9"
               "ok;CONSTANT_L15_SIZE_BYTES;GREATER_EQUAL;65536;CONSTANT_L15_SIZE_BYTES = at least 65536 GREATER_EQUAL 65536"
               "fail;CONSTANT_L15_SIZE_BYTES;LESS;100000;cannot be decided: NVIDIA H200 has CONSTANT_L15_SIZE_BYTES of at least 65536, a lower bound"
               "fail;L2_NEAR_SIZE_BYTES;GREATER_EQUAL;1099511627776;requirement not met: L2_NEAR_SIZE_BYTES GREATER_EQUAL 1099511627776"
               "fail;TEXTURE_LINE_BYTES;EQUAL;128;cannot be checked: TEXTURE_LINE_BYTES was not measured on NVIDIA H200"
               "fail;L1_SIZE;EQUAL;1;unknown quantity 'L1_SIZE'"
               "fail;L1_SIZE_BYTES;ABOUT;1;'ABOUT' is not one of")
    list(POP_FRONT case expect quantity op value message)
    math(EXPR n "${n} + 1")
    run(${expect} "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build${n}" -G "${GENERATOR}" ${stored_arg}
        -DQUANTITY=${quantity} -DOP=${op} -DVALUE=${value})
    expect_in("${output}" "${message}")
  endforeach()
  # gpu_topology_get says what it knows of a value besides the number: a lower bound, a doubt.
  write_project("${WORK}/get" [=[
add_library(kernels INTERFACE)
gpu_topology_generate(TARGET kernels)
gpu_topology_get(l15 CONSTANT_L15_SIZE_BYTES)
gpu_topology_get(sms SM_COUNT)
message(STATUS "l15=${l15} lower=${l15_IS_LOWER_BOUND} doubt=[${l15_DOUBT}] sms_lower=[${sms_IS_LOWER_BOUND}]")
]=])
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/get" -B "${WORK}/get-build" -G "${GENERATOR}" ${stored_arg})
  expect_in("${output}" "l15=65536 lower=TRUE doubt=[] sms_lower=[]")

elseif(MODE STREQUAL "bad_options")
  set(n 0)
  foreach(case "GPU_TOPOLOGY_LEVEL=thorough" "GPU_TOPOLOGY_TIME_BUDGET=5s" "GPU_TOPOLOGY_TIME_BUDGET=0"
               "GPU_TOPOLOGY_ON_NO_GPU=erorr" "GPU_TOPOLOGY_ON_BUSY_GPU=loud" "GPU_TOPOLOGY_PROBE_TIMEOUT=soon"
               "GPU_TOPOLOGY_DEVICE=first")
    string(REPLACE "=" ";" pair "${case}")
    list(GET pair 0 variable)
    list(GET pair 1 value)
    math(EXPR n "${n} + 1")
    configure(fail "${example}" "${WORK}/build${n}" ${stored_arg} -D${case})
    if(variable STREQUAL "GPU_TOPOLOGY_DEVICE")
      expect_in("${output}" "DEVICE '${value}' is not a device index")
    else()
      expect_in("${output}" "${variable} is '${value}'")
    endif()
  endforeach()
  # Policies are case-insensitive.
  configure(ok "${example}" "${WORK}/case" ${stored_arg} -DGPU_TOPOLOGY_ON_NO_GPU=ERROR -DGPU_TOPOLOGY_LEVEL=Quick)

elseif(MODE STREQUAL "two_calls")
  derive_profile("${WORK}/small-l2.json" caches.l2.size_bytes.value 15728640 caches.l2.near_size_bytes.value 7340032)
  write_project("${WORK}/project" "
add_executable(big big.cpp)
add_executable(small small.cpp)
gpu_topology_generate(NAME big TARGET big PROFILE nvidia-h200)
gpu_topology_generate(NAME small TARGET small PROFILE \"${WORK}/small-l2.json\")
gpu_topology_require(FOR big L2_SIZE_BYTES GREATER 40000000)
gpu_topology_require(FOR small L2_SIZE_BYTES LESS 20000000)
gpu_topology_get(big_l2 L2_SIZE_BYTES FOR big)
gpu_topology_get(small_l2 L2_SIZE_BYTES FOR small)
message(STATUS \"values: big \${big_l2}, small \${small_l2}\")
if(DEFINED AMBIGUOUS)
  gpu_topology_require(L2_SIZE_BYTES GREATER 0)
endif()
if(DEFINED AGAIN)
  gpu_topology_generate(NAME big PROFILE nvidia-h200)
endif()
")
  file(WRITE "${WORK}/project/big.cpp" "#include <gpu_topology.hpp>\nstatic_assert(gpu_topology::l2.size_bytes == 62914560ull);\nint main() {}\n")
  file(WRITE "${WORK}/project/small.cpp" "#include <gpu_topology.hpp>\nstatic_assert(gpu_topology::l2.size_bytes == 15728640ull);\nint main() {}\n")
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${real_probe})
  expect_in("${output}" "values: big 62914560, small 15728640")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/build")
  run(fail "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/ambiguous" -G "${GENERATOR}" ${real_probe} -DAMBIGUOUS=1)
  expect_in("${output}" "several gpu_topology_generate() calls (big, small); say which with FOR <name>")
  run(fail "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/again" -G "${GENERATOR}" ${real_probe} -DAGAIN=1)
  expect_in("${output}" "NAME 'big' is used by an earlier call")

elseif(MODE STREQUAL "fake_gpu")
  set(fake "${CMAKE_CURRENT_LIST_DIR}/fake_probe.sh")
  set(ENV{FAKE_REAL_PROBE} "${PROBE}")
  set(ENV{FAKE_PROFILE} "${stored}")
  set(ENV{FAKE_LOG} "${WORK}/probe.log")
  set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
  # Measured once, then reused from the build tree's cache; REPROBE measures again.
  configure(ok "${example}" "${WORK}/consumer" ${measure})
  expect_in("${output}" "probing NVIDIA H200 (device 0, GPU-fake-0000)" "GPUTopology: NVIDIA H200")
  expect_not_in("${output}" "stored profile")
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
  expect_in("${output}" "reusing this build tree's measurement")
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=ON)
  expect_in("${output}" "probing NVIDIA H200")
  # A corrupt cached profile is measured again, and the configure says so.
  file(GLOB cached "${WORK}/consumer/_gpu_topology/profile-*.json")
  file(WRITE "${cached}" "{\"schema\": \"gpu-topology/2\", \"trunc")
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=OFF)
  expect_in("${output}" "the cached profile is corrupt, so the GPU is measured again" "probing NVIDIA H200")
  # A busy GPU: a warning that names what is not vouched for, nothing cached; or, asked for, an error.
  set(ENV{FAKE_MODE} busy)
  configure(ok "${example}" "${WORK}/busy" ${measure})
  expect_in("${output}" "CMake Warning" "other work ran on NVIDIA H200 while it was probed")
  # A stored profile measured while busy warns too, though no probe ran.
  derive_profile("${WORK}/busy-stored.json" conditions.quiet false)
  configure(ok "${example}" "${WORK}/busy-stored" -DGPU_TOPOLOGY_PROFILE=${WORK}/busy-stored.json)
  expect_in("${output}" "CMake Warning" "other work ran on NVIDIA H200 while it was probed")
  expect_not_in("${output}" "The next configure measures again")
  file(GLOB cached "${WORK}/busy/_gpu_topology/profile-*.json")
  if(cached)
    message(FATAL_ERROR "a profile measured on a busy GPU was cached: ${cached}")
  endif()
  configure(fail "${example}" "${WORK}/busy-error" ${measure} -DGPU_TOPOLOGY_ON_BUSY_GPU=error)
  expect_in("${output}" "GPU_TOPOLOGY_ON_BUSY_GPU=error stops the configure")
  # A probe that fails stops the configure and caches nothing; a GPU that cannot be probed is an error.
  set(ENV{FAKE_MODE} fail)
  configure(fail "${example}" "${WORK}/fail" ${measure})
  expect_in("${output}" "the probe failed (1)" "Nothing was cached")
  set(ENV{FAKE_MODE} broken)
  configure(fail "${example}" "${WORK}/broken" ${measure})
  expect_in("${output}" "a GPU is present, but device 0 cannot be probed")
  # Two configures at once never probe one GPU at the same time.
  set(ENV{FAKE_MODE} "")
  set(ENV{FAKE_SECONDS} 2)
  file(REMOVE "${WORK}/probe.log")
  # Two build trees of one machine: the second configure's probe waits for the first's.
  file(WRITE "${WORK}/tree.sh" "exec \"$1\" -S \"$2\" -B \"$3-$$\" -G \"$4\" \"$5\" \"$6\"\n")
  twice_at_once(lock sh "${WORK}/tree.sh" "${CMAKE_COMMAND}" "${example}" "${WORK}/tree" "${GENERATOR}"
                "-DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE}" "${measure}")
  file(STRINGS "${WORK}/probe.log" events)
  list(TRANSFORM events REPLACE " .*" "")
  if(NOT events STREQUAL "start;end;start;end")
    message(FATAL_ERROR "two probes of one GPU overlapped: ${events}")
  endif()

elseif(MODE STREQUAL "node")
  set(fake "${CMAKE_CURRENT_LIST_DIR}/fake_probe.sh")
  set(node "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200-x2-node.json")
  set(ENV{FAKE_REAL_PROBE} "${PROBE}")
  set(ENV{FAKE_PROFILE} "${stored}")
  set(ENV{FAKE_NODE_PROFILE} "${node}")
  set(ENV{FAKE_LOG} "${WORK}/probe.log")
  set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
  # One model: one set of facts, the values that differ withheld, the node in the header.
  configure(ok "${example}" "${WORK}/alike" ${measure} -DGPU_TOPOLOGY_DEVICE=ALL)
  expect_in("${output}" "probing NVIDIA H200 (2 devices)" "node: 2 devices" "link 0 -> 1: nvswitch x18"
            "differs between the node's devices")
  file(READ "${WORK}/alike/gpu_topology/minimal/gpu_topology.hpp" header)
  expect_in("${header}" "inline constexpr int device_count = 2;" "GPU_TOPOLOGY_DSMEM_LATENCY_CYCLES_UNMEASURED")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/alike")
  # Two models: no common facts; the configure names the difference and asks for DEVICE.
  file(READ "${node}" json)
  file(READ "${PACKAGE_SOURCE}/generated/profiles/nvidia-h100.json" h100)
  string(JSON h100 SET "${h100}" device index 1)
  string(JSON json SET "${json}" devices 1 "${h100}")
  file(WRITE "${WORK}/two-models.json" "${json}")
  set(ENV{FAKE_NODE_PROFILE} "${WORK}/two-models.json")
  configure(fail "${example}" "${WORK}/unlike" ${measure} -DGPU_TOPOLOGY_DEVICE=ALL)
  expect_in("${output}" "not one model" "device 1: model NVIDIA H100 80GB HBM3, device 0: NVIDIA H200"
            "DEVICE <index>")
  # DEVICES takes ALL only, and not beside DEVICE.
  write_project("${WORK}/args" "add_library(lib INTERFACE)\nif(BOTH)\n  set(extra DEVICE 0)\nendif()\ngpu_topology_generate(TARGET lib DEVICES \${WHICH} \${extra})\n")
  configure(fail "${WORK}/args" "${WORK}/args-some" ${stored_arg} -DWHICH=some)
  expect_in("${output}" "DEVICES 'some' is not ALL")
  configure(fail "${WORK}/args" "${WORK}/args-both" ${stored_arg} -DWHICH=ALL -DBOTH=ON)
  expect_in("${output}" "give DEVICE (one device) or DEVICES ALL (every device), not both")
  # The tests of a DEVICES ALL target check every device: DEVICE n is refused, not ignored.
  write_project("${WORK}/tests" "enable_testing()\nadd_library(lib INTERFACE)\ngpu_topology_generate(TARGET lib DEVICES ALL)\ngpu_topology_add_tests(DEVICE 1)\n")
  configure(fail "${WORK}/tests" "${WORK}/tests-build" ${stored_arg})
  expect_in("${output}" "its tests check every device, so DEVICE 1 does not apply")
  # No GPU: the stored profile, with the usual warning, describes a node of one device.
  set(ENV{FAKE_MODE} nogpu)
  configure(ok "${example}" "${WORK}/nogpu" ${measure} -DGPU_TOPOLOGY_DEVICE=ALL)
  expect_in("${output}" "describes the GPU of the stored profile")
  file(READ "${WORK}/nogpu/gpu_topology/minimal/gpu_topology.hpp" header)
  expect_in("${header}" "inline constexpr int device_count = 1;")

elseif(MODE STREQUAL "heal")
  # A user's own profile needs a probe to render it: the one nested build, here.
  derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
  # The tree exists (CMake's own first configure of one tree cannot run twice at
  # once: its compiler checks share files), with a stored profile: no probe built.
  configure(ok "${example}" "${WORK}/consumer" ${stored_arg})
  expect_nothing_compiled("${WORK}/consumer")
  # What an interrupted configure leaves: a nested build directory with a cache
  # and no stamp. Two configures of the tree start at once; both must work.
  file(WRITE "${WORK}/consumer/_gpu_topology/probe-host/CMakeCache.txt" "garbage from an interrupted configure\n")
  twice_at_once(heal "${CMAKE_COMMAND}" "${WORK}/consumer" "-DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json")
  expect_in("${output}" "configuring it afresh" "building the probe (host")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
  run(ok "${WORK}/consumer/minimal")
  expect_in("${output}" "My H200")

elseif(MODE STREQUAL "gpu_identity")
  include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
  _gpu_topology_no_gpu_reason(no_gpu)
  if(NOT no_gpu STREQUAL "")
    message("GPU_TOPOLOGY_SKIPPED: ${no_gpu}")
    return()
  endif()
  # Another GPU's profile: the identity test must fail.
  derive_profile("${WORK}/other.json" device.name "\"Another GPU\"")
  configure(ok "${example}" "${WORK}/other" -DGPU_TOPOLOGY_PROFILE=${WORK}/other.json)
  run(fail "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/other" -R identity --output-on-failure)
  expect_in("${output}" "FAIL device name" "Another GPU")
  # This GPU, measured at configure time: both tests pass.
  configure(ok "${example}" "${WORK}/this")
  expect_in("${output}" "probing")
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/this" -L gpu --output-on-failure)
  expect_in("${output}" "100% tests passed")
  expect_not_in("${output}" "Skipped" "did not run")  # on this GPU they run, not skip

else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
message("consumer test ${MODE}: passed")

# Consumer projects configured (and built) from CTest, the way users consume
# the package. One MODE per test (tests/cmake/CMakeLists.txt):
#   subdirectory, fetchcontent, installed   examples/minimal three ways, with a stored profile chosen
#                     on purpose (a status line, no warning); GPUTopology::gpu-topology-probe each way;
#                     installing a tree that was configured but not built says to build it
#   no_gpu            no GPU: a warning naming the stored profile; ON_NO_GPU=error stops; nothing compiled;
#                     a probe that finds no usable GPU (exit 77) follows ON_NO_GPU too
#   broken            a broken profile stops the configure, naming the file, the field and the value
#   hostile           text meant to break out of CMake and C++ stays text, byte for byte
#   require           requirements: met, not met, a lower bound, unmeasured, identity quantities;
#                     gpu_topology_get returns the lower-bound flag and the doubt beside the value,
#                     even a doubt or a reason that CMake's if() would take for false
#   bad_options       each wrong option value stops the configure, naming variable and value
#   two_calls         two gpu_topology_generate calls own their headers, targets and values; a
#                     hyphenated TARGET names its call
#   fake_gpu          the measuring path with a stand-in probe: cache, corrupt cache, busy GPU,
#                     failures, and the per-GPU lock between configures, kept per user
#   quiet             what a configure prints: a few lines by default (counted), the probe's stages and
#                     the whole table with --log-level=VERBOSE, the nested build's output when it fails
#   native_arch       (with a CUDA compiler) a CUDA consumer that sets no architectures gets a measuring
#                     probe built for the GPU here, and a re-configure builds nothing
#   heal              an interrupted nested build heals; two configures of one tree at once both work
#   stop              a configure stopped with SIGTERM or SIGKILL stops the probe's nested build with it,
#                     and the next configure never builds beside a build left running
#   moved             a moved package source, and a switch from find_package to add_subdirectory
#   scopes            find_package in a subdirectory; gpu_topology_generate at the top level
#   no_cuda           after "no CUDA compiler", fixing the environment works on the next configure
#   cross             cross-compiling with a user's profile: the probe that renders it is a host program
#   node              DEVICES ALL with a stand-in probe: a node of one model configures (what differs
#                     is withheld), one of two models stops the configure; wrong DEVICES values stop it;
#                     without a GPU it falls back to the stored profile
#   resources         DEVICES ALL on a stand-in node of two GPUs: a CTest resource spec file of its GPUs,
#                     per-device checks that `ctest -j` runs on two distinct GPUs at once, the project's
#                     own tests handed GPUs (gpu_topology_test_resources, gpu_topology::ctest_device)
#   gpu_identity      (a GPU runner) the consumer's GPU tests fail against another GPU's profile, and pass
#                     against this one's, measured at configure time
#   gpu_native        (a GPU runner) a CUDA consumer that sets no architectures measures with machine
#                     code for this GPU (the cluster facts on cc >= 9.0); its re-configure builds nothing
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

if(MODE MATCHES "^(subdirectory|fetchcontent|installed)$")
  set(args ${stored_arg})
  # Every way of consuming the package offers the same targets: checked when the project is read.
  file(WRITE "${WORK}/targets.cmake" [=[
if(CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)  # the consumer's project(), not the package's
  cmake_language(DEFER CALL _check_targets)
endif()
function(_check_targets)
  if(NOT TARGET GPUTopology::gpu-topology-probe)
    message(FATAL_ERROR "no target GPUTopology::gpu-topology-probe")
  endif()
  get_target_property(type GPUTopology::gpu-topology-probe TYPE)
  message(STATUS "target GPUTopology::gpu-topology-probe: ${type}")
endfunction()
]=])
  list(APPEND args -DCMAKE_PROJECT_INCLUDE=${WORK}/targets.cmake)
  if(NOT MODE STREQUAL "fetchcontent")  # examples/minimal; the FetchContent project requires it itself
    list(APPEND args -DMINIMAL_REQUIRE_L2_NEAR=1048576)
  endif()
  if(MODE STREQUAL "installed")
    # The package as a user installs it: the tested build tree, no second build.
    run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
    run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer" -G "${GENERATOR}"
        -DCMAKE_PREFIX_PATH=${WORK}/prefix ${args})
    if(NOT EXISTS "${WORK}/prefix/bin/gpu-topology-probe")
      message(FATAL_ERROR "the install has no prebuilt probe")
    endif()
  elseif(MODE STREQUAL "fetchcontent")
    file(WRITE "${WORK}/project/CMakeLists.txt"
         "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\ninclude(FetchContent)\n"
         "FetchContent_Declare(GPUTopology SOURCE_DIR \"${PACKAGE_SOURCE}\")\nFetchContent_MakeAvailable(GPUTopology)\n"
         "add_executable(minimal \"${example}/main.cpp\")\ngpu_topology_generate(TARGET minimal)\n"
         "gpu_topology_require(L2_NEAR_SIZE_BYTES GREATER_EQUAL 1048576)\n"
         "enable_testing()\nadd_test(NAME minimal.prints COMMAND minimal)\ngpu_topology_add_tests()\n")
    run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/consumer" -G "${GENERATOR}" ${args})
  else()
    configure(ok "${example}" "${WORK}/consumer" ${args})
  endif()
  # A stored profile chosen on purpose is a status line, not a warning.
  expect_in("${output}" "requirement met: L2_NEAR_SIZE_BYTES" "describes the GPU of the stored profile"
            "target GPUTopology::gpu-topology-probe: EXECUTABLE")
  expect_not_in("${output}" "CMake Warning")
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
  if(MODE STREQUAL "installed")
    # The package's own tree, configured and not built: installing it says what to do first.
    run(ok "${CMAKE_COMMAND}" -S "${PACKAGE_SOURCE}" -B "${WORK}/unbuilt" -G "${GENERATOR}" ${stored_arg}
        -DGPU_TOPOLOGY_BUILD_TESTS=OFF -DGPU_TOPOLOGY_PROBE_CUDA=OFF)
    run(fail "${CMAKE_COMMAND}" --install "${WORK}/unbuilt" --prefix "${WORK}/unbuilt-prefix")
    expect_in("${output}" "GPUTopology: nothing to install yet: build first (cmake --build ${WORK}/unbuilt)")
    # The pre-rendered header is copied only for the profile it was rendered from. An
    # installed profile edited since is rendered again (a valid edit shows in the header)
    # and so validated (an invalid one stops the configure, naming the field).
    set(installed_profile "${WORK}/prefix/share/GPUTopology/generated/profiles/nvidia-h200.json")
    file(READ "${installed_profile}" json)
    string(JSON json SET "${json}" device name "\"NVIDIA H200 (edited)\"")
    file(WRITE "${installed_profile}" "${json}")
    run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/edited" -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${WORK}/prefix
        ${stored_arg})
    file(READ "${WORK}/edited/gpu_topology/minimal/gpu_topology.hpp" header)
    expect_in("${header}" "#define GPU_TOPOLOGY_DEVICE_NAME \"NVIDIA H200 (edited)\"")
    string(JSON json SET "${json}" caches l1 size_bytes value "\"big\"")
    file(WRITE "${installed_profile}" "${json}")
    run(fail "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/edited-invalid" -G "${GENERATOR}"
        -DCMAKE_PREFIX_PATH=${WORK}/prefix ${stored_arg})
    expect_in("${output}" "nvidia-h200.json: invalid profile" "caches.l1.size_bytes.value: expected number")
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
  # A GPU is seen, but the probe finds no usable one (exit 77: here, no device 1): the same policy.
  set(ENV{FAKE_DEVICES} 1)
  configure(ok "${example}" "${WORK}/no-device" -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake} -DGPU_TOPOLOGY_DEVICE=1)
  expect_in("${output}" "CMake Warning" "describes the GPU of the stored profile"
            "no GPU to probe: device 1: gpu-topology-probe: no CUDA device 1 (1 found): fake")
  configure(fail "${example}" "${WORK}/no-device-error" -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake}
            -DGPU_TOPOLOGY_DEVICE=1 -DGPU_TOPOLOGY_ON_NO_GPU=error)
  expect_in("${output}" "no GPU to probe (device 1: gpu-topology-probe: no CUDA device 1" "GPU_TOPOLOGY_ON_NO_GPU=error")

elseif(MODE STREQUAL "broken")
  file(READ "${stored}" json)
  string(JSON json SET "${json}" caches l1 size_bytes value "\"big\"")
  string(JSON json SET "${json}" caches l2 line_bytes "\"wide\"")
  file(WRITE "${WORK}/broken-profile.json" "${json}")
  configure(fail "${example}" "${WORK}/consumer" ${real_probe} -DGPU_TOPOLOGY_PROFILE=${WORK}/broken-profile.json)
  expect_in("${output}" "broken-profile.json: invalid profile"
            "caches.l1.size_bytes.value: expected number, got string (\"big\")"
            "caches.l2.line_bytes: expected object, got string (\"wide\")")
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
gpu_topology_get(fetch L2_SECTOR_BYTES)
gpu_topology_get(fetch_now L2_DRAM_FETCH_BYTES)
message(STATUS "old name: ${fetch} new: ${fetch_now}")
]=])
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/get" -B "${WORK}/get-build" -G "${GENERATOR}" ${stored_arg})
  expect_in("${output}" "l15=65536 lower=TRUE doubt=[] sms_lower=[]")
  # A renamed quantity answers to its old name, with a deprecation message.
  expect_in("${output}" "old name: 64 new: 64")
  expect_in("${output}" "L2_SECTOR_BYTES is now L2_DRAM_FETCH_BYTES")
  # A doubt or a reason is text, even one that CMake's if() takes for false ("N", "...-NOTFOUND").
  derive_profile("${WORK}/falsy.json" caches.l1.size_bytes.doubt "\"N\""
                 caches.texture.line_bytes.reason "\"why-NOTFOUND\"")
  # So is a call's NAME, a TARGET, a stray argument ("N", "OFF").
  write_project("${WORK}/falsy" [=[
add_library(kernels INTERFACE)
add_library(OFF INTERFACE)
if(STRAY)
  gpu_topology_generate(OFF NAME stray TARGET kernels)
endif()
gpu_topology_generate(NAME N TARGET kernels)
gpu_topology_generate(TARGET OFF PROFILE nvidia-h200)
get_target_property(off_profile GPUTopology::OFF GPU_TOPOLOGY_PROFILE_FILE)
message(STATUS "the call of TARGET OFF: ${off_profile}")
gpu_topology_get(l1 L1_SIZE_BYTES FOR N)
gpu_topology_get(line TEXTURE_LINE_BYTES FOR N)
message(STATUS "l1 doubt=[${l1_DOUBT}] line=[${line}] unmeasured=[${line_UNMEASURED}]")
gpu_topology_require(FOR N L1_SIZE_BYTES GREATER 0)
]=])
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/falsy" -B "${WORK}/falsy-build" -G "${GENERATOR}" ${real_probe}
      -DGPU_TOPOLOGY_PROFILE=${WORK}/falsy.json)
  expect_in("${output}" "l1 doubt=[N] line=[] unmeasured=[why-NOTFOUND]"
            "requirement L1_SIZE_BYTES GREATER 0 rests on a value not vouched for: N"
            "the call of TARGET OFF: ${PACKAGE_SOURCE}/generated/profiles/nvidia-h200.json")
  run(fail "${CMAKE_COMMAND}" -S "${WORK}/falsy" -B "${WORK}/falsy-stray" -G "${GENERATOR}" ${real_probe}
      -DGPU_TOPOLOGY_PROFILE=${WORK}/falsy.json -DSTRAY=ON)
  expect_in("${output}" "gpu_topology_generate: unknown arguments: OFF")
  # The only call, named N: gpu_topology_get needs no FOR.
  write_project("${WORK}/only-n" [=[
add_library(kernels INTERFACE)
gpu_topology_generate(NAME N TARGET kernels)
gpu_topology_get(sms SM_COUNT)
message(STATUS "sms=${sms}")
]=])
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/only-n" -B "${WORK}/only-n-build" -G "${GENERATOR}" ${stored_arg})
  expect_in("${output}" "sms=132")

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
if(DEFINED HYPHENATED)
  add_library(my-kernels INTERFACE)
  gpu_topology_generate(TARGET my-kernels PROFILE nvidia-h200)
  gpu_topology_get(hyphenated_l2 L2_SIZE_BYTES FOR my_kernels)
  message(STATUS \"my-kernels: GPUTopology::my_kernels, L2 \${hyphenated_l2}\")
  add_library(my_kernels INTERFACE)
  gpu_topology_generate(TARGET my_kernels PROFILE nvidia-h200)
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
  # A TARGET that is no C identifier names its call all the same; a second one that maps to it is told apart.
  run(fail "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/hyphenated" -G "${GENERATOR}" ${real_probe}
      -DHYPHENATED=1)
  expect_in("${output}" "my-kernels: GPUTopology::my_kernels, L2 62914560"
            "NAME 'my_kernels' (from TARGET my_kernels) is used by an earlier call; give each call its own NAME")

elseif(MODE STREQUAL "fake_gpu")
  set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
  # The lock of another user in a shared /tmp: a file this user cannot open for writing
  # (here a directory in its place, which even root cannot). Probes lock per user instead.
  file(MAKE_DIRECTORY "${WORK}/tmp/gpu-topology-GPU_fake_0000.lock")
  set(ENV{TMPDIR} "${WORK}/tmp")
  # Measured once, then reused from the build tree's cache; REPROBE measures again.
  configure(ok "${example}" "${WORK}/consumer" ${measure})
  expect_in("${output}" "probing NVIDIA H200 (device 0, GPU-fake-0000)" "GPUTopology: NVIDIA H200")
  expect_not_in("${output}" "stored profile")
  if(NOT EXISTS "${WORK}/cache/gpu-topology/GPU_fake_0000.lock")
    message(FATAL_ERROR "the GPU's lock is not in the user's own directory (XDG_CACHE_HOME/gpu-topology)")
  endif()
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
  expect_in("${output}" "NVIDIA H200: this build tree's measurement")
  expect_not_in("${output}" "probing")
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=ON)
  expect_in("${output}" "probing NVIDIA H200")
  # A corrupt cached profile is measured again, and the configure says so.
  file(GLOB cached "${WORK}/consumer/_gpu_topology/profile-*.json")
  file(WRITE "${cached}" "{\"schema\": \"gpu-topology/2\", \"trunc")
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=OFF)
  expect_in("${output}" "the cached profile is corrupt, so the GPU is measured again" "probing NVIDIA H200")
  # Locks that cannot be kept where they belong: a warning, and the build tree keeps them.
  set(ENV{XDG_CACHE_HOME} "${WORK}/cache-is-a-file")
  file(WRITE "${WORK}/cache-is-a-file" "")
  configure(ok "${example}" "${WORK}/no-lock-dir" ${measure})
  expect_in("${output}" "cannot keep the GPU locks in ${WORK}/cache-is-a-file/gpu-topology")
  if(NOT EXISTS "${WORK}/no-lock-dir/_gpu_topology/GPU_fake_0000.lock")
    message(FATAL_ERROR "without a lock directory the build tree does not keep the lock")
  endif()
  set(ENV{XDG_CACHE_HOME} "${WORK}/cache")
  # A busy GPU: a warning that names what is not vouched for, nothing cached; or, asked for, an error.
  set(ENV{FAKE_MODE} busy)
  configure(ok "${example}" "${WORK}/busy" ${measure})
  expect_in("${output}" "CMake Warning" "other work ran on NVIDIA H200 while it was probed")
  # A stored profile measured while busy warns too, though no probe ran.
  derive_profile("${WORK}/busy-stored.json" conditions.quiet false)
  configure(ok "${example}" "${WORK}/busy-stored" ${real_probe} -DGPU_TOPOLOGY_PROFILE=${WORK}/busy-stored.json)
  expect_in("${output}" "CMake Warning" "other work ran on NVIDIA H200 while it was probed")
  expect_not_in("${output}" "The next configure measures again")
  file(GLOB cached "${WORK}/busy/_gpu_topology/profile-*.json")
  if(cached)
    message(FATAL_ERROR "a profile measured on a busy GPU was cached: ${cached}")
  endif()
  configure(fail "${example}" "${WORK}/busy-error" ${measure} -DGPU_TOPOLOGY_ON_BUSY_GPU=error)
  expect_in("${output}" "GPU_TOPOLOGY_ON_BUSY_GPU=error stops the configure")
  # A probe that fails stops the configure, shows what it printed and caches nothing; a GPU that
  # cannot be probed is an error.
  set(ENV{FAKE_MODE} fail)
  configure(fail "${example}" "${WORK}/fail" ${measure})
  expect_in("${output}" "the probe failed (1)" "Nothing was cached" "stage l1: fake progress line"
            "gpu-topology-probe: fake failure")
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

elseif(MODE STREQUAL "quiet")
  set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
  # A first measured configure: a few lines; the probe's stages and the table stay out.
  configure(ok "${example}" "${WORK}/consumer" ${measure})
  expect_our_lines("${stdout}" 12 "first measured configure")
  expect_in("${output}" "probing NVIDIA H200 (device 0, GPU-fake-0000) - done (" "wrote")
  expect_not_in("${output}" "stage warm-up" "CMake Warning" "L1 hit latency")
  # A re-configure that changes nothing: at most 3 lines.
  run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
  expect_our_lines("${stdout}" 3 "re-configure")
  expect_in("${output}" "is up to date")
  # Asked for: every stage as it comes, and the whole table.
  run(ok "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/consumer" -DGPU_TOPOLOGY_REPROBE=ON)
  expect_in("${output}" "stage warm-up: fake progress line" "stage l1: fake progress line" "L1 hit latency")
  # A user's profile: the nested build of the probe that renders it prints nothing by default
  # (here a stand-in build: fake_make.sh), and everything when it fails.
  derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
  set(nested -DCMAKE_MAKE_PROGRAM=${fake_make} -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json)
  configure(ok "${example}" "${WORK}/nested" ${nested})
  expect_our_lines("${stdout}" 12 "first configure with a user's profile")
  expect_in("${output}" "building the probe (render only) - done (")
  expect_not_in("${output}" "fake-progress-line" "_gpu_topology/probe-render" "CMake Warning")
  run(ok "${CMAKE_COMMAND}" "${WORK}/nested")
  expect_our_lines("${stdout}" 3 "re-configure with a user's profile")
  set(ENV{FAKE_MAKE_MODE} fail)
  configure(fail "${example}" "${WORK}/nested-fails" ${nested})
  expect_in("${output}" "building the probe (render only) - failed" "building the probe in"
            "[1/2] Building CXX object fake-progress-line.o" "fake-compile-error: the stand-in build failed")

elseif(MODE STREQUAL "stamp")
  # What makes the nested probe build configure again: its arguments, compilers by the
  # file they are, and the CUDA host compiler the consumer names or else the one the
  # probe's configure found (CMake 4 caches one in the consumer from its second
  # configure on: the same compiler, no change).
  include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
  file(MAKE_DIRECTORY "${WORK}/bin")
  file(WRITE "${WORK}/bin/g++-13" "")
  file(CREATE_LINK "${WORK}/bin/g++-13" "${WORK}/bin/g++" SYMBOLIC)
  set(args -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/g++")
  _gpu_topology_probe_stamp(ARGUMENTS ${args} CONFIGURED_HOST "" RESULT first)
  _gpu_topology_probe_stamp(ARGUMENTS ${args} CONFIGURED_HOST "${WORK}/bin/g++-13" RESULT configured)
  _gpu_topology_probe_stamp(ARGUMENTS ${args} "-DCMAKE_CUDA_HOST_COMPILER=${WORK}/bin/g++"
                            CONFIGURED_HOST "${WORK}/bin/g++-13" RESULT named_same)
  _gpu_topology_probe_stamp(ARGUMENTS ${args} "-DCMAKE_CUDA_HOST_COMPILER=${WORK}/bin/other"
                            CONFIGURED_HOST "${WORK}/bin/g++-13" RESULT named_other)
  _gpu_topology_probe_stamp(ARGUMENTS -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/g++-13"
                            CONFIGURED_HOST "" RESULT through_the_link)
  if(NOT configured STREQUAL named_same)
    message(FATAL_ERROR "naming the host compiler the probe's configure found (through a link) changed the stamp")
  endif()
  if(named_other STREQUAL configured OR first STREQUAL configured)
    message(FATAL_ERROR "another host compiler left the stamp as it was")
  endif()
  if(NOT through_the_link STREQUAL first)
    message(FATAL_ERROR "a compiler named through a link changed the stamp")
  endif()

elseif(MODE STREQUAL "native_arch")
  # A CUDA consumer that sets no architectures: enable_language(CUDA) caches nvcc's default,
  # which the probe that measures must not take (it would run as JIT-compiled PTX, without
  # the cluster facts). Here a GPU of compute capability 9.0 (a stand-in nvidia-smi); the
  # nested configure is real, its build a stand-in that "builds" the stand-in probe.
  fake_nvidia_smi("${WORK}")
  set(ENV{FAKE_BUILT_PROBE} "${fake}")
  write_project("${WORK}/project" "enable_language(CUDA)\nadd_library(kernels INTERFACE)\ngpu_topology_generate(TARGET kernels)\n")
  set(args -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DCMAKE_MAKE_PROGRAM=${fake_make})
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${args})
  expect_our_lines("${stdout}" 12 "first measured configure")
  expect_in("${output}" "building the probe (measuring, 90-real) - done (" "probing NVIDIA H200")
  file(STRINGS "${WORK}/build/CMakeCache.txt" consumer_architectures REGEX "^CMAKE_CUDA_ARCHITECTURES:")
  file(STRINGS "${WORK}/build/_gpu_topology/probe-measure/CMakeCache.txt" probe_architectures
       REGEX "^CMAKE_CUDA_ARCHITECTURES:")
  message(STATUS "the consumer: ${consumer_architectures}; its probe: ${probe_architectures}")
  if(NOT probe_architectures MATCHES "=90-real$")
    message(FATAL_ERROR "the probe was not built for the GPU here (9.0): ${probe_architectures}")
  endif()
  # The README's second configure: nothing configured or built again, a few lines.
  file(TIMESTAMP "${WORK}/build/_gpu_topology/probe-measure/gpu-topology-configured.stamp" stamp_before "%s")
  file(REMOVE "${WORK}/make.log")
  run(ok "${CMAKE_COMMAND}" "${WORK}/build")
  expect_our_lines("${stdout}" 3 "re-configure")
  expect_not_in("${output}" "building the probe" "configuring")
  file(TIMESTAMP "${WORK}/build/_gpu_topology/probe-measure/gpu-topology-configured.stamp" stamp_after "%s")
  if(EXISTS "${WORK}/make.log" OR NOT stamp_before STREQUAL stamp_after)
    message(FATAL_ERROR "the re-configure configured or built the probe again")
  endif()
  # The README's first command, twice: the package's own project enables CUDA after it
  # measured, which caches nvcc's default; the second configure must not take it either.
  set(readme -DGPU_TOPOLOGY_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release ${args})
  run(ok "${CMAKE_COMMAND}" -S "${PACKAGE_SOURCE}" -B "${WORK}/readme" -G "${GENERATOR}" ${readme})
  expect_in("${output}" "building the probe (measuring, 90-real) - done (")
  file(REMOVE "${WORK}/make.log")
  run(ok "${CMAKE_COMMAND}" "${WORK}/readme")
  expect_our_lines("${stdout}" 3 "the README's re-configure")
  expect_not_in("${output}" "building the probe")
  if(EXISTS "${WORK}/make.log")
    message(FATAL_ERROR "the README's re-configure built the probe again")
  endif()
  # GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES adds to the GPU's architecture; it never replaces it.
  run(ok "${CMAKE_COMMAND}" "${WORK}/build" -DGPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES=80)
  expect_in("${output}" "building the probe (measuring, 90-real, 80)")
  file(STRINGS "${WORK}/build/_gpu_topology/probe-measure/CMakeCache.txt" probe_architectures
       REGEX "^CMAKE_CUDA_ARCHITECTURES:")
  if(NOT probe_architectures MATCHES "=90-real.?;80$")  # file(STRINGS) keeps the ; as \;
    message(FATAL_ERROR "the probe's configure did not get both architectures: ${probe_architectures}")
  endif()
  run(fail "${CMAKE_COMMAND}" "${WORK}/build" -DGPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES=sm_80)
  expect_in("${output}" "GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES has 'sm_80'")

elseif(MODE STREQUAL "node")
  set(node "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200-x2-node.json")
  set(ENV{FAKE_NODE_PROFILE} "${node}")
  set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
  # One model: one set of facts, the values that differ withheld, the node in the header.
  configure(ok "${example}" "${WORK}/alike" ${measure} -DGPU_TOPOLOGY_DEVICE=ALL)
  expect_in("${output}" "probing NVIDIA H200 (2 devices)" "node of 2 devices (each device and link: --log-level=VERBOSE)")
  expect_not_in("${output}" "link 0 -> 1")
  run(ok "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/alike" -DGPU_TOPOLOGY_REPROBE=ON)
  expect_in("${output}" "node: 2 devices" "link 0 -> 1: nvswitch x18" "differs between the node's devices")
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
  # A user's own profile needs a probe to render it: the one nested build the CPU tests compile.
  derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
  # The tree exists (CMake's own first configure of one tree cannot run twice at
  # once: its compiler checks share files), with a stored profile: no probe built.
  configure(ok "${example}" "${WORK}/consumer" ${stored_arg})
  expect_nothing_compiled("${WORK}/consumer")
  # What an interrupted configure leaves: a nested build directory with a cache
  # and no stamp. Two configures of the tree start at once; both must work.
  file(WRITE "${WORK}/consumer/_gpu_topology/probe-render/CMakeCache.txt" "garbage from an interrupted configure\n")
  twice_at_once(heal "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/consumer" "-DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json")
  expect_in("${output}" "configuring it afresh" "building the probe (render only)")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
  run(ok "${WORK}/consumer/minimal")
  expect_in("${output}" "My H200")
  # The probe built to render renders, and says what it cannot do.
  run(fail "${WORK}/consumer/_gpu_topology/probe-render/gpu-topology-probe" replay "${WORK}/none.log")
  expect_in("${output}" "'replay' needs the full probe; this one was built to render profiles only")

elseif(MODE STREQUAL "stop")
  # A configure stopped while it builds the probe (a stand-in build that takes a minute) stops
  # that build with it, whether it is asked to (SIGTERM) or killed (SIGKILL).
  derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
  set(consumer "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer" -G "${GENERATOR}"
               -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} -DCMAKE_MAKE_PROGRAM=${fake_make}
               -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json)
  set(ENV{FAKE_MAKE_SECONDS} 60)
  foreach(signal TERM KILL)
    file(REMOVE "${WORK}/make.log.sleeping")
    start_in_background(configure ${consumer})
    wait_for_file("${WORK}/make.log.sleeping" 120)  # the build runs
    file(READ "${WORK}/make.log.sleeping" build)
    string(STRIP "${build}" build)
    execute_process(COMMAND kill -${signal} ${pid})
    # CMake obeys a SIGTERM once its children are done: the configure must end long before the minute.
    wait_for_file("${WORK}/configure.rc" 20 stopped)
    if(NOT stopped)
      message(FATAL_ERROR "a configure sent SIG${signal} was still waiting for its probe's build 20 s later")
    endif()
    foreach(second RANGE 10)
      process_alive(${build} running)
      if(NOT running)
        break()
      endif()
      execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1)
    endforeach()
    if(running)
      message(FATAL_ERROR "SIG${signal} stopped the configure, and its probe's build (process ${build}) runs on")
    endif()
    if(EXISTS "${WORK}/consumer/_gpu_topology/probe-render/gpu-topology-probe")
      message(FATAL_ERROR "the build of a stopped configure went on to its end")
    endif()
  endforeach()
  # Killed again, and configured again at once: the new configure's build never runs beside
  # the old one, which it waits for (its watcher stops it within a second or so).
  file(REMOVE "${WORK}/make.log.sleeping" "${WORK}/make.log")
  start_in_background(configure ${consumer})
  wait_for_file("${WORK}/make.log.sleeping" 120)
  execute_process(COMMAND kill -KILL ${pid})
  set(ENV{FAKE_MAKE_SECONDS} 0)
  run(ok ${consumer})
  file(READ "${WORK}/make.log" events)
  expect_not_in("${events}" "overlap")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
  run(ok "${WORK}/consumer/minimal")
  expect_in("${output}" "My H200")

elseif(MODE STREQUAL "moved")
  # The package's source, moved after a configure: the next configure uses the new place.
  foreach(part CMakeLists.txt cmake generated include probe templates)
    file(COPY "${PACKAGE_SOURCE}/${part}" DESTINATION "${WORK}/first")
  endforeach()
  file(WRITE "${WORK}/project/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES CXX)
if(USE_INSTALL)
  find_package(GPUTopology 1 REQUIRED)
else()
  add_subdirectory("${PACKAGE}" gpu_topology EXCLUDE_FROM_ALL)
endif()
add_library(kernels INTERFACE)
gpu_topology_generate(TARGET kernels PROFILE nvidia-h100)
get_target_property(include GPUTopology::kernels INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "include: ${include}")
]=])
  configure(ok "${WORK}/project" "${WORK}/build" -DPACKAGE=${WORK}/first)
  expect_in("${output}" "${WORK}/first/include" "${WORK}/first/generated/profiles/nvidia-h100.json")
  file(RENAME "${WORK}/first" "${WORK}/second")
  configure(ok "${WORK}/project" "${WORK}/build" -DPACKAGE=${WORK}/second)
  expect_in("${output}" "${WORK}/second/include" "${WORK}/second/generated/profiles/nvidia-h100.json")
  expect_not_in("${output}" "${WORK}/first")
  # From an install to the source tree, in one build tree: the source tree's files.
  run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
  configure(ok "${WORK}/project" "${WORK}/switch" -DUSE_INSTALL=ON -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  expect_in("${output}" "${WORK}/prefix/include/GPUTopology")
  configure(ok "${WORK}/project" "${WORK}/switch" -DUSE_INSTALL=OFF -DPACKAGE=${WORK}/second)
  expect_in("${output}" "${WORK}/second/include")
  expect_not_in("${output}" "${WORK}/prefix")

elseif(MODE STREQUAL "scopes")
  # find_package in a subdirectory, gpu_topology_generate at the top level: the installed
  # probe renders the user's profile there too (nothing is built).
  run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
  derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
  file(WRITE "${WORK}/project/sub/CMakeLists.txt" "find_package(GPUTopology 1 REQUIRED)\n")
  file(WRITE "${WORK}/project/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\n"
       "add_subdirectory(sub)\nadd_library(kernels INTERFACE)\n"
       "gpu_topology_generate(TARGET kernels PROFILE \"${WORK}/mine.json\")\n"
       "gpu_topology_get(name DEVICE_NAME)\nmessage(STATUS \"device: \${name}\")\n")
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}"
      -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  expect_in("${output}" "device: My H200")
  expect_nothing_compiled("${WORK}/build")

elseif(MODE STREQUAL "no_cuda")
  # A GPU (a stand-in nvidia-smi) and no CUDA compiler: the configure says how to fix it,
  # and the fix works on the next configure of the same tree (nothing "not found" is cached).
  fake_nvidia_smi("${WORK}")
  set(ENV{CUDACXX} "${WORK}/cuda/bin/nvcc")
  configure(fail "${example}" "${WORK}/consumer")
  expect_in("${output}" "a GPU is present, but the probe cannot be built to measure it"
            "CUDACXX is '${WORK}/cuda/bin/nvcc', and no such file exists" "the next configure looks again")
  # Now there is one (a stand-in that fails to compile): the configure goes on to use it.
  file(WRITE "${WORK}/cuda/bin/nvcc" "#!/bin/sh\necho \"stand-in nvcc: cannot compile\" >&2\nexit 1\n")
  file(CHMOD "${WORK}/cuda/bin/nvcc" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  configure(fail "${example}" "${WORK}/consumer")
  expect_in("${output}" "configuring the probe in")
  expect_not_in("${output}" "no such file exists")
  file(STRINGS "${WORK}/consumer/_gpu_topology/probe-measure/CMakeCache.txt" compiler REGEX "^CMAKE_CUDA_COMPILER:")
  if(NOT compiler MATCHES "=${WORK}/cuda/bin/nvcc$")
    message(FATAL_ERROR "the probe's build did not get the CUDA compiler now in CUDACXX: ${compiler}")
  endif()

elseif(MODE STREQUAL "cross")
  # Cross-compiling with a user's profile: the probe that renders it runs here, so it is
  # built with a host compiler, never the target's (a stand-in that cannot link host programs).
  derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
  file(WRITE "${WORK}/cross/fake-cross-c++" [=[#!/bin/sh
for argument in "$@"; do
  case "$argument" in -c|-E) exec c++ "$@" ;; esac
done
echo "fake-cross-c++: cannot link programs for this host" >&2
exit 1
]=])
  file(CHMOD "${WORK}/cross/fake-cross-c++" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(WRITE "${WORK}/toolchain.cmake" "set(CMAKE_SYSTEM_NAME Linux)\nset(CMAKE_SYSTEM_PROCESSOR fakearch)\n"
       "set(CMAKE_CXX_COMPILER \"${WORK}/cross/fake-cross-c++\")\nset(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)\n")
  set(ENV{CXX} "${WORK}/cross/fake-cross-c++")  # as a cross environment often sets it
  write_project("${WORK}/project" "add_library(kernels INTERFACE)\ngpu_topology_generate(TARGET kernels)\n")
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}"
      -DCMAKE_TOOLCHAIN_FILE=${WORK}/toolchain.cmake -DCMAKE_MAKE_PROGRAM=${fake_make}
      -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json)
  expect_in("${output}" "building the probe (render only) - done")
  file(STRINGS "${WORK}/build/_gpu_topology/probe-render/CMakeCache.txt" compiler REGEX "^CMAKE_CXX_COMPILER:")
  if(compiler MATCHES "fake-cross")
    message(FATAL_ERROR "the probe that renders was configured with the target's compiler: ${compiler}")
  endif()
  # GPU_TOPOLOGY_HOST_CXX_COMPILER names the host compiler.
  find_program(host_compiler NAMES c++ g++ clang++ REQUIRED)
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/named" -G "${GENERATOR}"
      -DCMAKE_TOOLCHAIN_FILE=${WORK}/toolchain.cmake -DCMAKE_MAKE_PROGRAM=${fake_make}
      -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json -DGPU_TOPOLOGY_HOST_CXX_COMPILER=${host_compiler})
  file(STRINGS "${WORK}/named/_gpu_topology/probe-render/CMakeCache.txt" compiler REGEX "^CMAKE_CXX_COMPILER:")
  string(REGEX REPLACE "^[^=]*=" "" compiler "${compiler}")
  if(NOT compiler STREQUAL host_compiler)
    message(FATAL_ERROR "GPU_TOPOLOGY_HOST_CXX_COMPILER=${host_compiler} was not used: ${compiler}")
  endif()

elseif(MODE STREQUAL "resources")
  # A node of two GPUs (the stored two-H200 node, "measured" by the stand-in probe): the
  # configure writes a CTest resource spec file of its GPUs; `ctest -j` runs the per-device
  # checks, each on the GPU CTest hands it, two GPUs at once and never two checks on one.
  set(node "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200-x2-node.json")
  set(ENV{FAKE_NODE_PROFILE} "${node}")
  set(ENV{FAKE_SECONDS} 1)
  write_project("${WORK}/project" [=[
enable_testing()
add_executable(which_gpu which_gpu.cpp)
gpu_topology_generate(TARGET which_gpu DEVICES ALL)
gpu_topology_add_tests()
foreach(i 1 2)
  add_test(NAME mine.${i} COMMAND which_gpu)
  gpu_topology_test_resources(TEST mine.${i})
endforeach()
if(DEFINED BAD)
  gpu_topology_test_resources(TEST mine.1 ${BAD} ${VALUE})
endif()
]=])
  file(WRITE "${WORK}/project/which_gpu.cpp" [=[
#include <gpu_topology.hpp>
#include <cstdio>
#include <cstdlib>
int main() {
    const char* given = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    std::printf("ctest_device %d given [%s]\n", gpu_topology::ctest_device(), given ? given : "");
}
]=])
  set(measure -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
  configure(ok "${WORK}/project" "${WORK}/build" ${measure})
  set(spec "${WORK}/build/_gpu_topology/ctest-resource-spec.json")
  file(READ "${spec}" text)
  string(JSON gpus GET "${text}" local 0 gpus)
  string(JSON count LENGTH "${gpus}")
  string(JSON first GET "${gpus}" 0 id)
  string(JSON second GET "${gpus}" 1 id)
  if(NOT count EQUAL 2 OR NOT first STREQUAL "0" OR NOT second STREQUAL "1")
    message(FATAL_ERROR "the resource spec file does not list the node's two GPUs:\n${text}")
  endif()
  file(STRINGS "${WORK}/build/CMakeCache.txt" used REGEX "^CTEST_RESOURCE_SPEC_FILE:")
  if(NOT used MATCHES "=${spec}$")
    message(FATAL_ERROR "CTEST_RESOURCE_SPEC_FILE is not the node's spec file: ${used}")
  endif()
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/build")
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" --show-only=json-v1)
  expect_in("${output}" "gpu_topology.which_gpu.remeasure.1" "gpu_topology.which_gpu.identity.0"
            "\"name\" : \"RESOURCE_GROUPS\"" "\".type\" : \"gpus\"")
  # Plain ctest uses the spec file (CTEST_RESOURCE_SPEC_FILE): CTest accepts it and hands out its GPUs.
  file(REMOVE "${WORK}/probe.log")
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" -j4 -V)
  expect_in("${output}" "100% tests passed" "checks CUDA device 0, the GPU CTest handed this test"
            "checks CUDA device 1, the GPU CTest handed this test")
  expect_not_in("${output}" "Not Run" "Skipped")
  string(REGEX MATCHALL "ctest_device [0-9]+ given \\[id:[0-9]+,slots:1\\]" mine "${output}")
  foreach(line IN LISTS mine)
    if(NOT line MATCHES "ctest_device ([0-9]+) given \\[id:([0-9]+),")
      message(FATAL_ERROR "unreadable: ${line}")
    elseif(NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
      message(FATAL_ERROR "gpu_topology::ctest_device() is not the GPU CTest handed the test: ${line}")
    endif()
  endforeach()
  list(LENGTH mine ran)
  if(NOT ran EQUAL 2)
    message(FATAL_ERROR "the project's own tests did not get a GPU each from CTest:\n${output}")
  endif()
  # The stand-in's log: each check on the device of its profile entry; never two on one
  # GPU at a time; checks on the two GPUs at the same time.
  file(STRINGS "${WORK}/probe.log" events REGEX "^check-")
  file(READ "${node}" node_text)
  set(intervals "")
  foreach(event IN LISTS events)
    string(REPLACE " " ";" fields "${event}")
    list(GET fields 0 kind)
    list(GET fields 1 device)
    list(GET fields 2 uuid)
    list(GET fields 3 time)
    if(NOT device STREQUAL "all")  # the node check: every device
      string(JSON expected_uuid GET "${node_text}" devices ${device} device uuid)
      if(NOT uuid STREQUAL expected_uuid)
        message(FATAL_ERROR "device ${device} was checked against another device's entry (${uuid})")
      endif()
    endif()
    string(REPLACE "." "" time "${time}")
    string(SUBSTRING "${time}" 0 13 time)  # milliseconds
    if(kind STREQUAL "check-start")
      set(started_${device} ${time})
    else()
      list(APPEND intervals "${device}:${started_${device}}:${time}")
    endif()
  endforeach()
  list(LENGTH intervals checks)
  if(NOT checks EQUAL 5)
    message(FATAL_ERROR "expected 4 per-device checks and the node's in the stand-in's log, found: ${intervals}")
  endif()
  set(at_once FALSE)
  foreach(a IN LISTS intervals)
    string(REPLACE ":" ";" a "${a}")
    list(GET a 0 device_a)
    list(GET a 1 start_a)
    list(GET a 2 end_a)
    foreach(b IN LISTS intervals)
      string(REPLACE ":" ";" b "${b}")
      list(GET b 0 device_b)
      list(GET b 1 start_b)
      list(GET b 2 end_b)
      if(start_a LESS end_b AND start_b LESS end_a AND NOT (start_a EQUAL start_b AND device_a STREQUAL device_b))
        if(device_a STREQUAL device_b OR device_a STREQUAL "all" OR device_b STREQUAL "all")
          message(FATAL_ERROR "two checks ran on device ${device_a} at the same time: ${intervals}")
        endif()
        set(at_once TRUE)
      endif()
    endforeach()
  endforeach()
  if(NOT at_once)
    message(FATAL_ERROR "ctest -j4 never checked the two GPUs at the same time: ${intervals}")
  endif()
  # The header's ctest_device(): the GPU CTest handed over, or the group's own index without one.
  run(ok "${CMAKE_COMMAND}" -E env CTEST_RESOURCE_GROUP_COUNT=1 CTEST_RESOURCE_GROUP_0_GPUS=id:7,slots:1
      "${WORK}/build/which_gpu")
  expect_in("${output}" "ctest_device 7")
  run(ok "${CMAKE_COMMAND}" -E env --unset=CTEST_RESOURCE_GROUP_COUNT "${WORK}/build/which_gpu")
  expect_in("${output}" "ctest_device 0")
  # Wrong requests stop the configure.
  foreach(case "GPUS;0;GPUS '0' is not a whole number" "SLOTS;2;SLOTS 2 is more than a GPU has")
    list(POP_FRONT case keyword value message)
    configure(fail "${WORK}/project" "${WORK}/bad-${keyword}" ${measure} -DBAD=${keyword} -DVALUE=${value})
    expect_in("${output}" "gpu_topology_test_resources: ${message}")
  endforeach()
  # One GPU: a spec file of one entry (its id, "0", is no false value to CMake here).
  file(READ "${node}" one)
  string(JSON first_device GET "${one}" devices 0)
  string(JSON one SET "${one}" devices "[${first_device}]")
  string(JSON one SET "${one}" links "[]")
  file(WRITE "${WORK}/one-device-node.json" "${one}")
  set(ENV{FAKE_NODE_PROFILE} "${WORK}/one-device-node.json")
  configure(ok "${WORK}/project" "${WORK}/one" ${measure})
  expect_in("${output}" "probing NVIDIA H200 (2 devices)" "node of 1 device ")
  file(READ "${WORK}/one/_gpu_topology/ctest-resource-spec.json" one_spec)
  string(JSON one_count LENGTH "${one_spec}" local 0 gpus)
  string(JSON one_id GET "${one_spec}" local 0 gpus 0 id)
  if(NOT one_count EQUAL 1 OR NOT one_id STREQUAL "0")
    message(FATAL_ERROR "the spec file of a one-GPU node does not list its GPU:\n${one_spec}")
  endif()
  # A device measured while busy is listed, and the configure says so.
  file(READ "${node}" busy)
  string(JSON busy SET "${busy}" devices 1 conditions quiet false)
  file(WRITE "${WORK}/busy-node.json" "${busy}")
  set(ENV{FAKE_NODE_PROFILE} "${WORK}/busy-node.json")
  configure(ok "${WORK}/project" "${WORK}/busy" ${measure})
  expect_in("${output}" "device 1 is in the CTest resource spec file, but other work ran on it")
  # No GPU any more: the tree's spec file and CTEST_RESOURCE_SPEC_FILE go, and the checks skip.
  set(ENV{FAKE_MODE} nogpu)
  run(ok "${CMAKE_COMMAND}" "${WORK}/build")
  if(EXISTS "${spec}")
    message(FATAL_ERROR "a configure without GPUs kept the resource spec file")
  endif()
  file(STRINGS "${WORK}/build/CMakeCache.txt" used REGEX "^CTEST_RESOURCE_SPEC_FILE:")
  if(used)
    message(FATAL_ERROR "a configure without GPUs kept CTEST_RESOURCE_SPEC_FILE: ${used}")
  endif()
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" -j4 -L gpu)
  expect_in("${output}" "gpu_topology.which_gpu.remeasure.0" "Skipped")
  expect_not_in("${output}" "Not Run")

elseif(MODE STREQUAL "gpu_identity")
  skip_without_gpu()
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

elseif(MODE STREQUAL "gpu_native")
  # A CUDA consumer that sets no architectures, on a GPU: the probe that measured is machine
  # code for this GPU (never nvcc's default run as JIT-compiled PTX), so on cc >= 9.0 the
  # cluster facts are measured; the README's second configure builds nothing.
  skip_without_gpu()
  write_project("${WORK}/project" [=[
enable_language(CUDA)
add_library(kernels INTERFACE)
gpu_topology_generate(TARGET kernels)
foreach(fact CC_MAJOR CC_MINOR CLUSTER_MAX_BLOCKS DSMEM_LATENCY_CYCLES DSMEM_BANDWIDTH_BYTES_PER_S)
  gpu_topology_get(value ${fact})
  message(STATUS "fact ${fact}=${value} (${value_UNMEASURED})")
endforeach()
]=])
  _gpu_topology_now(RESULT start)
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}")
  _gpu_topology_seconds_since(START ${start} RESULT took)
  message(STATUS "first configure: ${took}")
  set(configured "${output}")
  expect_our_lines("${stdout}" 12 "first measured configure")
  string(REGEX MATCH "fact CC_MAJOR=([0-9]+)" ignored "${configured}")
  set(major "${CMAKE_MATCH_1}")
  string(REGEX MATCH "fact CC_MINOR=([0-9]+)" ignored "${configured}")
  set(sm "sm_${major}${CMAKE_MATCH_1}")
  # Machine code for this GPU in the probe that measured.
  file(STRINGS "${WORK}/build/CMakeCache.txt" nvcc REGEX "^CMAKE_CUDA_COMPILER:")
  string(REGEX REPLACE "^[^=]*=" "" nvcc "${nvcc}")
  get_filename_component(cuda_bin "${nvcc}" DIRECTORY)
  set(probe "${WORK}/build/_gpu_topology/probe-measure/gpu-topology-probe")
  run(ok "${cuda_bin}/cuobjdump" --list-elf "${probe}")
  message(STATUS "the probe's machine code:\n${output}")
  expect_in("${output}" ".${sm}.cubin")
  # What only machine code for cc >= 9.0 measures: the thread block clusters.
  if(major GREATER_EQUAL 9)
    foreach(fact CLUSTER_MAX_BLOCKS DSMEM_LATENCY_CYCLES DSMEM_BANDWIDTH_BYTES_PER_S)
      if(NOT configured MATCHES "fact ${fact}=[0-9]+ ")
        string(REGEX MATCH "fact ${fact}=[^\n]*" line "${configured}")
        message(FATAL_ERROR "on a GPU of compute capability ${major}.x the probe did not measure ${line}")
      endif()
    endforeach()
  endif()
  # The re-configure: nothing configured or built again, a few lines.
  file(TIMESTAMP "${probe}" probe_before "%s")
  _gpu_topology_now(RESULT start)
  run(ok "${CMAKE_COMMAND}" "${WORK}/build")
  _gpu_topology_seconds_since(START ${start} RESULT took)
  message(STATUS "re-configure: ${took}")
  expect_our_lines("${stdout}" 3 "re-configure")
  expect_not_in("${output}" "building the probe" "probing")
  file(TIMESTAMP "${probe}" probe_after "%s")
  if(NOT probe_before STREQUAL probe_after)
    message(FATAL_ERROR "the re-configure built the probe again")
  endif()

else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
message("consumer test ${MODE}: passed")

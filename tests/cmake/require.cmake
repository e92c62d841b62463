# Requirements: met, not met, a lower bound, unmeasured, identity quantities;
# gpu_topology_get returns the lower-bound flag and the doubt beside the value,
# even a doubt or a reason that CMake's if() would take for false
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
write_project("${WORK}/project" [=[
add_library(kernels INTERFACE)
gpu_topology_generate(TARGET kernels)
gpu_topology_require(${QUANTITY} ${OP} ${VALUE})
]=])
# One build tree, configured again for each requirement.
foreach(case "ok;SM_COUNT;GREATER_EQUAL;100;requirement met: SM_COUNT = 132 GREATER_EQUAL 100"
             "ok;CC_MAJOR;EQUAL;9;requirement met: CC_MAJOR = 9 EQUAL 9"
             "ok;CONSTANT_L15_SIZE_BYTES;GREATER_EQUAL;65536;CONSTANT_L15_SIZE_BYTES = at least 65536 GREATER_EQUAL 65536"
             "fail;CONSTANT_L15_SIZE_BYTES;LESS;100000;cannot be decided: NVIDIA H200 has CONSTANT_L15_SIZE_BYTES of at least 65536, a lower bound"
             "fail;L2_NEAR_SIZE_BYTES;GREATER_EQUAL;1099511627776;requirement not met: L2_NEAR_SIZE_BYTES GREATER_EQUAL 1099511627776"
             "fail;TEXTURE_LINE_BYTES;EQUAL;128;cannot be checked: TEXTURE_LINE_BYTES was not measured on NVIDIA H200"
             "fail;L1_SIZE;EQUAL;1;unknown quantity 'L1_SIZE'"
             "fail;L1_SIZE_BYTES;ABOUT;1;'ABOUT' is not one of")
  list(POP_FRONT case expect quantity op value message)
  run(${expect} "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${stored_arg}
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
run(fail "${CMAKE_COMMAND}" -S "${WORK}/falsy" -B "${WORK}/falsy-build" -G "${GENERATOR}" ${real_probe}
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

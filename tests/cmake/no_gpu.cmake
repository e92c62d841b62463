# No GPU: a warning naming the stored profile; ON_NO_GPU=error stops; nothing compiled;
# a probe that finds no usable GPU (exit 77) follows ON_NO_GPU too
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
run(ok "${CMAKE_COMMAND}" -E env CUDA_VISIBLE_DEVICES= "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer"
    -G "${GENERATOR}" -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE})
expect_in("${output}" "CMake Warning" "describes the GPU of the stored profile"
          "nvidia-h200.json" "no GPU to probe: CUDA_VISIBLE_DEVICES='' hides every GPU")
expect_nothing_compiled("${WORK}/consumer")
foreach(policy error Error ERROR)
  run(fail "${CMAKE_COMMAND}" -E env CUDA_VISIBLE_DEVICES= "${CMAKE_COMMAND}" "${WORK}/consumer"
      -DGPU_TOPOLOGY_ON_NO_GPU=${policy})
  expect_in("${output}" "no GPU to probe" "GPU_TOPOLOGY_ON_NO_GPU=${policy}")
endforeach()
# A GPU is seen, but the probe finds no usable one (exit 77: here, no device 1): the same policy.
set(ENV{FAKE_DEVICES} 1)
# The same tree, configured again: a new reason to fall back is a warning again.
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake} -DGPU_TOPOLOGY_DEVICE=1
    -DGPU_TOPOLOGY_ON_NO_GPU=fallback)
expect_in("${output}" "CMake Warning" "describes the GPU of the stored profile"
          "no GPU to probe: device 1: gpu-topology-probe: no CUDA device 1 (1 found): fake")
run(fail "${CMAKE_COMMAND}" "${WORK}/consumer" -DGPU_TOPOLOGY_ON_NO_GPU=error)
expect_in("${output}" "no GPU to probe (device 1: gpu-topology-probe: no CUDA device 1" "GPU_TOPOLOGY_ON_NO_GPU=error")

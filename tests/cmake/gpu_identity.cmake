# On a GPU runner: the consumer's GPU tests fail against another GPU's profile, and pass
# against this one's, measured at configure time
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
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

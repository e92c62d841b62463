# A broken profile stops the configure, naming the file, the field and the value
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
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

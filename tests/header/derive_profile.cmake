# cmake -DIN=profile.json -DOUT=derived.json -DL2_SHARE=4 -P derive_profile.cmake
# A what-if profile: the measured one with 1/L2_SHARE of its L2 (total, near
# part and persisting set-aside, which lies within it), for tests that the
# header's choices follow the constants.
file(READ "${IN}" json)
foreach(path "caches;l2;size_bytes;value" "caches;l2;near_size_bytes;value" "caches;l2;persisting_max_bytes;value")
  string(JSON value GET "${json}" ${path})
  math(EXPR value "${value} / ${L2_SHARE}")
  string(JSON json SET "${json}" ${path} "${value}")
endforeach()
file(WRITE "${OUT}" "${json}")

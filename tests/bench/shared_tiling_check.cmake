# bench/shared_tiling_check.sh and bench/shared_tiling_summary.py on the CPU, with stand-ins for the
# examples (fake_stencil3d.py, fake_gemm.py: the same arguments and CSV columns, known rates): the
# arguments it refuses, its plan, a whole check and its summary, a search that fails, a budget spent.
# It starts python3 about 25 times; a version manager's shim (pyenv) takes about a second a start,
# so the interpreter's own directory goes first in PATH: about 4 s on two busy cores.
#   cmake -DSOURCE_DIR=<repository> -DBASH=... -DWORK=... -P shared_tiling_check.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(script "${SOURCE_DIR}/bench/shared_tiling_check.sh")
execute_process(COMMAND python3 -c "import os, sys; print(os.path.dirname(sys.executable))"
                OUTPUT_VARIABLE python_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS "${python_dir}/python3")
  message(FATAL_ERROR "python3 does not say where its interpreter is (${rc}): '${python_dir}'")
endif()
set(ENV{PATH} "${python_dir}:$ENV{PATH}")
set(fakes STENCIL3D=${CMAKE_CURRENT_LIST_DIR}/fake_stencil3d.py GEMM=${CMAKE_CURRENT_LIST_DIR}/fake_gemm.py)

# Runs the check with `env` (VAR=value...) and `args`; sets rc, out (stdout and stderr).
function(check name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "ENV;ARGS")
  file(MAKE_DIRECTORY "${WORK}/tmp-${name}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env OUT=${WORK}/${name} TMPDIR=${WORK}/tmp-${name} ${arg_ENV}
                          "${BASH}" "${script}" ${arg_ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()
# expect(name CONDITION...): the condition's words as if() takes them.
function(expect what)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "${what}: not (${ARGN})")
  endif()
endfunction()
function(expect_match name text pattern)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${name}: no '${pattern}' in:\n${text}")
  endif()
endfunction()

# Refused before anything runs: another card, an argument too many, a setting that is not a number.
check(bad_card ARGS h300)
expect_match(bad_card "${rc}:${out}" "^2:.*the card is h100 or h200, not 'h300'")
check(extra ARGS h100 now)
expect_match(extra "${rc}:${out}" "^2:.*unexpected argument 'now'")
check(bad_setting ENV STENCIL_GRIDS=eight ARGS h100)
expect_match(bad_setting "${rc}:${out}" "^2:.*STENCIL_GRIDS must be a whole number, not 'eight'")

# The plan: 8 grids for each of the 6 searches, 8 products, and nothing built or run.
check(plan ENV SHARED_TILING_PLAN=1 ARGS h200)
expect_match(plan "${rc}" "^0$")
string(REPEAT " --grid [0-9]+ [0-9]+ [0-9]+" 8 eight_grids)  # CMake's expressions have no {8}
string(REPEAT " --shape [0-9]+ [0-9]+ [0-9]+" 8 eight_shapes)
foreach(size 8192 32768 98304)
  foreach(threads 256 1024)
    expect_match(plan "${out}" "--threads ${threads} --shared-bytes ${size} --min-x 16 --csv stencil-h200-s${size}-t${threads}.csv${eight_grids}\n")
  endforeach()
endforeach()
expect_match(plan "${out}" "gemm --search --repeats 3 --csv gemm-h200.csv${eight_shapes}\n")
expect(plan NOT EXISTS "${WORK}/plan")
# Other kernels (STENCIL_KINDS: shared bytes:threads), and what is not one.
check(kinds ENV SHARED_TILING_PLAN=1 "STENCIL_KINDS=49152:512 24576:1024" ARGS h100)
expect_match(kinds "${rc}" "^0$")
expect_match(kinds "${out}" "--threads 512 --shared-bytes 49152 --min-x 16 --csv stencil-h100-s49152-t512.csv${eight_grids}\n")
expect_match(kinds "${out}" "--threads 1024 --shared-bytes 24576 --min-x 16 --csv stencil-h100-s24576-t1024.csv${eight_grids}\n")
if(out MATCHES "--shared-bytes 8192")
  message(FATAL_ERROR "kinds: a kernel STENCIL_KINDS does not name was planned:\n${out}")
endif()
foreach(bad 8192 0:0 48k:512)
  check(bad_kind ENV "STENCIL_KINDS=8192:256 ${bad}" ARGS h100)
  expect_match(bad_kind "${rc}:${out}" "^2:.*STENCIL_KINDS holds shared bytes:threads, not '${bad}'")
endforeach()

# A whole check with the stand-ins: every search runs, the summary reports the ratios they wrote.
check(whole ENV ${fakes} ARGS h100)
expect_match(whole "${rc}:${out}" "^0:")
set(summary "${WORK}/whole/summary-h100.md")
expect(whole EXISTS "${summary}" AND EXISTS "${WORK}/whole/shared-tiling-h100.tgz")
expect(whole EXISTS "${WORK}/whole/shared-tiling-stencil-h100.svg" AND EXISTS "${WORK}/whole/shared-tiling-gemm-h100.svg")
file(READ "${summary}" text)
expect_match(whole "${text}" "h100 stencil: 48 searches \\(0 incomplete\\); the chooser's launch at 0.95 of the best \\(carveout x shape\\) or better on 0, worst 0.900; the tuned list worst 1.000; chosen / default launch worst 1.125 \\(0 below 1\\)")
expect_match(whole "${text}" "S=96K T=1024: 8 grids, chosen worst 0.900, tuned worst 1.000, default worst 0.800")
expect_match(whole "${text}" "h100 SGEMM: 8 products \\(0 incomplete\\); the helper's pick at 0.9 of the best or better on 0, worst 0.833; the tuned list at 0.97 or better on 8, worst 1.000; chosen / cuBLAS 0.50 to 0.50")
expect_match(whole "${out}" "== the whole check: [0-9]+ s")
# Its working folder (the builds, the searches' CSVs) is gone once packed: nothing is left in TMPDIR.
function(expect_nothing_left name)
  file(GLOB left "${WORK}/tmp-${name}/*")
  if(left)
    message(FATAL_ERROR "${name}: its working folder was left behind: ${left}")
  endif()
endfunction()
expect_nothing_left(whole)

# One search fails after its first grid: the others run, the summary keeps that grid and says what failed.
check(failing ENV ${fakes} FAKE_FAIL=98304:1024 ARGS h200)
expect_match(failing "${rc}" "^1$")
file(READ "${WORK}/failing/summary-h200.md" text)
expect_match(failing "${text}" "S=96K T=1024: 1 grids")
expect_match(failing "${text}" "## Not run\n- stencil-h200-s98304-t1024: exit 3")
expect_nothing_left(failing)

# A budget spent before the searches: each is skipped and said to be, and the summary says there is none.
check(budget ENV ${fakes} BUDGET_S=5 GEMM_RESERVE_S=0 ARGS h100)
expect_match(budget "${rc}" "^1$")
file(READ "${WORK}/budget/summary-h100.md" text)
expect_match(budget "${text}" "^no search wrote a CSV: no summary\n\n## Not run\n- stencil-h100-s8192-t256: skipped, the budget was spent")
expect_match(budget "${text}" "- gemm-h100: skipped, the budget was spent")
expect_nothing_left(budget)
message("shared_tiling_check.sh: refuses bad arguments, plans, runs every step, summarises, survives a failing search and a spent budget")

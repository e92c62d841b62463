#!/bin/sh
# A stand-in for ninja (CMAKE_MAKE_PROGRAM=this file), so the CMake tests can walk
# the nested build of the probe without compiling it: everything is passed to
# ninja (FAKE_REAL_MAKE), except the build of the target gpu-topology-probe, which
#   is up to date when the build directory has one (like ninja, it then does nothing), else
#   logs "start PID TIME" and "end PID TIME" to FAKE_MAKE_LOG ("overlap" first when
#   another stand-in build still runs, not a zombie), prints two lines of progress, sleeps
#   FAKE_MAKE_SECONDS (writing its PID to FAKE_MAKE_LOG.sleeping while it does), then
#   copies FAKE_BUILT_PROBE into the build directory, or, with FAKE_MAKE_MODE=fail,
#   prints an error and exits 1.
for argument in "$@"; do
  [ "$argument" = gpu-topology-probe ] || continue
  [ -e gpu-topology-probe ] && exit 0
  # Another stand-in build still runs: alive, and not a zombie (a stopped one that no one has
  # reaped yet, as a container's first process may leave it for a while, runs nothing).
  if [ -e "$FAKE_MAKE_LOG.sleeping" ]; then
    other=$(cat "$FAKE_MAKE_LOG.sleeping")
    state=$(ps -o stat= -p "$other" 2> /dev/null)
    if kill -0 "$other" 2> /dev/null && ! echo "$state" | grep -q Z; then
      echo "overlap $$ $(date +%s.%N) with $other in state $state" >> "$FAKE_MAKE_LOG"
    fi
  fi
  echo "start $$ $(date +%s.%N)" >> "$FAKE_MAKE_LOG"
  echo "[1/2] Building CXX object fake-progress-line.o"
  echo "[2/2] Linking CXX executable gpu-topology-probe"
  if [ "${FAKE_MAKE_SECONDS:-0}" != 0 ]; then
    echo $$ > "$FAKE_MAKE_LOG.sleeping.part" && mv "$FAKE_MAKE_LOG.sleeping.part" "$FAKE_MAKE_LOG.sleeping"  # whole, for its readers
    sleep "$FAKE_MAKE_SECONDS"
    rm -f "$FAKE_MAKE_LOG.sleeping"
  fi
  echo "end $$ $(date +%s.%N)" >> "$FAKE_MAKE_LOG"
  if [ "$FAKE_MAKE_MODE" = fail ]; then
    echo "fake-compile-error: the stand-in build failed" >&2
    exit 1
  fi
  cp "$FAKE_BUILT_PROBE" gpu-topology-probe
  exit 0
done
exec "${FAKE_REAL_MAKE:-ninja}" "$@"

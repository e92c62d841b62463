#!/bin/sh
# Runs one long step of a GPUTopology configure (the probe's nested configure
# and build, the probe itself) so that stopping the configure stops the step:
#
#   sh GPUTopologyRun.sh RUN TIMEOUT COMMAND [ARGUMENT...]
#
# returns at once. COMMAND runs in the background with its output in RUN.log;
# RUN.pid holds, while it runs, the id of the shell that waits for it (whose
# command line names RUN), RUN.timeout appears when it ran longer than TIMEOUT
# seconds and was stopped, and RUN.status holds its exit status once it has
# ended (written last, atomically: the caller waits for it).
#
# Why not execute_process: CMake obeys a SIGTERM only after its child has ended
# (a nested build then runs to its end first), and a SIGKILL leaves the child
# running with no one to wait for it. So the step runs in a session of its own
# (setsid), and a watcher in another session stops it, with everything it
# started (ninja, the compilers), as soon as the configure that started it is
# gone, for whatever reason, or its time is up. A signal to the configure's
# process group reaches neither. Without setsid the step runs in the
# configure's process group, and the watcher stops only the step's own process.
run=$1
timeout=$2
shift 2
configure=$PPID  # the cmake that runs this script: execute_process starts it directly
rm -f "$run.status" "$run.status.tmp" "$run.timeout" "$run.pid"
session=
command -v setsid > /dev/null 2>&1 && session=setsid
# shellcheck disable=SC2016  # the inner script's variables are its own
$session sh -c '
  run=$1 timeout=$2 configure=$3 session=$4
  shift 4
  echo $$ > "$run.pid"
  $session "$@" < /dev/null > "$run.log" 2>&1 &
  step=$!
  stop=$step
  [ -n "$session" ] && stop=-$step  # the step leads a process group of its own: stop all of it
  (
    # Gone, or a zombie that no one has reaped yet.
    alive() { kill -0 "$1" 2> /dev/null && ! ps -o stat= -p "$1" 2> /dev/null | grep -q Z; }
    # Looks five times a second (a sleep that knows no fractions: once a second), so a
    # stopped configure stops its step at once; `tenths` counts towards the timeout.
    tenths=0
    while alive "$configure"; do
      if [ "$tenths" -ge "$((timeout * 10))" ]; then
        echo "$timeout" > "$run.timeout"
        break
      fi
      if sleep 0.2 2> /dev/null; then tenths=$((tenths + 2)); else sleep 1; tenths=$((tenths + 10)); fi
    done
    kill -TERM "$stop" 2> /dev/null
  ) &
  watcher=$!
  wait "$step"
  status=$?
  kill -TERM "$watcher" 2> /dev/null
  rm -f "$run.pid"
  echo "$status" > "$run.status.tmp" && mv -f "$run.status.tmp" "$run.status"
' sh "$run" "$timeout" "$configure" "$session" "$@" < /dev/null > /dev/null 2>&1 &

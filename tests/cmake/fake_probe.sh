#!/bin/sh
# A stand-in for gpu-topology-probe on machines without a GPU, so the CMake
# tests can walk the measuring path (GPU_TOPOLOGY_PROBE_EXECUTABLE=this file).
#   identity           one JSON line for a made-up GPU (exit 77 when FAKE_MODE=nogpu, and for
#                      --device N when the machine has only FAKE_DEVICES devices);
#                      with --all-devices, a list of two; its probe version FAKE_PROBE_VERSION
#                      (default "fake")
#   probe --output F   copies FAKE_PROFILE (with --all-devices: FAKE_NODE_PROFILE) to F after
#                      FAKE_SECONDS, logging start and end to FAKE_LOG and its stages to stderr
#                      ("stage ..."); exits 3 when FAKE_MODE=busy, 1 when fail
#   check P --device N logs "check-start N UUID TIME" and, FAKE_SECONDS later, "check-end N UUID TIME"
#                      to FAKE_LOG (UUID: the first in profile P; N "all" for --all-devices), and
#                      passes; exits 77 when FAKE_MODE=nogpu
#   anything else      the real probe (FAKE_REAL_PROBE): render, validate...
command=$1
shift
case "$command" in
identity)
  case "$FAKE_MODE" in
  nogpu) echo "gpu-topology-probe: no usable CUDA device: fake" >&2; exit 77 ;;
  broken) echo "gpu-topology-probe: cudaGetDeviceProperties failed: fake" >&2; exit 1 ;;
  esac
  if [ "$1" = "--device" ] && [ "$2" -ge "${FAKE_DEVICES:-1}" ]; then
    echo "gpu-topology-probe: no CUDA device $2 (${FAKE_DEVICES:-1} found): fake" >&2
    exit 77
  fi
  one='"name":"NVIDIA H200","cc":"9.0","sm_count":132,"driver":13000,"runtime":13000,"probe_version":"'"${FAKE_PROBE_VERSION:-fake}"'"'
  if [ "$1" = "--all-devices" ]; then
    echo "[{\"uuid\":\"GPU-fake-0000\",$one},{\"uuid\":\"GPU-fake-0001\",$one}]"
  else
    echo "{\"uuid\":\"GPU-fake-0000\",$one}"
  fi
  ;;
probe)
  output=
  profile=$FAKE_PROFILE
  while [ $# -gt 0 ]; do
    [ "$1" = "--output" ] && output=$2
    [ "$1" = "--all-devices" ] && profile=$FAKE_NODE_PROFILE
    shift
  done
  echo "start $$ $(date +%s.%N)" >> "$FAKE_LOG"
  echo "stage warm-up: fake progress line" >&2
  sleep "${FAKE_SECONDS:-0}"
  echo "stage l1: fake progress line" >&2
  echo "end $$ $(date +%s.%N)" >> "$FAKE_LOG"
  [ "$FAKE_MODE" = fail ] && { echo "gpu-topology-probe: fake failure" >&2; exit 1; }
  cp "$profile" "$output"
  [ "$FAKE_MODE" = busy ] && exit 3
  exit 0
  ;;
check)
  [ "$FAKE_MODE" = nogpu ] && { echo "gpu-topology-probe: no usable CUDA device: fake" >&2; exit 77; }
  profile=$1
  device=0
  while [ $# -gt 0 ]; do
    [ "$1" = "--device" ] && device=$2
    [ "$1" = "--all-devices" ] && device=all
    shift
  done
  uuid=$(sed -n 's/.*"uuid" *: *"\([^"]*\)".*/\1/p' "$profile" | head -n 1)
  echo "check-start $device $uuid $(date +%s.%N)" >> "$FAKE_LOG"
  sleep "${FAKE_SECONDS:-0}"
  echo "check-end $device $uuid $(date +%s.%N)" >> "$FAKE_LOG"
  echo "ok     device $device ($uuid): fake check"
  ;;
*)
  exec "$FAKE_REAL_PROBE" "$command" "$@"
  ;;
esac

#!/usr/bin/env bash
# The agent and the coordinator export their own sysconf
# (daemon/common/grpc_cpu_cap.cc), so that gRPC's shared libraries resolve
# to it and see the capped CPU count; the worker must not (NCCL and CUDA
# size their threads from the real count).
#
#   tests/unit/linkage/grpc_cpu_cap_exported.sh BIN_DIR
set -uo pipefail
bin="${1:?usage: grpc_cpu_cap_exported.sh BIN_DIR}"
command -v nm >/dev/null || { echo "FAIL: nm is missing" >&2; exit 1; }
failures=0
defines_sysconf() { [ -n "$(nm -D --defined-only "$1" | awk '$3 == "sysconf"')" ]; }
for name in fabricpulse-agent fabricpulse-coordinator; do
  if defines_sysconf "$bin/$name"; then
    echo "ok: $name exports sysconf"
  else
    echo "FAIL: $name does not export sysconf (gRPC would see every CPU)" >&2
    failures=$((failures + 1))
  fi
done
if defines_sysconf "$bin/fabricpulse-worker"; then
  echo "FAIL: fabricpulse-worker exports sysconf (NCCL and CUDA would see the cap)" >&2
  failures=$((failures + 1))
else
  echo "ok: fabricpulse-worker has the C library's sysconf"
fi
exit "$failures"

#!/usr/bin/env bash
# Only fabricpulse-worker (its NCCL backend) links CUDA and NCCL: the agent
# and the CLI count GPUs through NVML (dlopen) and ask the worker whether it
# has NCCL (`fabricpulse-worker --backends`).
#
#   tests/unit/linkage/no_cuda_outside_worker.sh BIN_DIR NCCL_ENABLED
#
# Checks, for fabricpulse-agent and fabricpulse: no libcudart, libcuda,
# libnccl or libnvidia-ml among their NEEDED entries (readelf -d) or their
# resolved libraries (ldd), and no CUDA runtime or NCCL symbol in them (nm:
# a static libcudart would show only there). As a control, the worker must
# show NCCL in all three ways and answer --backends with nccl. Exits 77
# (skipped) when the build has no NCCL backend.
set -uo pipefail
bin="${1:?usage: no_cuda_outside_worker.sh BIN_DIR NCCL_ENABLED}"
nccl_enabled="${2:?usage: no_cuda_outside_worker.sh BIN_DIR NCCL_ENABLED}"

case "$nccl_enabled" in
  ON | TRUE | 1) ;;
  *)
    echo "no_cuda_outside_worker: the build has no NCCL backend; skipped"
    exit 77
    ;;
esac
for tool in readelf ldd nm; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is missing" >&2; exit 1; }
done

readonly libs='lib(cudart|cuda|nccl|nvidia-ml)[._]'
# C symbols of the CUDA runtime (cuda*, __cuda*) and of NCCL (nccl*, pnccl*).
readonly symbols='[[:space:]](cuda|__cuda|nccl|pnccl)[A-Za-z0-9_]*(@.*)?$'
failures=0

needed() { readelf -d "$1" | awk '/\(NEEDED\)/ {print $NF}' | tr -d '[]'; }
resolved() { ldd "$1" | awk '{print $1}'; }
cuda_symbols() { { nm "$1" 2>/dev/null; nm -D "$1" 2>/dev/null; } | grep -E "$symbols" | sort -u; }

for name in fabricpulse-agent fabricpulse fabricpulse-worker; do
  if [ ! -x "$bin/$name" ]; then
    echo "FAIL: $bin/$name is missing (build it first: scripts/build.sh)" >&2
    exit 1
  fi
done

for name in fabricpulse-agent fabricpulse; do
  path="$bin/$name"
  echo "== $name NEEDED: $(needed "$path" | tr '\n' ' ')"
  if hits="$(needed "$path" | grep -E "$libs")"; then
    echo "FAIL: $name needs $(echo "$hits" | tr '\n' ' ')" >&2
    failures=$((failures + 1))
  fi
  if hits="$(resolved "$path" | grep -E "$libs")"; then
    echo "FAIL: $name loads $(echo "$hits" | tr '\n' ' ') (ldd)" >&2
    failures=$((failures + 1))
  fi
  if hits="$(cuda_symbols "$path")"; then
    echo "FAIL: $name holds CUDA/NCCL symbols:" >&2
    echo "$hits" | head -5 >&2
    failures=$((failures + 1))
  fi
done

# The control: the same checks do see NCCL and CUDA in the worker.
worker="$bin/fabricpulse-worker"
echo "== fabricpulse-worker NEEDED: $(needed "$worker" | tr '\n' ' ')"
if ! needed "$worker" | grep -qE 'libnccl[._]'; then
  echo "FAIL: control: fabricpulse-worker does not need libnccl" >&2
  failures=$((failures + 1))
fi
if ! resolved "$worker" | grep -qE 'libnccl[._]'; then
  echo "FAIL: control: ldd does not list libnccl for fabricpulse-worker" >&2
  failures=$((failures + 1))
fi
if ! cuda_symbols "$worker" | grep -qE 'cudaGetDeviceCount'; then
  echo "FAIL: control: no cudaGetDeviceCount symbol in fabricpulse-worker" >&2
  failures=$((failures + 1))
fi
answer="$("$worker" --backends 2>&1)"
echo "== fabricpulse-worker --backends: $answer"
if ! echo "$answer" | grep -qwE 'nccl'; then
  echo "FAIL: fabricpulse-worker --backends does not list nccl" >&2
  failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
  echo "no_cuda_outside_worker: $failures failure(s)" >&2
  exit 1
fi
echo "no_cuda_outside_worker: OK"

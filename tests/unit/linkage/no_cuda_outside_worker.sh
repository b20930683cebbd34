#!/usr/bin/env bash
# Only the NCCL module (lib/libfabricpulse-nccl.so) links CUDA and NCCL: the
# worker loads it at run time, and the agent and the CLI count GPUs through
# NVML (dlopen) and ask the worker whether it has NCCL
# (`fabricpulse-worker --backends`). So one build runs on CPU-only nodes.
#
#   tests/unit/linkage/no_cuda_outside_worker.sh BIN_DIR NCCL_ENABLED
#
# Checks, for fabricpulse-agent, fabricpulse and fabricpulse-worker: no
# libcudart, libcuda, libnccl or libnvidia-ml among their NEEDED entries
# (readelf -d) or their resolved libraries (ldd), and no CUDA runtime or
# NCCL symbol in them (nm: a static libcudart would show only there). As a
# control, the module must show NCCL, and the worker must answer --backends
# with nccl. Then a node without NCCL, made by a copy of the module whose
# libnccl dependency names a library that does not exist (patchelf): the
# worker answers --backends with gloo only (so `auto` picks Gloo) and
# refuses --backend nccl with one line saying why. Exits 77 (skipped) when
# the build has no NCCL backend.
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

for name in fabricpulse-agent fabricpulse fabricpulse-worker; do
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

# The control: the same checks do see NCCL and CUDA in the module.
module="$bin/../lib/libfabricpulse-nccl.so"
worker="$bin/fabricpulse-worker"
if [ ! -f "$module" ]; then
  echo "FAIL: $module is missing (build it first: scripts/build.sh)" >&2
  exit 1
fi
echo "== libfabricpulse-nccl.so NEEDED: $(needed "$module" | tr '\n' ' ')"
if ! needed "$module" | grep -qE 'libnccl[._]'; then
  echo "FAIL: control: the NCCL module does not need libnccl" >&2
  failures=$((failures + 1))
fi
if ! resolved "$module" | grep -qE 'libnccl[._]'; then
  echo "FAIL: control: ldd does not list libnccl for the NCCL module" >&2
  failures=$((failures + 1))
fi
if ! cuda_symbols "$module" | grep -qE 'cudaGetDeviceCount'; then
  echo "FAIL: control: no cudaGetDeviceCount symbol in the NCCL module" >&2
  failures=$((failures + 1))
fi
answer="$("$worker" --backends 2>&1)"
echo "== fabricpulse-worker --backends: $answer"
if ! echo "$answer" | grep -qwE 'nccl'; then
  echo "FAIL: fabricpulse-worker --backends does not list nccl" >&2
  failures=$((failures + 1))
fi

# A node without NCCL.
if ! command -v patchelf >/dev/null; then
  echo "FAIL: patchelf is missing (scripts/install-deps.sh --with-test-tools)" >&2
  exit 1
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp "$module" "$scratch/libfabricpulse-nccl.so"
patchelf --replace-needed libnccl.so.2 libnccl-not-installed.so.2 \
  "$scratch/libfabricpulse-nccl.so"
export FABRICPULSE_NCCL_MODULE="$scratch/libfabricpulse-nccl.so"
answer="$("$worker" --backends 2>&1)"
echo "== without NCCL: fabricpulse-worker --backends: $answer"
if [ "$answer" != "gloo" ]; then
  echo "FAIL: without NCCL, --backends answered '$answer', not 'gloo'" >&2
  failures=$((failures + 1))
fi
said="$("$worker" --socket "$scratch/w.sock" --backend nccl --gpu 0 --insecure 2>&1)"
code=$?
echo "== without NCCL: --backend nccl: exit $code: $said"
if [ "$code" -ne 2 ] || ! echo "$said" | grep -q 'nccl cannot be loaded here: libnccl-not-installed.so.2'; then
  echo "FAIL: without NCCL, --backend nccl did not fail with exit 2 and the loader's reason" >&2
  failures=$((failures + 1))
fi
unset FABRICPULSE_NCCL_MODULE

if [ "$failures" -ne 0 ]; then
  echo "no_cuda_outside_worker: $failures failure(s)" >&2
  exit 1
fi
echo "no_cuda_outside_worker: OK"

#!/usr/bin/env bash
# --max-bytes auto on a real GPU, from a bundle (scripts/bundle.sh):
#   tests/gpu/max_bytes_auto_check.sh BUNDLE_DIR OUT_DIR
# Runs `fabricpulse local --backend nccl --agents 1 --ranks 1 sweep --ops
# all_reduce,all_gather --max-bytes auto:0.05 --output json` and checks,
# with one PASS/FAIL line each:
# 1. the sweep succeeded with no wrong element;
# 2. the free memory the coordinator recorded (the agent's NVML figure for
#    GPU 0) is nvidia-smi's free memory of GPU 0, read before and after the
#    run, less at most the worker's CUDA context and communicator (4 GiB
#    allowed), and cudaMemGetInfo's (torch, when installed, with the
#    asking process's own context added back) likewise;
# 3. per op, the largest size is the largest power of two whose buffers
#    (float, both placements: out of place 2 copies for all_reduce, 1 + 1/n
#    for all_gather) fit 0.05 x that recorded figure, and lies between what
#    the rule gives for nvidia-smi's figures (before the run, and before
#    less 4 GiB);
# 4. per op, the largest row of the results is that size.
# OUT_DIR gets the sweep's JSON and the memory readings. Exits non-zero on
# any failure. Needs nvidia-smi and python3. NCCL: the machine's
# libnccl.so.2, else the nvidia-nccl wheel's lib folder (NCCL_LIB_DIR).
set -uo pipefail
root="${1:?usage: max_bytes_auto_check.sh BUNDLE_DIR OUT_DIR}"
out="${2:?usage: max_bytes_auto_check.sh BUNDLE_DIR OUT_DIR}"
mkdir -p "$out"
BIN="$root/bin"
[ -x "$BIN/fabricpulse" ] || BIN="$root/build/bin"
if ! ldconfig -p | grep -q libnccl.so.2 && [ -z "${NCCL_LIB_DIR:-}" ]; then
  NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
fi
export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"

smi_free() {  # GPU 0's free memory in bytes, as nvidia-smi shows it
  echo $(($(nvidia-smi -i 0 --query-gpu=memory.free --format=csv,noheader,nounits | tr -d ' ') * 1048576))
}
cuda_free() {  # cudaMemGetInfo's free bytes on GPU 0 (torch), or "none"
  # The asking process holds a CUDA context of its own, which
  # cudaMemGetInfo counts as used; its size (nvidia-smi's figure for that
  # process) is added back, so that the figure is the GPU's free memory
  # without it, as the agent (NVML, no context) sees it.
  python3 -c '
import os, subprocess, torch
free = torch.cuda.mem_get_info(0)[0]
own = 0
for line in subprocess.run(["nvidia-smi", "-i", "0", "--query-compute-apps=pid,used_memory",
                            "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, check=True).stdout.splitlines():
    pid, mib = [f.strip() for f in line.split(",")]
    if int(pid) == os.getpid():
        own += int(mib) << 20
print(free + own, own)' 2>/dev/null || echo none none
}

# shellcheck source=tests/perf/cluster_lib.sh
. "$(dirname "$0")/../perf/cluster_lib.sh"
wait_gpus_idle || true  # a previous run's worker may still be exiting
before=$(smi_free)
# Command substitution waits for the python process to exit: its context
# must be gone before the sweep, or the agent counts it as a foreign process.
cuda_reading=$(cuda_free)
read -r cuda_before cuda_own <<<"$cuda_reading"
"$BIN/fabricpulse" local --backend nccl --agents 1 --ranks 1 sweep \
  --ops all_reduce,all_gather --max-bytes auto:0.05 --output json \
  >"$out/sweep.json" 2>"$out/sweep.err"
rc=$?
after=$(smi_free)
printf 'nvidia-smi free before %s after %s; cudaMemGetInfo free before %s (its own context of %s B added back)\n' \
  "$before" "$after" "$cuda_before" "$cuda_own" | tee "$out/memory.txt"
echo "sweep exit code $rc" | tee -a "$out/memory.txt"
[ "$rc" -eq 0 ] || { echo "FAIL sweep: exit $rc: $(cat "$out/sweep.err")"; exit 1; }

python3 - "$out/sweep.json" "$before" "$after" "$cuda_before" <<'PY'
import json, sys

doc = json.load(open(sys.argv[1]))["sweeps"][0]  # docs/json.md
before, after = int(sys.argv[2]), int(sys.argv[3])
cuda = None if sys.argv[4] == "none" else int(sys.argv[4])
FRACTION, SLACK, ELEM = 0.05, 4 << 30, 4
failures = 0

def check(ok, line):
    global failures
    print(("PASS " if ok else "FAIL ") + line)
    failures += 0 if ok else 1

def buffers(op, size, n):
    """One rank's buffers at `size` (core::MaxBufferBytes, both placements)."""
    count = size // ELEM
    if op == "all_gather":
        count = count // n * n
        return (count // n + count) * ELEM  # out of place > in place
    return 2 * count * ELEM

def rule(op, free, n):
    budget = int(FRACTION * free)
    size = 1 << 40
    while size >= 8 and buffers(op, size, n) > budget:
        size >>= 1
    return size if size >= 8 else 0

n = doc["nranks"]
auto = doc["spec"].get("max_bytes_auto")
check(doc["status"] == "succeeded" and all(r["wrong"] == 0 for r in doc["steps"]),
      f"sweep {doc['status']}, {len(doc['steps'])} rows, every row wrong = 0")
if auto is None:
    check(False, "the JSON has max_bytes_auto")
    sys.exit(1)
free = auto["free_bytes"]
print(f"recorded: {free} B free on {auto['least_free']}, budget {auto['budget_bytes']} B, "
      + ", ".join(f"{o['op']} {o['max_bytes']} B ({o['buffer_bytes']} B of buffers)"
                  for o in auto["ops"]))
hi = max(before, after) + (64 << 20)  # nvidia-smi rounds to MiB
check(min(before, after) - SLACK <= free <= hi,
      f"recorded free {free} B is nvidia-smi's ({before}..{after} B) less at most 4 GiB")
if cuda is not None:
    check(cuda - SLACK <= free <= cuda + (256 << 20),
          f"recorded free {free} B is cudaMemGetInfo's ({cuda} B, the asking "
          "process's own context added back) less at most 4 GiB")
check(auto["fraction"] == FRACTION and auto["budget_bytes"] == int(FRACTION * free),
      f"budget {auto['budget_bytes']} B = {FRACTION} x {free} B")
largest = {}
for r in doc["steps"]:
    largest[r["op"]] = max(largest.get(r["op"], 0), r["bytes"])
for o in auto["ops"]:
    op, size = o["op"], o["max_bytes"]
    lo, top = rule(op, before - SLACK, n), rule(op, max(before, after), n)
    check(size == rule(op, free, n) and size & (size - 1) == 0
          and o["buffer_bytes"] == buffers(op, size, n) <= auto["budget_bytes"],
          f"{op}: {size} B is the largest power of two whose buffers fit {FRACTION} x {free} B")
    check(lo <= size <= top,
          f"{op}: {size} B lies within what nvidia-smi's free memory gives ({lo}..{top} B)")
    check(largest.get(op) == size, f"{op}: largest row {largest.get(op)} B is {size} B")
print("PASS" if failures == 0 else f"FAIL ({failures} check(s))")
sys.exit(1 if failures else 0)
PY

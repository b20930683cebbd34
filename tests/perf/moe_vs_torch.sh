#!/usr/bin/env bash
# The MoE probe on GPUs, side by side with torch in one run:
#   tests/perf/moe_vs_torch.sh BUNDLE_DIR OUT_DIR [PRESET]
# PRESET: deepep-ll or deepep-normal (docs/moe.md): DeepEP's test shape in
# MOE_DTYPE (default fp8_e4m3, DeepEP's dispatch; the combine is bf16),
# the three ops (moe_combine_weighted too, beside torch's all_to_all_single
# + index_add_), the data check in bf16 and fp8, and DeepEP's accounting
# printed beside ours. Without PRESET, as before:
# One agent runs every GPU (1 GPU works: then every row goes to the rank
# itself). FabricPulse's moe_dispatch and moe_combine at the shape MOE_ARGS
# (default: the defaults, 4096 x 7168 bf16, top-8, 8 experts per rank), data
# checked in one sweep, then timed in ROUNDS (3) sweeps of 5 warm-ups + 50
# iterations without the check, alternated with moe_torch_reference.py
# (torch.distributed.all_to_all_single with the same splits, from
# moe_splits, same method). The ratio is torch's time / ours (busbw ours /
# torch's): target >= 0.98 per op, on the medians. Exit 0 when the check is
# clean and both ratios pass, 1 when one fails, 2 when a run fails.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:?usage: $0 BUNDLE_DIR OUT_DIR}"
out="${2:?usage: $0 BUNDLE_DIR OUT_DIR}"
mkdir -p "$out"
source "$here/cluster_lib.sh"
bundle_env "$root"
ngpu=$(nvidia-smi -L | wc -l)
rounds="${ROUNDS:-3}"
preset="${3:-}"
ops=moe_dispatch,moe_combine
tokens=4096 hidden=7168 topk=8 experts=8 skew=0 seed=1 dtype=bfloat16
if [ -n "$preset" ]; then
  case "$preset" in
    deepep-ll) tokens=128 ;;
    deepep-normal) tokens=4096 ;;
    *) echo "PRESET: $preset is not a preset; allowed: deepep-ll, deepep-normal" >&2; exit 2 ;;
  esac
  experts=0 dtype="${MOE_DTYPE:-fp8_e4m3}" ops=moe_dispatch,moe_combine,moe_combine_weighted
  shape=(--moe-preset "$preset" --moe-dtype "$dtype")
  "$BIN/moe_splits" "$ngpu" "$tokens" "$hidden" "$topk" 0 "$skew" "$seed" "$preset" "$dtype" > "$out/splits.txt" || exit 2
else
  # MOE_ARGS: "tokens hidden topk experts skew seed dtype"
  [ -n "${MOE_ARGS:-}" ] && read -r tokens hidden topk experts skew seed dtype <<< "$MOE_ARGS"
  shape=(--moe-tokens "$tokens" --moe-hidden "$hidden" --moe-topk "$topk"
         --moe-experts "$experts" --moe-skew "$skew" --moe-seed "$seed" --moe-dtype "$dtype")
  "$BIN/moe_splits" "$ngpu" "$tokens" "$hidden" "$topk" "$experts" "$skew" "$seed" > "$out/splits.txt" || exit 2
fi

cluster_up 1 "$ngpu" nccl || exit 2
fp() { "$BIN/fabricpulse" --coordinator "$COORD" sweep --ops "$ops" "${shape[@]}" --progress never "$@"; }
fp --iters 5 --warmup 2 > "$out/check.txt" 2>&1 || { cat "$out/check.txt"; cluster_down; exit 2; }
if [ -n "$preset" ]; then
  # The data check in the other dtype too (bf16 and fp8 dispatch).
  other=bfloat16; [ "$dtype" = bfloat16 ] && other=fp8_e4m3
  fp --iters 5 --warmup 2 --moe-dtype "$other" >> "$out/check.txt" 2>&1 || { cat "$out/check.txt"; cluster_down; exit 2; }
fi
: > "$out/ours.txt"
for r in $(seq 1 "$rounds"); do
  fp --iters 50 --warmup 5 --no-check --output json > "$out/ours-$r.json" 2>> "$out/ours.err" || { cluster_down; exit 2; }
done
cluster_down
wait_gpus_idle
for r in $(seq 1 "$rounds"); do
  python3 "$here/moe_torch_reference.py" --splits "$out/splits.txt" --hidden "$hidden" \
    --dtype "$dtype" > "$out/torch-$r.jsonl" 2>> "$out/torch.err" || exit 2
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
ours, torch, deepep = {}, {}, {}
for r in range(1, rounds + 1):
    for s in json.load(open(f"{out}/ours-{r}.json"))["sweeps"][0]["steps"]:
        ours.setdefault(s["op"], []).append(s["time_seconds"] * 1e6)
        d = (s.get("moe_traffic") or {}).get("deepep")
        if d:
            deepep.setdefault(s["op"], []).append(d)
    for line in open(f"{out}/torch-{r}.jsonl"):
        t = json.loads(line)
        torch.setdefault(t["op"], []).append(t["time_us"])
check = open(f"{out}/check.txt").read()
checks = check.count("# Out of bounds values : ")
ok = checks > 0 and check.count("# Out of bounds values : 0 OK") == checks
print("data check (5 iterations, every row):", "PASS 0 wrong" if ok else "FAIL")
for line in check.splitlines():
    if line.startswith("# MoE") or line.startswith("#   moe_") or "DeepEP's accounting" in line:
        print(line)
print(f"{'op':<14}{'ours us (median)':>18}{'torch us (median)':>19}{'torch/ours':>12}  rounds")
for op in [o for o in ("moe_dispatch", "moe_combine", "moe_combine_weighted") if o in ours]:
    o, t = statistics.median(ours[op]), statistics.median(torch[op])
    ratio = t / o
    ok = ok and ratio >= 0.98
    print(f"{op:<14}{o:>18.1f}{t:>19.1f}{ratio:>12.3f}  ours {['%.1f' % x for x in ours[op]]} torch {['%.1f' % x for x in torch[op]]}")
    print(("PASS" if ratio >= 0.98 else "FAIL"), f"{op}: torch/ours {ratio:.3f} (target >= 0.98)")
    for d in deepep.get(op, [])[:1]:
        figs = [(k, d[k], d[k + "_per_second"]) for k in ("bytes", "nvl_bytes", "rdma_bytes") if d[k] is not None]
        print(f"  DeepEP's accounting ({d['accounting']}" + (f", {d['combine_timing']}" if d['combine_timing'] else "") + "): " +
              ", ".join(f"{k} {v / 1e6:.2f} MB at the median time {v / (o * 1e-6) / 1e9:.2f} GB/s" for k, v, _ in figs))
sys.exit(0 if ok else 1)
PY

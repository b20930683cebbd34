#!/usr/bin/env bash
# The MoE probe at DeepEP's test shapes on every GPU of this machine, its
# figures beside DeepEP's published ones (docs/legacy.md of
# deepseek-ai/DeepEP, H800, EP8):
#   tests/perf/moe_vs_deepep.sh BUNDLE_DIR OUT_DIR
# One agent runs every GPU (one node: NVLink only). For each preset
# (deepep-ll, deepep-normal; fp8 dispatch, bf16 combine): one checked sweep
# of moe_dispatch, moe_combine and moe_combine_weighted, then ROUNDS (3)
# timed sweeps of 5 warm-ups + 50 iterations; prints per op the median
# time, our busbw, DeepEP's accounting (bytes over our time) and DeepEP's
# published figure. Which figure compares with DeepEP's: docs/moe.md.
# Needs 2 GPUs or more: with fewer it says so and exits 0 (skipped). Exit
# 1 when a data check fails, 2 when a run fails.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:?usage: $0 BUNDLE_DIR OUT_DIR}"
out="${2:?usage: $0 BUNDLE_DIR OUT_DIR}"
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$ngpu" -lt 2 ]; then
  echo "SKIP moe_vs_deepep: $ngpu GPU(s) here; DeepEP's figures are EP8 (8 GPUs), this needs 2 or more"
  exit 0
fi
mkdir -p "$out"
source "$here/cluster_lib.sh"
bundle_env "$root"
rounds="${ROUNDS:-3}"
ops=moe_dispatch,moe_combine,moe_combine_weighted
cluster_up 1 "$ngpu" nccl || exit 2
status=0
for preset in deepep-ll deepep-normal; do
  fp() { "$BIN/fabricpulse" --coordinator "$COORD" sweep --ops "$ops" --moe-preset "$preset" --progress never "$@"; }
  fp --iters 5 --warmup 2 > "$out/$preset-check.txt" 2>&1 || { cat "$out/$preset-check.txt"; cluster_down; exit 2; }
  for r in $(seq 1 "$rounds"); do
    fp --iters 50 --warmup 5 --no-check --output json > "$out/$preset-$r.json" 2>> "$out/ours.err" || { cluster_down; exit 2; }
  done
done
cluster_down
python3 - "$out" "$rounds" "$ngpu" <<'PY' || status=1
import json, statistics, sys
out, rounds, ngpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# DeepEP's published figures (docs/legacy.md, H800, EP8): (time us, GB/s, path).
published = {
    ("deepep-ll", "moe_dispatch"): (77, 98, "RDMA"),
    ("deepep-ll", "moe_combine_weighted"): (114, 127, "RDMA"),
    ("deepep-normal", "moe_dispatch"): (None, 153, "NVLink"),
    ("deepep-normal", "moe_combine_weighted"): (None, 158, "NVLink"),
}
ok = True
print(f"MoE probe at DeepEP's shapes on {ngpu} GPUs of one node (DeepEP published: H800, EP8)")
for preset in ("deepep-ll", "deepep-normal"):
    check = open(f"{out}/{preset}-check.txt").read()
    clean = "# Out of bounds values : 0 OK" in check
    ok = ok and clean
    print(f"\n{preset}: data check {'PASS 0 wrong' if clean else 'FAIL'}")
    for line in check.splitlines():
        if line.startswith("# MoE"):
            print(line)
    times, busbw, dee = {}, {}, {}
    for r in range(1, rounds + 1):
        for s in json.load(open(f"{out}/{preset}-{r}.json"))["sweeps"][0]["steps"]:
            times.setdefault(s["op"], []).append(s["time_seconds"])
            m = s.get("moe_traffic") or {}
            # Our busbw: the bytes a rank receives from other ranks.
            busbw[s["op"]] = m.get("intra_node_bytes", 0) + m.get("network_bytes", 0)
            dee[s["op"]] = m.get("deepep")
    print(f"{'op':<22}{'us':>9}{'busbw GB/s':>12}  DeepEP's accounting (our time)            DeepEP published")
    for op in ("moe_dispatch", "moe_combine", "moe_combine_weighted"):
        t = statistics.median(times[op])
        d = dee[op] or {}
        figs = ", ".join(f"{k.replace('_bytes', '').replace('bytes', 'selections')} {d[k] / t / 1e9:.1f} GB/s"
                         for k in ("bytes", "nvl_bytes", "rdma_bytes") if d.get(k) is not None)
        pub = published.get((preset, op))
        pub_text = "-" if not pub else (f"{pub[0]} us, " if pub[0] else "") + f"{pub[1]} GB/s ({pub[2]})"
        label = {"moe_combine": " (fabric only)", "moe_combine_weighted": " (as DeepEP times)"}.get(op, "")
        print(f"{op:<22}{t * 1e6:>9.1f}{busbw[op] / t / 1e9:>12.1f}  {figs + label:<42} {pub_text}")
sys.exit(0 if ok else 1)
PY
exit $status

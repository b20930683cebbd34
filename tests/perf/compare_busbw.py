#!/usr/bin/env python3
"""Side-by-side table: FabricPulse sweep results (JSON objects, one per
line, from `fabricpulse sweep --output json`) against the torch reference
(JSON lines from torch_reference.py). Prints busbw in GB/s and the ratio."""
import json
import sys


def load_ours(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            doc = json.loads(line)
            for r in doc.get("results", []):
                if not r["in_place"]:
                    out[(r["op"], r["bytes"])] = r
    return out


def load_torch(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                out[(r["op"], r["bytes"])] = r
    return out


def main():
    ours, ref = load_ours(sys.argv[1]), load_torch(sys.argv[2])
    print("| op | size (B) | FabricPulse time (us) | FabricPulse busbw (GB/s) | torch busbw (GB/s) | ratio |")
    print("|---|---|---|---|---|---|")
    for key in sorted(ours, key=lambda k: (k[0], k[1])):
        r = ours[key]
        t = ref.get(key)
        ratio = f"{r['busbw_gbps'] / (t['busbw'] / 1e9):.3f}" if t and t["busbw"] > 0 else "n/a"
        tb = f"{t['busbw'] / 1e9:.1f}" if t else "n/a"
        print(f"| {key[0]} | {key[1]} | {r['time_us']:.1f} | {r['busbw_gbps']:.1f} | {tb} | {ratio} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Side-by-side table: FabricPulse sweep results (JSON objects, one per
line, from `fabricpulse sweep --output json`) against the torch reference
(JSON lines from torch_reference.py). Each side may hold several runs of the
same (op, size): the table shows the median of each side's busbw (GB/s),
the number of runs, and the ratio of the medians."""
import json
import statistics
import sys


def load_ours(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            doc = json.loads(line)  # docs/json.md, bandwidths in B/s
            for s in doc.get("sweeps", []):
                for r in s.get("steps") or []:
                    if not r["in_place"]:
                        out.setdefault((r["op"], r["bytes"]), []).append(
                            (r["time_seconds"] * 1e6,
                             r["busbw_bytes_per_second"] / 1e9))
    return out


def load_torch(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                out.setdefault((r["op"], r["bytes"]), []).append(
                    r["busbw"] / 1e9)
    return out


def main():
    ours, ref = load_ours(sys.argv[1]), load_torch(sys.argv[2])
    print("| op | size (B) | FabricPulse time (us) | FabricPulse busbw (GB/s) "
          "| torch busbw (GB/s) | runs | ratio |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(ours, key=lambda k: (k[0], k[1])):
        time_us = statistics.median(t for t, _ in ours[key])
        busbw = statistics.median(b for _, b in ours[key])
        runs = str(len(ours[key]))
        tb, ratio = "n/a", "n/a"
        if key in ref:
            torch_busbw = statistics.median(ref[key])
            runs += f"/{len(ref[key])}"
            tb = f"{torch_busbw:.1f}"
            if torch_busbw > 0:
                ratio = f"{busbw / torch_busbw:.3f}"
        print(f"| {key[0]} | {key[1]} | {time_us:.1f} | {busbw:.1f} | {tb} "
              f"| {runs} | {ratio} |")


if __name__ == "__main__":
    main()

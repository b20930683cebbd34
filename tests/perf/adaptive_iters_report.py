#!/usr/bin/env python3
"""Report of tests/perf/adaptive_iters.sh: GPU time and busbw of sweeps of
one plan run with fixed and with adaptive iteration counts.

Arguments: MODE:ROUND:FILE for every run (MODE fixed or adaptive, FILE the
sweep's `--output json`). GPU time of a step = (warm-ups + timed iterations
x passes + check) x the step's time (the slowest rank's mean), where passes
is 2 for NCCL steps under 200 us (their percentile pass runs the timed
iterations again; judged from the step's time, as the backend judges it from
its warm-ups) and the check is one op when the plan checks. Agreements
between batches (one 8-byte all-reduce each) and host time between steps are
not GPU time of the measured op and are not counted; the sweeps' wall
durations are printed beside. Prints PASS/FAIL lines against the targets:
adaptive GPU time <= 0.5 x fixed (summed over the rounds); per (op, size,
placement) with size >= --large-bytes, the median busbw over the rounds
(algbw where busbw is 0: one rank) of adaptive within 1 % of fixed. Exit 0
when every target passes, else 1.
"""
import argparse
import json
import statistics
import sys

GPU_TIME_TARGET = 0.5
BUSBW_TARGET_PCT = 1.0
PERCENTILE_PASS_BELOW_US = 200.0


def load(path):
    with open(path) as f:
        return json.load(f)["sweeps"][0]  # docs/json.md


def step_gpu_seconds(r, args):
    t = r["time_seconds"]
    iters = r.get("iterations") or 0
    passes = 2 if args.backend == "nccl" and t * 1e6 < PERCENTILE_PASS_BELOW_US else 1
    check = 1 if args.check == "true" else 0
    return (args.warmup + iters * passes + check) * t, iters * t


def bw(r):
    # busbw is 0 at one rank (factor (n-1)/n etc.): compare algbw there.
    bw = r["busbw_bytes_per_second"] or r["algbw_bytes_per_second"]
    return bw / 1e9


def placement(in_place):
    return "in-place" if in_place else "out-of-place"


def size_label(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="nccl")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--check", default="true")
    p.add_argument("--large-bytes", type=int, default=64 << 20)
    p.add_argument("runs", nargs="+")
    args = p.parse_args()

    totals = {"fixed": [0.0, 0.0], "adaptive": [0.0, 0.0]}
    per_round = {}  # round -> {mode: GPU seconds}
    bws = {"fixed": {}, "adaptive": {}}
    iters_used = {"fixed": {}, "adaptive": {}}
    nranks = None
    print(f"{'run':<12} {'steps':>5} {'iterations':>10} {'GPU time (s)':>12} "
          f"{'timed only (s)':>14} {'wall (s)':>8}")
    for spec in args.runs:
        mode, rnd, path = spec.split(":", 2)
        doc = load(path)
        if doc.get("status") != "succeeded":
            print(f"FAIL run {mode} {rnd}: status {doc.get('status')}")
            return 1
        gpu = timed = 0.0
        iters = 0
        nranks = doc.get("nranks", nranks)
        for r in doc["steps"]:
            g, t = step_gpu_seconds(r, args)
            gpu += g
            timed += t
            iters += r.get("iterations") or 0
            key = (r["op"], r["bytes"], r["in_place"])
            bws[mode].setdefault(key, []).append(bw(r))
            iters_used[mode].setdefault(key, []).append(r.get("iterations") or 0)
        totals[mode][0] += gpu
        totals[mode][1] += timed
        per_round.setdefault(rnd, {})[mode] = gpu
        print(f"{mode + ' ' + rnd:<12} {len(doc['steps']):>5} {iters:>10} "
              f"{gpu:>12.4f} {timed:>14.4f} {doc.get('duration_seconds') or 0:>8.2f}")

    ok = True
    fixed, adaptive = totals["fixed"], totals["adaptive"]
    if fixed[0] <= 0:
        print("FAIL no fixed-count GPU time measured")
        return 1
    for rnd, gpu in sorted(per_round.items(), key=lambda kv: int(kv[0])):
        if gpu.get("fixed"):
            print(f"round {rnd}: GPU time adaptive/fixed = "
                  f"{gpu.get('adaptive', 0) / gpu['fixed']:.3f}")
    ratio = adaptive[0] / fixed[0]
    print(f"GPU time adaptive/fixed: {ratio:.3f} with warm-ups and checks, "
          f"{adaptive[1] / fixed[1]:.3f} timed iterations only")
    verdict = "PASS" if ratio <= GPU_TIME_TARGET else "FAIL"
    ok &= verdict == "PASS"
    print(f"{verdict} GPU time: adaptive/fixed = {ratio:.3f} (target <= {GPU_TIME_TARGET})")

    large = sorted(k for k in bws["fixed"] if k[1] >= args.large_bytes and k in bws["adaptive"])
    # At one NCCL rank an in-place op moves no data: its time is the
    # launch, and its "bandwidth" (bytes over microseconds) is no bandwidth
    # at all. Such rows are listed, not judged.
    unjudged = {k for k in large if nranks == 1 and k[2] and args.backend == "nccl"}
    if not large:
        print(f"FAIL busbw: no size >= {size_label(args.large_bytes)} in both modes")
        return 1
    print(f"busbw (GB/s; algbw where busbw is 0), median over rounds, sizes >= {size_label(args.large_bytes)}:")
    print(f"  {'op':<15} {'size':>8} {'place':<6} {'fixed':>9} {'adaptive':>9} {'diff %':>7} "
          f"{'fixed spread %':>14} {'adaptive iters':>14}")
    failed = []
    for key in large:
        op, b, in_place = key
        f = statistics.median(bws["fixed"][key])
        a = statistics.median(bws["adaptive"][key])
        diff = (a - f) / f * 100 if f else float("inf")
        vals = bws["fixed"][key]
        spread = (max(vals) - min(vals)) / f * 100 if f and len(vals) > 1 else 0.0
        place = "in" if in_place else "out"
        used = "/".join(str(i) for i in iters_used["adaptive"][key])
        note = "  (not judged: 1 rank, in place moves no data)" if key in unjudged else ""
        print(f"  {op:<15} {size_label(b):>8} {place:<6} {f:>9.2f} {a:>9.2f} {diff:>+7.2f} "
              f"{spread:>14.2f} {used:>14}{note}")
        if key in unjudged:
            continue
        if not abs(diff) <= BUSBW_TARGET_PCT:
            failed.append(f"{op} {size_label(b)} {placement(in_place)} {diff:+.2f} %")
    judged = [k for k in large if k not in unjudged]
    if not judged:
        print("FAIL busbw: no size to judge")
        return 1
    worst = max(judged, key=lambda k: abs(statistics.median(bws["adaptive"][k]) /
                                         statistics.median(bws["fixed"][k]) - 1)
                if statistics.median(bws["fixed"][k]) else float("inf"))
    wf = statistics.median(bws["fixed"][worst])
    wd = (statistics.median(bws["adaptive"][worst]) - wf) / wf * 100 if wf else float("inf")
    if failed:
        ok = False
        for line in failed:
            print(f"FAIL busbw: {line} (target within {BUSBW_TARGET_PCT} %)")
    print(f"{'PASS' if not failed else 'FAIL'} busbw >= {size_label(args.large_bytes)}: "
          f"{len(judged) - len(failed)} of {len(judged)} within {BUSBW_TARGET_PCT} % "
          f"(worst {worst[0]} {size_label(worst[1])} {placement(worst[2])}: {wd:+.2f} %)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

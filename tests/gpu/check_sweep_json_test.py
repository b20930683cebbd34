#!/usr/bin/env python3
"""Self-test of tests/gpu/check_sweep_json.py: it passes a good sweep's JSON
and fails each broken one, naming what is wrong.

  check_sweep_json_test.py --fixture FILE
      the good JSON is FILE (tests/gpu/testdata/sweep_gloo_2ranks.json, from
      the real run below);
  check_sweep_json_test.py --fabricpulse BIN
      the good JSON comes from a real run now:
      BIN local --backend gloo --ranks 2 sweep --output json FLAGS.

FLAGS (below) cover an op without a root, a rooted op with root 1, ops that
split data (counts rounded to a multiple of 2 ranks), one without an
in-place variant, and both placements. The mutations: a row removed, a row
duplicated, a row's count changed, a row's placement flipped, nranks wrong,
a row with wrong > 0, a failed status, a row without a time, and the checker
told of a larger sweep than ran; each must fail with a line naming the
problem. p50_seconds/p99_seconds set to null must still pass (absent when not
measured). Exits 0 when every case behaves."""
import argparse
import copy
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_sweep_json.py")
NRANKS = 2
FLAGS = ["--ops", "all_reduce,all_gather,alltoall,broadcast", "--root", "1",
         "--min-bytes", "4", "--max-bytes", "4K", "--factor", "8",
         "--iters", "2", "--warmup", "1"]


def run_checker(doc, nranks=NRANKS, flags=FLAGS):
    text = doc if isinstance(doc, str) else json.dumps(doc)
    p = subprocess.run([sys.executable, CHECKER, "selftest", str(nranks)] +
                       flags, input=text, capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def good_json(args):
    if args.fixture:
        with open(args.fixture) as f:
            return f.read()
    p = subprocess.run([args.fabricpulse, "local", "--backend", "gloo",
                        "--ranks", str(NRANKS), "sweep", "--output", "json"] +
                       FLAGS, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("FAIL: the real sweep exited %d: %s" % (p.returncode,
                                                         p.stderr[-2000:]))
    return p.stdout


def sweep(doc):
    """The document's one sweep (docs/json.md)."""
    return doc["sweeps"][0]


def row_index(doc, **match):
    for i, r in enumerate(sweep(doc)["steps"]):
        if all(r.get(k) == v for k, v in match.items()):
            return i
    sys.exit("FAIL: the good JSON has no row %s: is it this sweep's?" % match)


def mutations(doc):
    """(name, mutated doc or text, flags, text the failure must contain)."""
    out = []

    def mutate(name, expect, fn, flags=FLAGS):
        d = copy.deepcopy(doc)
        fn(d)
        out.append((name, d, flags, expect))

    ag = row_index(doc, op="all_gather", bytes=32, in_place=True)
    mutate("a row removed", "missing row: all_gather 32 B",
           lambda d: sweep(d)["steps"].pop(ag))
    mutate("a row duplicated", "extra row: all_gather 32 B",
           lambda d: sweep(d)["steps"].append(sweep(d)["steps"][ag]))
    ar = row_index(doc, op="all_reduce", bytes=256, in_place=False)

    def bad_count(d):
        sweep(d)["steps"][ar]["count"] += 1
    mutate("a row's count changed", "extra row: all_reduce 256 B (count 65",
           bad_count)

    def flip(d):
        sweep(d)["steps"][ar]["in_place"] = True
    mutate("a row's placement flipped",
           "missing row: all_reduce 256 B (count 64 float, redop sum, root -1,"
           " out-of-place)", flip)

    def nranks(d):
        sweep(d)["nranks"] = NRANKS + 1
    mutate("wrong nranks", "nranks 3, expected 2", nranks)

    def wrong(d):
        sweep(d)["steps"][ar]["wrong"] = 3
    mutate("a row with wrong > 0", "wrong 3, expected 0", wrong)

    def failed(d):
        sweep(d)["status"] = "failed"
        sweep(d)["error"] = "rank 1 timed out"
    mutate("a failed sweep", "status 'failed'", failed)

    def no_time(d):
        sweep(d)["steps"][ar]["time_seconds"] = None
    mutate("a row without a time", "time_seconds None", no_time)
    bigger = [f if f != "4K" else "32K" for f in FLAGS]
    mutate("the checker told of a larger sweep", "missing row: all_reduce "
           "16384 B", lambda d: None, flags=bigger)
    out.append(("not JSON", "sweep failed: oops", FLAGS, "not a JSON object"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--fixture")
    src.add_argument("--fabricpulse")
    args = ap.parse_args()
    text = good_json(args)
    doc = json.loads(text)
    failures = 0

    def report(ok, name, detail):
        nonlocal failures
        failures += 0 if ok else 1
        print("%s %s%s" % ("ok  " if ok else "FAIL", name,
                           "" if ok else ":\n" + detail))

    rc, out = run_checker(text)
    report(rc == 0, "good JSON (%d rows) passes" % len(sweep(doc)["steps"]),
           out)
    nulls = copy.deepcopy(doc)
    for r in sweep(nulls)["steps"]:
        r["p50_seconds"] = r["p99_seconds"] = None
    rc, out = run_checker(nulls)
    report(rc == 0, "p50_seconds/p99_seconds null (not measured) passes", out)
    for name, mutated, flags, expect in mutations(doc):
        rc, out = run_checker(mutated, flags=flags)
        report(rc == 1 and expect in out,
               "%s fails (%s)" % (name, expect),
               "exit %d, output:\n%s" % (rc, out))
    rc, out = run_checker(text, flags=FLAGS + ["--bogus"])
    report(rc == 2 and "unknown sweep flags" in out,
           "an unknown sweep flag is a usage error", out)
    print("check_sweep_json self-test: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

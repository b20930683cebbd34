#!/usr/bin/env python3
"""Checks `fabricpulse sweep --output json` (read on stdin) against the sweep
that was asked for:

  check_sweep_json.py LABEL NRANKS [SWEEP FLAGS...] < sweep.json

SWEEP FLAGS are the flags given to `fabricpulse sweep` (--ops, --min-bytes,
--max-bytes, --factor | --step, --dtype, --redop, --root, --in-place |
--out-of-place | --both; flags that do not change the rows, such as --iters,
--warmup, --timeout, --graph, --output, are accepted and ignored), with the
CLI's defaults for those left out. The expected rows are expanded from them
independently of the daemons, by the rules of daemon/core/sweep_spec.cc: for
each op, each size of the schedule, out-of-place then in-place as the
placement asks (ops without an in-place variant: out-of-place only), the
element count rounded down to a multiple of NRANKS for ops that split data,
sizes with no element dropped.

The document is the versioned one (docs/json.md, "fabricpulse.sweeps/v1");
its one sweep is checked. Passes (exit 0) only when the sweep succeeded,
"nranks" is NRANKS, the steps are exactly the expected rows (op, bytes, count, dtype, redop, root,
in_place; each once), every row has a measured time and, unless --no-check,
"wrong" is 0 in every row. p50_seconds/p99_seconds are not checked (null when not
measured). Prints one line, PASS or FAIL, prefixed by LABEL, then one line per
problem (missing/extra row, wrong nranks, ...); exit 1 on any problem, 2 on
bad arguments."""
import argparse
import json
import math
import sys

# daemon/core/op_traits.cc: name -> (reduction, rooted, splits, in_place).
OPS = {
    "all_reduce": (True, False, False, True),
    "all_gather": (False, False, True, True),
    "reduce_scatter": (True, False, True, True),
    "broadcast": (False, True, False, True),
    "reduce": (True, True, False, True),
    "alltoall": (False, False, True, False),
    "sendrecv": (False, False, False, False),
    "gather": (False, True, True, True),
    "scatter": (False, True, True, True),
}
# daemon/core/sweep_spec.cc: one step per moe op at the --moe-* shape.
MOE_OPS = ("moe_dispatch", "moe_combine", "moe_combine_weighted")
# daemon/core/moe_preset.h: DeepEP's shapes (tokens; 7168 hidden, fp8
# dispatch, bf16 combine), under the --moe-* flags given.
MOE_PRESET_TOKENS = {"deepep-ll": 128, "deepep-normal": 4096}
OP_ALIASES = {
    "allreduce": "all_reduce", "allgather": "all_gather",
    "reducescatter": "reduce_scatter", "all_to_all": "alltoall",
    "all2all": "alltoall", "pt2pt": "sendrecv", "send_recv": "sendrecv",
}
# daemon/core/dtype.cc: name -> element size.
DTYPES = {
    "int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
    "half": 2, "float": 4, "double": 8, "bfloat16": 2, "fp8_e4m3": 1,
    "fp8_e5m2": 1,
}
DTYPE_ALIASES = {
    "char": "int8", "int": "int32", "long": "int64", "fp16": "half",
    "float16": "half", "fp32": "float", "float32": "float", "fp64": "double",
    "float64": "double", "bf16": "bfloat16", "e4m3": "fp8_e4m3",
}
REDOPS = ("sum", "prod", "min", "max", "avg")
MAX_STEPS = 10000  # daemon/core/sweep_spec.h kMaxSteps
SHOW = 10          # problems listed per kind before "... and N more"


class BadArgs(Exception):
    pass


def byte_size(text):
    """daemon/core/byte_size.cc ParseByteSize: N[K|M|G|T][B], powers of 2."""
    s = text.strip().upper()
    if s.endswith("B"):
        s = s[:-1]
    mult = 1
    if s and s[-1] in "KMGT":
        mult = 1 << (10 * ("KMGT".index(s[-1]) + 1))
        s = s[:-1]
    if not s.isdigit():
        raise BadArgs("%r is not a byte size (e.g. 8, 64K, 1M, 2G)" % text)
    return int(s) * mult


def parse_flags(argv):
    p = argparse.ArgumentParser(prog="check_sweep_json.py", add_help=False)
    p.add_argument("--ops", default="all_reduce")
    p.add_argument("--min-bytes", default="8")
    p.add_argument("--max-bytes", default="32M")
    p.add_argument("--factor", type=float, default=2)
    p.add_argument("--step", default="0")
    p.add_argument("--dtype", default="float")
    p.add_argument("--redop", default="sum")
    p.add_argument("--root", type=int, default=0)
    p.add_argument("--moe-tokens", type=int)
    p.add_argument("--moe-hidden", type=int, default=7168)
    p.add_argument("--moe-dtype")
    p.add_argument("--moe-preset", choices=sorted(MOE_PRESET_TOKENS))
    for ignored in ("--moe-topk", "--moe-experts", "--moe-skew", "--moe-seed"):
        p.add_argument(ignored)
    p.set_defaults(placement="both")
    for flag, placement in (("--in-place", "in_place"),
                            ("--out-of-place", "out_of_place"),
                            ("--both", "both")):
        p.add_argument(flag, dest="placement", action="store_const",
                       const=placement)
    p.add_argument("--check", dest="check", action="store_true", default=True)
    p.add_argument("--no-check", dest="check", action="store_false")
    for ignored in ("--iters", "--warmup", "--timeout", "--output",
                    "--bw-unit", "--nodes"):
        p.add_argument(ignored)
    for ignored in ("--graph", "--raw", "--fresh-comm"):
        p.add_argument(ignored, action="store_true")
    p.add_argument("--plan")
    try:
        args, rest = p.parse_known_args(argv)
    except SystemExit:
        raise BadArgs("cannot parse the sweep flags %s" % argv)
    if rest:
        raise BadArgs("unknown sweep flags %s" % rest)
    if args.plan:
        raise BadArgs("--plan: the plan's spec is in the coordinator's "
                      "config; give its spec flags instead")
    return args


def expected_rows(flags, nranks):
    """The rows (op, bytes, count, dtype, redop, root, in_place), in order."""
    ops = []
    for name in flags.ops.split(","):
        name = OP_ALIASES.get(name.lower(), name.lower())
        if name not in OPS and name not in MOE_OPS:
            raise BadArgs("--ops: unknown op %r" % name)
        if name not in ops:
            ops.append(name)
    dtype = DTYPE_ALIASES.get(flags.dtype.lower(), flags.dtype.lower())
    if dtype not in DTYPES:
        raise BadArgs("--dtype: unknown dtype %r" % flags.dtype)
    redop = flags.redop.lower()
    if redop not in REDOPS:
        raise BadArgs("--redop: unknown redop %r" % flags.redop)
    lo, hi, step = (byte_size(flags.min_bytes), byte_size(flags.max_bytes),
                    byte_size(flags.step))
    if step == 0 and not 2 <= flags.factor <= 1024:
        raise BadArgs("--factor: %g out of range 2..1024" % flags.factor)
    sizes, size = [], lo
    while size <= hi and len(sizes) <= MAX_STEPS:
        sizes.append(size)
        nxt = size + step if step > 0 else int(math.floor(size * flags.factor))
        if nxt <= size:
            break
        size = nxt
    element = DTYPES[dtype]
    rows = []
    for op in ops:
        if op in MOE_OPS:
            preset = flags.moe_preset
            tokens = flags.moe_tokens or MOE_PRESET_TOKENS.get(preset, 4096)
            moe_dtype = flags.moe_dtype or ("fp8_e4m3" if preset else "bfloat16")
            if preset and op != "moe_dispatch":
                moe_dtype = "bfloat16"  # DeepEP combines in bf16
            count = tokens * flags.moe_hidden
            rows.append((op, count * DTYPES[moe_dtype], count,
                         moe_dtype, "none", -1, False))
            continue
        reduction, rooted, splits, has_in_place = OPS[op]
        for size in sizes:
            count = size // element
            if splits:
                count = count // nranks * nranks
            if count == 0:
                continue
            for in_place in (False, True):
                if in_place and (flags.placement == "out_of_place" or
                                 not has_in_place):
                    continue
                if (not in_place and flags.placement == "in_place" and
                        has_in_place):
                    continue
                rows.append((op, count * element, count, dtype,
                             redop if reduction else "none",
                             flags.root if rooted else -1, in_place))
    if not rows or len(rows) > MAX_STEPS:
        raise BadArgs("the flags expand to %d steps; allowed 1..%d" %
                      (len(rows), MAX_STEPS))
    return rows


def show(row):
    op, nbytes, count, dtype, redop, root, in_place = row
    return "%s %d B (count %d %s, redop %s, root %d, %s)" % (
        op, nbytes, count, dtype, redop, root,
        "in-place" if in_place else "out-of-place")


def row_key(r):
    return (r.get("op"), r.get("bytes"), r.get("count"), r.get("dtype"),
            r.get("redop"), r.get("root"), r.get("in_place"))


def listed(problems, what, rows):
    for row in rows[:SHOW]:
        problems.append("%s row: %s" % (what, show(row)))
    if len(rows) > SHOW:
        problems.append("... and %d more %s rows" % (len(rows) - SHOW, what))


def check(doc, want, nranks, data_check):
    """Problems (strings) of a parsed document against the expected rows."""
    problems = []
    if doc.get("status") != "succeeded":
        problems.append("status %r, not 'succeeded'%s" % (
            doc.get("status"),
            ": %s" % doc["error"] if doc.get("error") else ""))
    if doc.get("nranks") != nranks:
        problems.append("nranks %r, expected %d" % (doc.get("nranks"), nranks))
    results = doc.get("steps")
    if not isinstance(results, list):
        return problems + ["no \"steps\" list"]
    remaining = list(want)
    extra = []
    for r in results:
        key = row_key(r)
        if key in remaining:
            remaining.remove(key)
        else:
            extra.append(key)
    listed(problems, "missing", remaining)
    listed(problems, "extra", extra)
    for r in results:
        t = r.get("time_seconds")
        if not (isinstance(t, (int, float)) and t > 0):
            problems.append("row %s: time_seconds %r, not a measured time" %
                            (show(row_key(r)), t))
        if data_check and r.get("wrong") != 0:
            problems.append("row %s: wrong %r, expected 0" %
                            (show(row_key(r)), r.get("wrong")))
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    label = argv[1]
    try:
        nranks = int(argv[2])
        if nranks < 1:
            raise ValueError
        flags = parse_flags(argv[3:])
        want = expected_rows(flags, nranks)
    except ValueError:
        print("FAIL %s: NRANKS %r is not a positive number" % (label, argv[2]))
        return 2
    except BadArgs as e:
        print("FAIL %s: bad arguments: %s" % (label, e))
        return 2
    text = sys.stdin.read()
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ValueError
    except ValueError:
        print("FAIL %s: not a JSON object: %r" % (label, text[:300]))
        return 1
    sweeps = doc.get("sweeps")
    if doc.get("schema") != "fabricpulse.sweeps/v1" or not (
            isinstance(sweeps, list) and len(sweeps) == 1 and
            isinstance(sweeps[0], dict)):
        print("FAIL %s: not a fabricpulse.sweeps/v1 document of one sweep: "
              "%r" % (label, text[:300]))
        return 1
    doc = sweeps[0]
    problems = check(doc, want, nranks, flags.check)
    results = doc.get("steps") if isinstance(doc.get("steps"), list) else []
    wrong = sum(r.get("wrong") or 0 for r in results
                if isinstance(r.get("wrong"), int))
    print("%s %s: status=%s nranks=%s results=%d (expected %d) wrong=%d "
          "comm_reused=%s init_s=%s" % (
              "FAIL" if problems else "PASS", label, doc.get("status"),
              doc.get("nranks"), len(results), len(want), wrong,
              (doc.get("comm") or {}).get("reused"),
              (doc.get("comm") or {}).get("init_seconds")))
    for p in problems:
        print("  %s" % p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

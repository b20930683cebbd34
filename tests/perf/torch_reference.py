#!/usr/bin/env python3
"""torch.distributed reference for the NCCL fidelity benchmark.

One process per GPU (torch.multiprocessing), NCCL backend, the DeepSpeed
comm-bench method: `warmup` untimed ops, then `iters` ops between two CUDA
events. Sizes and busbw use nccl-tests' definitions (size = the collective's
total buffer; busbw = size / time x factor), the same as FabricPulse, so the
two can be compared op by op. Prints one JSON object per (op, size) on stdout.
"""
import argparse
import json
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
}


def run_op(op, size, rank, n, warmup, iters):
    count = size // 4
    if op in ("all_gather", "reduce_scatter", "alltoall"):
        count = count // n * n
    size = count * 4
    dev = torch.device("cuda", rank)
    if op == "all_reduce":
        x = torch.ones(count, device=dev)
        fn = lambda: dist.all_reduce(x)
    elif op == "all_gather":
        x = torch.ones(count // n, device=dev)
        y = torch.empty(count, device=dev)
        fn = lambda: dist.all_gather_into_tensor(y, x)
    elif op == "reduce_scatter":
        x = torch.ones(count, device=dev)
        y = torch.empty(count // n, device=dev)
        fn = lambda: dist.reduce_scatter_tensor(y, x)
    elif op == "alltoall":
        x = torch.ones(count, device=dev)
        y = torch.empty(count, device=dev)
        fn = lambda: dist.all_to_all_single(y, x)
    elif op == "broadcast":
        x = torch.ones(count, device=dev)
        fn = lambda: dist.broadcast(x, 0)
    elif op == "sendrecv":
        x = torch.ones(count, device=dev)
        y = torch.empty(count, device=dev)
        nxt, prv = (rank + 1) % n, (rank - 1 + n) % n

        def fn():
            reqs = dist.batch_isend_irecv(
                [dist.P2POp(dist.isend, x, nxt), dist.P2POp(dist.irecv, y, prv)])
            for r in reqs:
                r.wait()
    else:
        raise ValueError(op)
    return size, time_op(fn, dev, warmup, iters)


def time_op(fn, dev, warmup, iters):
    """Seconds per call of fn: `warmup` untimed calls, then `iters` between
    two CUDA events; the slowest rank's (a collective ends with it)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize(dev)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize(dev)
    t = torch.tensor([start.elapsed_time(end) / 1e3 / iters], device=dev,
                     dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def worker(rank, n, args, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n,
                            device_id=torch.device("cuda", rank))
    for op in args.ops.split(","):
        for size in [int(s) for s in args.sizes.split(",")]:
            for _ in range(args.repeats):
                nbytes, t = run_op(op, size, rank, n, args.warmup, args.iters)
                if rank == 0:
                    algbw = nbytes / t
                    print(json.dumps({"op": op, "bytes": nbytes,
                                      "time_us": t * 1e6, "algbw": algbw,
                                      "busbw": algbw * FACTORS[op](n)}),
                          flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ops", default="all_reduce")
    p.add_argument("--sizes", default="1048576")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=50)
    # Each (op, size) is timed this many times, one JSON line each; the
    # comparison takes the median.
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--nranks", type=int, default=torch.cuda.device_count())
    p.add_argument("--port", type=int, default=29517)
    args = p.parse_args()
    mp.spawn(worker, args=(args.nranks, args, args.port), nprocs=args.nranks)


if __name__ == "__main__":
    main()

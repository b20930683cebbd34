#!/usr/bin/env python3
"""torch.distributed reference for the MoE probe (moe_vs_torch.sh).

What frameworks do without DeepEP: torch.distributed.all_to_all_single with
the same splits as FabricPulse's moe_dispatch (rank s sends rows[s][d] rows
of `hidden` elements to rank d) and moe_combine (the same backwards). The
splits come from `moe_splits` (the routing FabricPulse computes), one line
per source rank. One process per GPU, NCCL, nccl-tests' method: `warmup`
untimed ops, then `iters` ops between two CUDA events; the time is the
slowest rank's. Prints one JSON object per op on stdout.

A "# rows D_ELEMS D_DTYPE C_ELEMS C_DTYPE" line in the splits file (a
preset's, from moe_splits) sets the dispatch and combine rows apart (a
dispatch row may carry fp8 scales and a header). moe_combine_weighted: the
combine's all_to_all_single then the weighted sum of each token's rows
into a float32 output (index_add_), timed together, as FabricPulse's op.
"""
import argparse
import json
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from torch_reference import time_op

DTYPES = {"bfloat16": torch.bfloat16, "fp8_e4m3": torch.uint8}


def worker(rank, n, args, rows, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=dev)
    to = [rows[rank][d] for d in range(n)]      # dispatch: rows I send to d
    frm = [rows[s][rank] for s in range(n)]     # rows I receive from s
    shapes = {"moe_dispatch": (args.dispatch_elements, args.dtype),
              "moe_combine": (args.combine_elements, args.combine_dtype),
              "moe_combine_weighted": (args.combine_elements,
                                       args.combine_dtype)}
    for op, send, recv in (("moe_dispatch", to, frm),
                           ("moe_combine", frm, to),
                           ("moe_combine_weighted", frm, to)):
        elements, dtype = shapes[op][0], DTYPES[shapes[op][1]]
        x = torch.ones(sum(send), elements, device=dev, dtype=dtype)
        y = torch.empty(sum(recv), elements, device=dev, dtype=dtype)
        if op == "moe_combine_weighted":
            token = torch.randint(0, args.tokens, (sum(recv),), device=dev)
            w = torch.rand(sum(recv), 1, device=dev)
            out = torch.empty(args.tokens, elements, device=dev,
                              dtype=torch.float32)

            def run():
                dist.all_to_all_single(y, x, recv, send)
                out.zero_()
                out.index_add_(0, token, y.float() * w)
        else:
            def run():
                dist.all_to_all_single(y, x, recv, send)
        t = time_op(run, dev, args.warmup, args.iters)
        if rank == 0:
            print(json.dumps({"op": op, "time_us": t * 1e6,
                              "rows": sum(sum(r) for r in rows)}), flush=True)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--splits", required=True)
    p.add_argument("--hidden", type=int, default=7168)
    p.add_argument("--dtype", default="bfloat16", choices=sorted(DTYPES))
    p.add_argument("--tokens", type=int, default=4096)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=50)
    args = p.parse_args()
    args.dispatch_elements = args.combine_elements = args.hidden
    args.combine_dtype = args.dtype
    rows = []
    with open(args.splits) as f:
        for line in f:
            if line.startswith("# rows "):
                _, _, de, dd, ce, cd = line.split()
                args.dispatch_elements, args.dtype = int(de), dd
                args.combine_elements, args.combine_dtype = int(ce), cd
            elif line.strip():
                rows.append([int(v) for v in line.split()])
    n = len(rows)
    mp.spawn(worker, args=(n, args, rows, free_port()), nprocs=n)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""torch.distributed reference for the MoE probe (moe_vs_torch.sh).

What frameworks do without DeepEP: torch.distributed.all_to_all_single with
the same splits as FabricPulse's moe_dispatch (rank s sends rows[s][d] rows
of `hidden` elements to rank d) and moe_combine (the same backwards). The
splits come from `moe_splits` (the routing FabricPulse computes), one line
per source rank. One process per GPU, NCCL, nccl-tests' method: `warmup`
untimed ops, then `iters` ops between two CUDA events; the time is the
slowest rank's. Prints one JSON object per op on stdout.
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
    dtype = DTYPES[args.dtype]
    to = [rows[rank][d] for d in range(n)]      # dispatch: rows I send to d
    frm = [rows[s][rank] for s in range(n)]     # rows I receive from s
    for op, send, recv in (("moe_dispatch", to, frm),
                           ("moe_combine", frm, to)):
        x = torch.ones(sum(send), args.hidden, device=dev, dtype=dtype)
        y = torch.empty(sum(recv), args.hidden, device=dev, dtype=dtype)
        t = time_op(lambda: dist.all_to_all_single(y, x, recv, send), dev,
                    args.warmup, args.iters)
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
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=50)
    args = p.parse_args()
    with open(args.splits) as f:
        rows = [[int(v) for v in line.split()] for line in f if line.strip()]
    n = len(rows)
    mp.spawn(worker, args=(n, args, rows, free_port()), nprocs=n)


if __name__ == "__main__":
    main()

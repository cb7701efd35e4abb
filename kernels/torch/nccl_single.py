# SPDX-License-Identifier: MIT
"""nccl_single: training steps with torch.distributed's NCCL backend, world size 1.

    python3 kernels/torch/nccl_single.py [eager|graph] [ITERS]      (default eager 200)

Initialises torch.distributed with the "nccl" backend, rank 0 of a world of
1 (MASTER_ADDR=127.0.0.1, a free MASTER_PORT), then runs ITERS steps of a
small MLP (3 Linear layers of width 128, batch 16, MSE loss, SGD): forward,
backward, an all_reduce (sum) of every gradient, divided by the world size,
the update, and loss.item().  NCCL launches its kernels through the driver
API.  graph: no hand-written graph version ("median_us na").  Prints
"median_us X" and "checksum HEX" of every step's loss and the final
weights; exits 77 without torch, a CUDA device or NCCL.
"""
import os
import socket
import sys

from bench_common import deterministic, linear_stack, report, start, timed_training

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, LAYERS, BATCH, WARM = 128, 3, 16, 20


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    started = start("nccl_single", has_graph=False)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_nccl_available():
        print("nccl_single: torch.distributed has no NCCL backend; skipping", file=sys.stderr)
        return 77
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), RANK="0", WORLD_SIZE="1",
                      LOCAL_RANK="0")
    os.environ.setdefault("NCCL_DEBUG", "WARN")
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=dev)
    version = torch.cuda.nccl.version()
    version = ".".join(map(str, version)) if isinstance(version, tuple) else str(version)
    print(f"nccl_single: torch {torch.__version__}, NCCL {version}", file=sys.stderr)
    try:
        deterministic(torch)
        model = linear_stack(torch, WIDTH, LAYERS, dev)
        opt = torch.optim.SGD(model.parameters(), lr=1e-2)
        data = torch.randn(8, BATCH, WIDTH, device=dev)
        target = torch.randn(8, BATCH, WIDTH, device=dev)
        world = dist.get_world_size()

        def step(it):
            opt.zero_grad(set_to_none=False)
            loss = torch.nn.functional.mse_loss(model(data[it % 8]), target[it % 8])
            loss.backward()
            for p in model.parameters():
                dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
                p.grad.div_(world)
            opt.step()
            return loss
        times, losses = timed_training(torch, WARM + iters, step, model)
    finally:
        dist.destroy_process_group()
    report(mode, iters, WARM, times, losses)
    return 0


if __name__ == "__main__":
    sys.exit(main())

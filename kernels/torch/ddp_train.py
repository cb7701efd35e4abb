# SPDX-License-Identifier: MIT
"""ddp_train: DistributedDataParallel training of a small MLP, one process per rank.

    torchrun --standalone --nproc-per-node=N kernels/torch/ddp_train.py [ITERS] [OUTDIR]

Each rank trains the same MLP (4 Linear layers of width 256, batch 32, MSE
loss, SGD) wrapped in DistributedDataParallel for ITERS steps (default 200)
on its own data: forward, backward (DDP all-reduces the gradients), the
update and loss.item().  The rank's GPU is LOCAL_RANK modulo the GPUs
there are.  The backend is DDP_BACKEND (nccl or gloo); by default nccl when
every rank has a GPU of its own, else gloo (NCCL refuses two ranks on one
GPU).  DDP_SKEW=1 gives rank 1 an extra small operation every third step:
a rank-dependent branch, whose regions differ from the other ranks'.

Each rank writes OUTDIR/rank<R>.out (default: the current directory):
"backend B world W", "median_us X" (median step time after 20 warm-up
steps) and "checksum HEX" (SHA-256 of every step's loss and the final
weights).  Exits 77 without torch, a CUDA device or torch.distributed.
"""
import os
import sys

from bench_common import deterministic, linear_stack, timed_training

WIDTH, LAYERS, BATCH, WARM = 256, 4, 32, 20


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    outdir = sys.argv[2] if len(sys.argv) > 2 else "."
    try:
        import torch
        import torch.distributed as dist
    except ImportError as err:
        print(f"ddp_train: no torch ({err}); skipping", file=sys.stderr)
        return 77
    if not torch.cuda.is_available() or not dist.is_available():
        print("ddp_train: no CUDA device or no torch.distributed; skipping", file=sys.stderr)
        return 77
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    gpus = torch.cuda.device_count()
    backend = os.environ.get("DDP_BACKEND") or ("nccl" if world <= gpus and dist.is_nccl_available() else "gloo")
    dev = torch.device("cuda", local % gpus)
    torch.cuda.set_device(dev)
    dist.init_process_group(backend, rank=rank, world_size=world)
    try:
        deterministic(torch)
        model = linear_stack(torch, WIDTH, LAYERS, dev)
        ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index])
        opt = torch.optim.SGD(ddp.parameters(), lr=1e-2)
        data_gen = torch.Generator(device=dev).manual_seed(1 + rank)
        data = torch.randn(8, BATCH, WIDTH, device=dev, generator=data_gen)
        target = torch.randn(8, BATCH, WIDTH, device=dev, generator=data_gen)
        skew = os.environ.get("DDP_SKEW") == "1" and rank == 1

        def step(it):
            x = data[it % 8]
            if skew and it % 3 == 0:
                x = x * 1.0  # an extra kernel on this rank only
            opt.zero_grad(set_to_none=False)
            loss = torch.nn.functional.mse_loss(ddp(x), target[it % 8])
            loss.backward()
            opt.step()
            return loss
        times, digest = timed_training(torch, WARM + iters, step, model)
    finally:
        dist.destroy_process_group()
    times = sorted(times[WARM:])
    with open(os.path.join(outdir, f"rank{rank}.out"), "w") as f:
        f.write(f"backend {backend} world {world}\n")
        f.write(f"median_us {times[len(times) // 2]:.3f}\n")
        f.write(f"checksum {digest.hexdigest()[:16]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

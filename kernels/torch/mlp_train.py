# SPDX-License-Identifier: MIT
"""mlp_train: training steps of a small MLP with a fused Adam, one sync a step.

    python3 kernels/torch/mlp_train.py [eager|graph] [ITERS]      (default eager 200)

A 4-layer MLP of width 256, batch 32, MSE loss, torch.optim.Adam(fused=True);
each step ends with `loss.item()`.  graph: no hand-written graph version
(prints "median_us na").  Prints "median_us X" and "checksum HEX" of every
step's loss and the final weights; exits 77 without torch or a CUDA device.
TRAIN_STREAM=side runs the steps on a created stream (autograd's backward
follows it), as the robust path, which captures no default stream, needs.
"""
import os
import sys

from bench_common import deterministic, linear_stack, report, start, timed_training

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, LAYERS, BATCH, WARM = 256, 4, 32, 20


def main():
    started = start("mlp_train", has_graph=False)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    deterministic(torch)
    dev = torch.device("cuda")
    model = linear_stack(torch, WIDTH, LAYERS, dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    data = torch.randn(8, BATCH, WIDTH, device=dev)
    target = torch.randn(8, BATCH, WIDTH, device=dev)

    def step(it):
        opt.zero_grad(set_to_none=False)
        loss = torch.nn.functional.mse_loss(model(data[it % 8]), target[it % 8])
        loss.backward()
        opt.step()
        return loss
    if os.environ.get("TRAIN_STREAM") == "side":
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            times, losses = timed_training(torch, WARM + iters, step, model)
    else:
        times, losses = timed_training(torch, WARM + iters, step, model)
    report(mode, iters, WARM, times, losses)
    return 0


if __name__ == "__main__":
    sys.exit(main())

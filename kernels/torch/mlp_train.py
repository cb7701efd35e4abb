"""mlp_train: training steps of a small MLP with a fused Adam, one sync a step.

    python3 kernels/torch/mlp_train.py [eager|graph] [ITERS]      (default eager 200)

A 4-layer MLP of width 256, batch 32, MSE loss, torch.optim.Adam(fused=True);
each step ends with `loss.item()`.  graph: no hand-written graph version
(prints "median_us na").  Prints "median_us X" and "checksum HEX" of every
step's loss and the final weights; exits 77 without torch or a CUDA device.
"""
import hashlib
import os
import sys
import time

from bench_common import report, start

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, LAYERS, BATCH, WARM = 256, 4, 32, 20


def main():
    started = start("mlp_train", has_graph=False)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    layers = []
    for i in range(LAYERS):
        layers.append(torch.nn.Linear(WIDTH, WIDTH))
        if i < LAYERS - 1:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    data = torch.randn(8, BATCH, WIDTH, device=dev)
    target = torch.randn(8, BATCH, WIDTH, device=dev)
    losses = hashlib.sha256()
    times = []
    torch.cuda.synchronize()
    for it in range(WARM + iters):
        t0 = time.perf_counter()
        x, y = data[it % 8], target[it % 8]
        opt.zero_grad(set_to_none=False)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        v = loss.item()
        times.append((time.perf_counter() - t0) * 1e6)
        losses.update(repr(v).encode())
    for p in model.parameters():
        losses.update(p.detach().cpu().numpy().tobytes())
    report(mode, iters, WARM, times, losses)
    return 0


if __name__ == "__main__":
    sys.exit(main())

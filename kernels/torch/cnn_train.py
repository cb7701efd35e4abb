# SPDX-License-Identifier: MIT
"""cnn_train: training steps of a small convolutional network with a fused AdamW, one sync a step.

    python3 kernels/torch/cnn_train.py [eager|graph] [ITERS]      (default eager 200)

Two 3x3 convolutions (3 -> 16 -> 32 channels, ReLU, the second with stride 2)
and a Linear classifier over 16x16 images, batch 16, cross-entropy loss,
torch.optim.AdamW(fused=True); autograd runs the backward pass on its own
device thread, as in any PyTorch training step.  Each step ends with
`loss.item()`.  cuDNN is asked for deterministic algorithms.  graph: no
hand-written graph version (prints "median_us na").  Prints "median_us X"
and "checksum HEX" of every step's loss and the final weights; exits 77
without torch or a CUDA device.
"""
import os
import sys

from bench_common import deterministic, report, start, timed_training

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
BATCH, SIDE, CLASSES, WARM = 16, 16, 10, 20


def main():
    started = start("cnn_train", has_graph=False)
    if not isinstance(started, tuple):
        return started
    mode, iters, torch = started
    deterministic(torch)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2, padding=1),
                          nn.ReLU(), nn.Flatten(), nn.Linear(32 * (SIDE // 2) ** 2, CLASSES)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    data = torch.randn(8, BATCH, 3, SIDE, SIDE, device=dev)
    labels = torch.randint(0, CLASSES, (8, BATCH), device=dev)

    def step(it):
        opt.zero_grad(set_to_none=False)
        loss = nn.functional.cross_entropy(model(data[it % 8]), labels[it % 8])
        loss.backward()
        opt.step()
        return loss
    times, losses = timed_training(torch, WARM + iters, step, model)
    report(mode, iters, WARM, times, losses)
    return 0


if __name__ == "__main__":
    sys.exit(main())

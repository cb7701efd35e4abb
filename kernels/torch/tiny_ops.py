# SPDX-License-Identifier: MIT
"""tiny_ops: an unmodified eager PyTorch program made of tiny kernels.

Each of ITERS iterations runs a chain of OPS tiny elementwise operations on a
small CUDA tensor (integer ones, whose results are exact, and a few float
ones, which run the same kernels on the same data every time) and ends with
`.item()`, a host synchronisation, as an eager training or decoding loop
does.  Prints checksums of every result, so that runs with and without the
reprise shim can be compared byte for byte; exits 77 when there is no CUDA
GPU.  Run:  python3 kernels/torch/tiny_ops.py
"""
import hashlib
import sys

ITERS = 50
N = 4096
INT_ROUNDS = 20  # 4 integer ops each
FLOAT_ROUNDS = 5  # 4 float ops each
OPS = 4 * INT_ROUNDS + 4 * FLOAT_ROUNDS


def tensor_digest(t):
    """SHA-256 (first 16 hex digits) of a tensor's bytes."""
    return hashlib.sha256(t.detach().contiguous().cpu().numpy().tobytes()).hexdigest()[:16]


def chain(torch, base, base_f, x_step, y_step):
    """One iteration's ops: the integer chain from base + x_step, the float one from base_f + y_step; returns (x, y, total)."""
    x = base + x_step
    y = base_f + y_step
    for k in range(INT_ROUNDS):
        x = x * 31
        x = x + k
        x = x % 1000003
        x = x ^ 0x5A5A
    for _ in range(FLOAT_ROUNDS):
        y = y * 1.5
        y = y - 0.25
        y = torch.sin(y)
        y = torch.abs(y)
    total = (x.sum() + (y > 0.5).sum()).item()
    return x, y, total


def main():
    try:
        import torch
    except ImportError as err:
        print(f"tiny_ops: no torch ({err}); skipping", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("tiny_ops: torch sees no CUDA device; skipping", file=sys.stderr)
        return 77
    print(f"tiny_ops: torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"{torch.cuda.get_device_name(0)}", file=sys.stderr)
    torch.use_deterministic_algorithms(True)
    dev = torch.device("cuda")

    base = torch.arange(N, dtype=torch.int64, device=dev)
    base_f = (base % 1000).to(torch.float32) / 1024.0
    items = hashlib.sha256()
    for it in range(ITERS):
        x, y, total = chain(torch, base, base_f, it, float(it))
        items.update(f"{it}:{total};".encode())
        if it == 0 or it == ITERS - 1:
            print(f"item {it} {total}")

    print(f"iterations {ITERS}, ops per iteration {OPS}")
    print(f"checksum items {items.hexdigest()[:16]}")
    print(f"checksum x {tensor_digest(x)}")
    print(f"checksum y {tensor_digest(y)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: MIT
"""What the timed PyTorch workloads share: arguments, the torch check, the report.

Each workload is run as `python3 kernels/torch/NAME.py [eager|graph] [ITERS]`
by tools/dev/bench-suite; this module sits beside them, so plain imports find it.
"""
import sys


def parse_mode(name, has_graph, default_iters=200):
    """(mode, iters) from argv, or an exit status to return at once."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "eager"
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else default_iters
    if mode == "graph" and not has_graph:
        print("mode graph: not applicable\nmedian_us na\nchecksum na")
        return 0
    if mode not in ("eager", "graph"):
        print(f"usage: {name}.py [eager|graph] [ITERS]", file=sys.stderr)
        return 1
    return mode, iters


def import_torch(name):
    """The torch module if it sees a CUDA device, else None (after saying why)."""
    try:
        import torch
    except ImportError as err:
        print(f"{name}: no torch ({err}); skipping", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{name}: torch sees no CUDA device; skipping", file=sys.stderr)
        return None
    return torch


# This process's host speed (host_calibration_us), measured at start and printed by report.
_host_calibration_us = None


def host_calibration_us(rounds=5, n=100000):
    """The fastest of rounds timings of a fixed pure-Python loop, in us: which of the GPU machine's host speeds
    this process runs at (it varies between processes), for tools/dev/bench-suite to record beside the figures."""
    import time
    best = None
    for _ in range(rounds):
        t0 = time.perf_counter()
        acc = 0
        for i in range(n):
            acc = (acc + i * i) & 0xFFFF
        took = (time.perf_counter() - t0) * 1e6
        best = took if best is None or took < best else best
    return best


def start(name, has_graph, default_iters=200):
    """(mode, iters, torch) for a workload, or an exit status to return at once (77: no usable torch)."""
    global _host_calibration_us
    parsed = parse_mode(name, has_graph, default_iters)
    if not isinstance(parsed, tuple):
        return parsed
    torch = import_torch(name)
    if torch is None:
        return 77
    _host_calibration_us = host_calibration_us()
    return parsed + (torch,)


def mlp(torch, width, layers):
    """A deterministic Linear(width)+ReLU stack on the GPU (seed 0, no TF32), in eval mode."""
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False
    stack = []
    for _ in range(layers):
        stack += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*stack).to(torch.device("cuda")).eval()


def deterministic(torch):
    """Seed 0, deterministic algorithms, no TF32: the same results in every run, with or without the shim."""
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False


def linear_stack(torch, width, layers, device):
    """layers Linear(width, width), a ReLU between each two, on device (for training)."""
    stack = []
    for i in range(layers):
        stack.append(torch.nn.Linear(width, width))
        if i < layers - 1:
            stack.append(torch.nn.ReLU())
    return torch.nn.Sequential(*stack).to(device)


def timed_steps(torch, steps, step, digest):
    """Runs step(i) for i in range(steps), each returning its loss, read with .item(); returns the step times
    (us) and adds every loss to digest."""
    import time
    times = []
    torch.cuda.synchronize()
    for i in range(steps):
        t0 = time.perf_counter()
        v = step(i).item()
        times.append((time.perf_counter() - t0) * 1e6)
        digest.update(repr(v).encode())
    return times


def timed_training(torch, steps, step, model):
    """Runs the training steps (timed_steps), then digests the model's final weights: (step times, SHA-256)."""
    import hashlib
    digest = hashlib.sha256()
    times = timed_steps(torch, steps, step, digest)
    for p in model.parameters():
        digest.update(p.detach().cpu().numpy().tobytes())
    return times, digest


def report(mode, iters, warm, times, digest):
    """Prints the median iteration time after warm-up and the checksum, as tools/dev/bench-suite reads them."""
    times = sorted(times[warm:])
    print(f"mode {mode} iters {iters} warmup {warm}")
    print(f"median_us {times[len(times) // 2]:.3f}")
    print(f"checksum {digest.hexdigest()[:16]}")
    if _host_calibration_us is not None:
        print(f"host_calib_us {_host_calibration_us:.1f}")

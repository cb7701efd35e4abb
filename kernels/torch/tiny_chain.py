"""tiny_chain: tiny_ops.py's chain of tiny elementwise ops, timed.

    python3 kernels/torch/tiny_chain.py [eager|graph] [ITERS]     (default eager 200)

Each iteration runs tiny_ops.py's chain (80 integer ops and 20 float ops on
4096 elements) and ends with `.item()`.  graph: no hand-written graph
version (prints "median_us na").  Prints "median_us X" (median per
iteration after warm-up) and "checksum HEX" of every item and the final
tensors; exits 77 without torch or a CUDA device.
"""
import hashlib
import sys
import time

N, INT_ROUNDS, FLOAT_ROUNDS, WARM = 4096, 20, 5, 20


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "eager"
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    if mode == "graph":
        print("mode graph: not applicable\nmedian_us na\nchecksum na")
        return 0
    if mode != "eager":
        print("usage: tiny_chain.py [eager|graph] [ITERS]", file=sys.stderr)
        return 1
    try:
        import torch
    except ImportError as err:
        print(f"tiny_chain: no torch ({err}); skipping", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("tiny_chain: torch sees no CUDA device; skipping", file=sys.stderr)
        return 77
    torch.use_deterministic_algorithms(True)
    dev = torch.device("cuda")
    base = torch.arange(N, dtype=torch.int64, device=dev)
    base_f = (base % 1000).to(torch.float32) / 1024.0
    items = hashlib.sha256()
    times = []
    torch.cuda.synchronize()
    for it in range(WARM + iters):
        t0 = time.perf_counter()
        x = base + it
        y = base_f + float(it % 64)
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
        times.append((time.perf_counter() - t0) * 1e6)
        items.update(f"{it}:{total};".encode())
    items.update(x.cpu().numpy().tobytes())
    items.update(y.cpu().numpy().tobytes())
    times = sorted(times[WARM:])
    print(f"mode {mode} iters {iters} warmup {WARM}")
    print(f"median_us {times[len(times) // 2]:.3f}")
    print(f"checksum {items.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

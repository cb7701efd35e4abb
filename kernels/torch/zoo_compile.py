# SPDX-License-Identifier: MIT
"""zoo_compile: torch.compile of a small transformer, inference steps, one host read each.

    python3 kernels/torch/zoo_compile.py [default|reduce-overhead] [STEPS]      (default: default 40)

Two pre-norm transformer blocks (width 256, 4 heads, causal
scaled_dot_product_attention, a GELU MLP of width 1024), float32 without
TF32, seeded, in eval mode, compiled with torch.compile (mode None, i.e.
Inductor's default, or mode="reduce-overhead": Inductor's kernels replayed
through CUDA graphs of PyTorch's own, its cudagraph trees).  Each step runs
the compiled model on a batch of 4 x 64 tokens, reads the output's sum back
(.item()), and feeds tanh(output) to the next step.  A member of the zoo
(tests/gpu/zoo.sh).

stdout: every 10th step's sum (repr) and a checksum (SHA-256 of every sum
and the final activations' bytes): byte-comparable with and without the
shim (the zoo gives every run of a member one Inductor cache, so runs after
the first load the first one's kernels and autotuning choices).  stderr:
versions, how many graphs Dynamo compiled, and "median_us X" (the median
step after 10 warm-up steps, which compile and record).  Exit status: 0; 1
a wrong result; 77 without torch or a CUDA device.
"""
import hashlib
import os
import sys
import time

from bench_common import import_torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, HEADS, HIDDEN, BLOCKS, BATCH, TOKENS, WARM = 256, 4, 1024, 2, 4, 64, 10


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "default"
    if mode not in ("default", "reduce-overhead"):
        print("usage: zoo_compile.py [default|reduce-overhead] [STEPS]", file=sys.stderr)
        return 1
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    torch = import_torch("zoo_compile")
    if torch is None:
        return 77
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
            self.qkv, self.proj = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
            self.fc1, self.fc2 = nn.Linear(WIDTH, HIDDEN), nn.Linear(HIDDEN, WIDTH)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q, k, v = (z.reshape(b, t, HEADS, d // HEADS).transpose(1, 2) for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    dev = torch.device("cuda")
    model = nn.Sequential(*[Block() for _ in range(BLOCKS)]).to(dev).eval()
    compiled = torch.compile(model, mode=None if mode == "default" else "reduce-overhead")
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, TOKENS, WIDTH, generator=gen).to(dev)
    print(f"zoo-note: torch {torch.__version__}, {torch.cuda.get_device_name(0)}, mode {mode}", file=sys.stderr)

    digest = hashlib.sha256()
    times = []
    with torch.no_grad():
        for step in range(steps):
            t0 = time.perf_counter()
            if mode == "reduce-overhead":
                torch.compiler.cudagraph_mark_step_begin()
            y = compiled(x)
            s = y.sum().item()
            x = torch.tanh(y)  # a new tensor of the caching allocator: never a cudagraph output reused
            times.append((time.perf_counter() - t0) * 1e6)
            digest.update(repr(s).encode())
            if step % 10 == 9:
                print(f"step {step} sum {s!r}")
        final = x.float().cpu()
    digest.update(final.numpy().tobytes())
    if not bool(torch.isfinite(final).all()):
        print("verify finite FAILED")
        return 1
    print("verify finite ok")
    print(f"checksum {digest.hexdigest()[:16]}")
    try:
        from torch._dynamo.utils import counters
        graphs = counters["stats"]["unique_graphs"]
    except Exception:  # a torch without these counters: not needed for the result
        graphs = "?"
    print(f"zoo-note: Dynamo graphs compiled: {graphs}", file=sys.stderr)
    steady = sorted(times[WARM:] if len(times) > WARM else times)
    print(f"median_us {steady[len(steady) // 2]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

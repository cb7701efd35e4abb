"""side_stream: an eager MLP on a stream of its own, with cuBLAS GEMMs inside each iteration.

    python3 kernels/torch/side_stream.py [ITERS]      (default 120)

PyTorch runs on the legacy default stream unless told otherwise; this
script, like programs that overlap work, runs everything on a
torch.cuda.Stream() (created non-blocking).  Each iteration copies a new
input in, runs a 4-layer MLP of width 256 (Linear + ReLU: cuBLAS launches
through the driver API, PyTorch's own kernels through the runtime) and ends
with `.item()`.  The stretch between two `.item()` calls is the region
reprise can graph only on its robust path (re-captured each time, so that
the GEMMs it cannot hold back land in the capture).  Prints a checksum of
every iteration's item and of the final output; exits 77 without torch or
a CUDA device.
"""
import hashlib
import os
import sys

from bench_common import import_torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
WIDTH, LAYERS = 256, 4


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    torch = import_torch("side_stream")
    if torch is None:
        return 77
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    layers = []
    for _ in range(LAYERS):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(dev).eval()
    inputs = torch.randn(iters, 8, WIDTH, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    items = hashlib.sha256()
    with torch.inference_mode(), torch.cuda.stream(side):
        x = torch.empty(8, WIDTH, device=dev)
        for i in range(iters):
            x.copy_(inputs[i])
            out = model(x * 0.5 + 0.25)
            items.update(repr(out.sum().item()).encode())
        final = out.float().cpu().numpy().tobytes()
    print(f"iterations {iters}")
    print(f"checksum items {items.hexdigest()[:16]}")
    print(f"checksum output {hashlib.sha256(final).hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

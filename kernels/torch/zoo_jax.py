# SPDX-License-Identifier: MIT
"""zoo_jax: JAX on the GPU, op by op (eager) and jitted: 60 jnp operations an iteration.

    python3 kernels/torch/zoo_jax.py [eager|jit] [ITERS]      (default: eager 50, jit 200)

A 64x64 float32 array (4096 elements) goes through one step per iteration:
six blocks of ten jnp operations (multiply, add, sin, roll, add, tanh, a
mean, subtract, a 64x64 matmul, clip), each block with its own constants;
then one element is read back to the host (float(), a copy and a sync).
eager: the step's 60 operations are called one by one from Python, un-jitted
(JAX dispatches each as its own small XLA executable); jit: the same step
under jax.jit (XLA fuses it into a few kernels and may run them as command
buffers, CUDA graphs of its own).  A member of the zoo (tests/gpu/zoo.sh).

XLA_FLAGS gets --xla_gpu_deterministic_ops=true (without it XLA's autotuner
makes two plain runs differ) and XLA_PYTHON_CLIENT_PREALLOCATE=false (JAX
does not take 75% of the GPU), unless already set.  stdout: the backend,
every 10th iteration's value (repr) and a checksum (SHA-256 of every value
read and of the final array's bytes): byte-comparable with and without the
shim.  stderr: versions and "median_us X", the median iteration time after
5 warm-up iterations.  Exit status: 0; 1 a wrong result; 77 without JAX or
without its GPU backend.
"""
import hashlib
import os
import sys
import time

WARM = 5
BLOCKS = 6  # of ten operations each: 60


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "eager"
    if mode not in ("eager", "jit"):
        print("usage: zoo_jax.py [eager|jit] [ITERS]", file=sys.stderr)
        return 1
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else (50 if mode == "eager" else 200)
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_gpu_deterministic_ops" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_gpu_deterministic_ops=true").strip()
    try:
        import numpy as np
        import jax
        import jax.numpy as jnp
    except ImportError as err:
        print(f"zoo_jax: no jax ({err}); skipping", file=sys.stderr)
        return 77
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as err:  # no GPU backend: the CUDA plugin missing, or no device
        print(f"zoo_jax: JAX has no GPU backend ({err}); skipping", file=sys.stderr)
        return 77
    if not gpus:
        print("zoo_jax: JAX sees no GPU; skipping", file=sys.stderr)
        return 77
    gpu = gpus[0]
    print(f"zoo-note: jax {jax.__version__}, {gpu.device_kind}, XLA_FLAGS={os.environ['XLA_FLAGS']}", file=sys.stderr)

    # Fixed inputs, computed on the host: x in [-0.5, 0.5), w a 64x64 matrix scaled to keep x bounded.
    i = np.arange(4096, dtype=np.int64)
    x_host = (((i * 2654435761) >> 7) % 1000).astype(np.float32).reshape(64, 64) / np.float32(1000.0) - np.float32(0.5)
    w_host = ((((i * 40503) >> 3) % 997).astype(np.float32).reshape(64, 64) / np.float32(997.0) - np.float32(0.5)) \
        * np.float32(0.25)
    x = jax.device_put(x_host, gpu)
    w = jax.device_put(w_host, gpu)

    def step(x, w):
        for b in range(BLOCKS):  # unrolled: ten operations a block, constants by block
            x = jnp.multiply(x, 0.75 + 0.0625 * b)
            x = jnp.add(x, 0.125 * (b + 1))
            x = jnp.sin(x)
            y = jnp.roll(x, b + 1, axis=1)
            x = jnp.add(x, y)
            x = jnp.tanh(x)
            m = jnp.mean(x)
            x = jnp.subtract(x, m)
            x = jnp.matmul(x, w)
            x = jnp.clip(x, -4.0, 4.0)
        return x

    run = jax.jit(step) if mode == "jit" else step
    digest = hashlib.sha256()
    times = []
    for it in range(iters):
        t0 = time.perf_counter()
        x = run(x, w)
        v = float(x[5, 7])  # one value back: a copy and a sync (a fixed index: one slice executable, compiled once)
        times.append((time.perf_counter() - t0) * 1e6)
        digest.update(repr(v).encode())
        if it % 10 == 9:
            print(f"iteration {it} value {v!r}")
    final = np.asarray(x)
    digest.update(final.tobytes())
    print(f"backend {gpu.platform} mode {mode} iters {iters} ops {10 * BLOCKS}")
    if not np.all(np.isfinite(final)):
        print("verify finite FAILED")
        return 1
    print("verify finite ok")
    print(f"checksum {digest.hexdigest()[:16]}")
    steady = sorted(times[WARM:] if len(times) > WARM else times)
    print(f"median_us {steady[len(steady) // 2]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

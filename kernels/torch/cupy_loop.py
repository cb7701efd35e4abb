# SPDX-License-Identifier: MIT
"""cupy_loop: a CuPy loop of tiny elementwise kernels, one host read per iteration.

    python3 kernels/torch/cupy_loop.py [eager|graph] [ITERS]      (default eager 200)

Each iteration runs 100 in-place elementwise kernels on a 4096-element
float32 array (x = x * a + b, with a and b alternating between two fixed
pairs), then x.sum() into a preallocated 0-d array and float() of it: a
device-to-host copy and a sync, as an iterative CuPy program does.  All on
one created non-blocking stream.  CuPy launches its kernels through the
driver API (cuLaunchKernel), which the shim sees only through its driver
front door.  graph: the iteration captured once with CuPy's own stream
capture (Stream.begin_capture / end_capture) and replayed with
graph.launch(); "median_us na" if this CuPy cannot capture.  Reductions
use CuPy's own kernel (CUPY_ACCELERATORS empty: no CUB, the same kernel in
both modes).  Prints "median_us X" and "checksum HEX" of every
iteration's sum and the final array; exits 77 without CuPy or a CUDA device.
"""
import hashlib
import os
import sys
import time

from bench_common import parse_mode, report

os.environ["CUPY_ACCELERATORS"] = ""  # before cupy is imported: plain CuPy reductions, capturable
N, OPS, WARM = 4096, 100, 20
# x = x * a + b: the two steps' product (0.9375) keeps x bounded.
STEPS = [(0.75, 0.25), (1.25, -0.3)]


def import_cupy():
    try:
        import cupy
    except ImportError as err:
        print(f"cupy_loop: no cupy ({err}); skipping", file=sys.stderr)
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as err:  # CUDARuntimeError without a driver or a device
        print(f"cupy_loop: CuPy sees no CUDA device ({err}); skipping", file=sys.stderr)
        return None
    return cupy


def main():
    parsed = parse_mode("cupy_loop", has_graph=True)
    if not isinstance(parsed, tuple):
        return parsed
    mode, iters = parsed
    cupy = import_cupy()
    if cupy is None:
        return 77
    print(f"cupy_loop: cupy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}", file=sys.stderr)
    if mode == "graph" and not hasattr(cupy.cuda.Stream, "begin_capture"):
        print("cupy_loop: this CuPy has no Stream.begin_capture", file=sys.stderr)
        print("mode graph: not applicable\nmedian_us na\nchecksum na")
        return 0
    f32 = cupy.float32
    axpb = cupy.ElementwiseKernel("float32 a, float32 b", "float32 x", "x = x * a + b", "reprise_axpb")
    steps = [(f32(a), f32(b)) for a, b in STEPS]
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        x = (cupy.arange(N, dtype=f32) % 1000) / f32(1024.0)
        total = cupy.zeros((), dtype=f32)

        def body():
            for j in range(OPS):
                a, b = steps[j % 2]
                axpb(a, b, x)
            x.sum(out=total)

        body()  # compiles and loads the kernels before any capture
        stream.synchronize()
        x[...] = (cupy.arange(N, dtype=f32) % 1000) / f32(1024.0)
        stream.synchronize()
        graph = None
        if mode == "graph":
            try:
                stream.begin_capture()
                body()
                graph = stream.end_capture()
            except Exception as err:  # a CuPy or driver that cannot capture this: no hand-written graph
                print(f"cupy_loop: stream capture failed: {err!r}", file=sys.stderr)
                print("mode graph: not applicable\nmedian_us na\nchecksum na")
                return 0
        sums = hashlib.sha256()
        times = []
        for _ in range(WARM + iters):
            t0 = time.perf_counter()
            if graph is not None:
                graph.launch(stream)
            else:
                body()
            v = float(total)  # copy on the current stream, then sync
            times.append((time.perf_counter() - t0) * 1e6)
            sums.update(repr(v).encode())
        sums.update(cupy.asnumpy(x, stream=stream).tobytes())
        stream.synchronize()
    report(mode, iters, WARM, times, sums)
    return 0


if __name__ == "__main__":
    sys.exit(main())

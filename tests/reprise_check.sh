#!/bin/sh
# SPDX-License-Identifier: MIT
# `reprise check`: a dynamically linked runtime (the stand-in), a statically
# linked one (a program defining the runtime's functions itself), no CUDA at
# all, a driver-API library, and bad input.
. "${top_srcdir:-.}/tests/lib.sh"
[ -x "$REPRISE" ] || { echo "no $REPRISE: build first" >&2; exit 99; }

# The stand-in runtime, linked dynamically: seen, with the hooked functions the program imports.
"$REPRISE" check "$TESTS_BIN/scenarios/launch_loop" > "$WORK/dyn" || fail "check of launch_loop exited $?"
expect_in "$WORK/dyn" "links the CUDA runtime dynamically: libcudart_standin.so"
expect_in "$WORK/dyn" "cudaLaunchKernel"
expect_in "$WORK/dyn" "the shim can see its work"
"$REPRISE" check --json "$TESTS_BIN/scenarios/launch_loop" > "$WORK/dyn.json" || fail "check --json exited $?"
expect_in "$WORK/dyn.json" '"runtime":"dynamic"'
expect_in "$WORK/dyn.json" '"shim_sees_work":true'
expect_in "$WORK/dyn.json" '"cudaStreamSynchronize"'

# A program that defines the runtime's functions itself: a static runtime.
cat > "$WORK/static.c" <<'C'
int cudaLaunchKernel(const void *f, int a, int b, void **args, unsigned long shm, void *s) { return 0; }
int __cudaRegisterFatBinary(void *p) { return 0; }
int main(void) { return cudaLaunchKernel(0, 1, 1, 0, 0, 0) + __cudaRegisterFatBinary(0); }
C
CC_=${CC:-cc}
if $CC_ -o "$WORK/static" "$WORK/static.c" 2> /dev/null; then
    "$REPRISE" check "$WORK/static" > "$WORK/static.out"; rc=$?
    [ "$rc" -eq 0 ] || fail "check of a static runtime exited $rc, expected 0 (the driver API is seen)"
    expect_in "$WORK/static.out" "links the CUDA runtime statically"
    expect_in "$WORK/static.out" "sees this program's work through the driver API"
    "$REPRISE" check --json "$WORK/static" > "$WORK/static.json"
    expect_in "$WORK/static.json" '"runtime":"static"'
    # reprise(1)'s EXIT STATUS says so too (it said 1, "no runtime, or a static one").
    { sed -n '/^\.SH EXIT STATUS/,/^\.SH EXAMPLES/p' "$top_srcdir/tools/reprise/reprise.1" | tr '\n' ' '; echo; } > "$WORK/exit-status"
    expect_in "$WORK/exit-status" "exits 0 when the shim can see the program's work: it links the CUDA runtime dynamically, or statically"
    expect_not_in "$WORK/exit-status" "a static one"
else
    echo "no C compiler: the static case is not checked"
fi
# nvcc's default is the static runtime: checked when nvcc is there.
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
if [ -n "$NVCC" ] && printf '__global__ void k() {}\nint main() { k<<<1,1>>>(); return 0; }\n' > "$WORK/k.cu" &&
    "$NVCC" -o "$WORK/k" "$WORK/k.cu" 2> /dev/null; then
    "$REPRISE" check "$WORK/k" > "$WORK/k.out"
    expect_in "$WORK/k.out" "statically"
fi

# No CUDA at all.
ls_path=$(command -v ls)
"$REPRISE" check "$ls_path" > "$WORK/ls"; rc=$?
[ "$rc" -eq 1 ] || fail "check of ls exited $rc, expected 1"
expect_in "$WORK/ls" "does not link the CUDA runtime"
"$REPRISE" check --json ls > "$WORK/ls.json"
expect_in "$WORK/ls.json" '"runtime":"none"'
if command -v python3 > /dev/null 2>&1; then
    for f in "$WORK/dyn.json" "$WORK/static.json" "$WORK/ls.json"; do
        [ -f "$f" ] && { python3 -m json.tool "$f" > /dev/null || fail "$f is not JSON"; }
    done
fi

# A library that launches through the driver API, found through the loader's search path.
cublas_dir=
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$d/libcublas.so" ] && { cublas_dir=$d; break; }
done
if [ -n "$cublas_dir" ] && echo 'int main(void) { return 0; }' > "$WORK/blas.c" &&
    $CC_ -o "$WORK/blas" "$WORK/blas.c" -Wl,--no-as-needed -L"$cublas_dir" -lcublas 2> /dev/null; then
    LD_LIBRARY_PATH="$cublas_dir" "$REPRISE" check "$WORK/blas" > "$WORK/blas.out"
    expect_in "$WORK/blas.out" "libcublas.so"
    expect_in "$WORK/blas.out" "launches through the driver API"
fi

# A Python interpreter: PyTorch's CUDA library, found without importing torch, is examined in its
# place.  A fake torch package whose lib/libtorch_cuda.so needs a CUDA runtime and a driver-API library.
PY=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null || true)
if [ -n "$PY" ] && [ -x "$PY" ]; then
    mkdir -p "$WORK/site/torch/lib"
    : > "$WORK/site/torch/__init__.py"
    echo 'void cublasLtCreate(void) {}' > "$WORK/lt.c"
    echo 'void cudaLaunchKernel(void); void cublasLtCreate(void); void torch_cuda(void) { cudaLaunchKernel(); cublasLtCreate(); }' > "$WORK/tc.c"
    if $CC_ -shared -fPIC -o "$WORK/site/torch/lib/libcublasLt.so.13" -Wl,-soname,libcublasLt.so.13 "$WORK/lt.c" 2> /dev/null &&
        $CC_ -shared -fPIC -o "$WORK/site/torch/lib/libtorch_cuda.so" "$WORK/tc.c" \
            -L"$top_builddir/standin/.libs" -lcudart_standin "$WORK/site/torch/lib/libcublasLt.so.13" \
            -Wl,-rpath,"$top_builddir/standin/.libs" -Wl,-rpath,'$ORIGIN' 2> /dev/null; then
        PYTHONPATH="$WORK/site" "$REPRISE" check "$PY" > "$WORK/py.out" || true
        expect_in "$WORK/py.out" "PyTorch's CUDA library $WORK/site/torch/lib/libtorch_cuda.so"
        expect_in "$WORK/py.out" "links the CUDA runtime dynamically: libcudart_standin.so"
        expect_in "$WORK/py.out" "libcublasLt.so.13 launches through the driver API"
        expect_in "$WORK/py.out" "graphed with the program's own"
        # Without PyTorch: the interpreter alone, and a note that says so.
        "$REPRISE" check "$PY" > "$WORK/py-bare.out" || true
        expect_in "$WORK/py-bare.out" "no PyTorch was found for it"
    else
        fail "could not build the fake PyTorch libraries"
    fi
fi

# Bad input.
expect_error 2 check
expect_error 2 check --bogus ls
expect_error 2 check "$WORK/no-such-program"
expect_error 2 check no-such-program-anywhere-xyz
echo 'not a program' > "$WORK/text"; expect_error 2 check "$WORK/text"
finish

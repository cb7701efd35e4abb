# SPDX-License-Identifier: MIT
## GPU programs and GPU tests (issue 2's evidence on a real GPU).
##
## `make gpu-programs` builds the standalone CUDA programs of kernels/apps/
## into kernels/apps/NAME.gpu with nvcc, linked against the shared CUDA
## runtime (a preload can only interpose libcudart.so).  They are not part of
## `all` or `check`: a machine without nvcc builds and tests the rest as
## before, and tests/gpu/*.sh skip (77) when the programs or a GPU are missing.
## tools/dev/gpu-suite runs them on a GPU machine; docs/gpu-suite.md says how.

GPU_APP_FILES = \
	kernels/apps/common.h \
	kernels/apps/library_check.h \
	kernels/apps/lt_common.h \
	kernels/apps/launch_loop.cu \
	kernels/apps/launch_api.cu \
	kernels/apps/two_streams.cu \
	kernels/apps/bad_launch.cu \
	kernels/apps/overhead_loop.cu \
	kernels/apps/bench_loop.cu \
	kernels/apps/bench_suite.cu \
	kernels/apps/host_flag_wait.cu \
	kernels/apps/cg_blas.cu \
	kernels/apps/unhooked_calls.cu \
	kernels/apps/pcg_ilu.cu \
	kernels/apps/lt_gemm.cu \
	kernels/apps/train_lt.cu \
	kernels/apps/decode_loop.cu \
	kernels/apps/pdl_chain.cu \
	kernels/apps/pdl_edges.cu \
	kernels/apps/event_pool.cu \
	kernels/apps/own_graph_loop.cu
GPU_APPS = \
	kernels/apps/launch_loop.gpu \
	kernels/apps/launch_loop_ptds.gpu \
	kernels/apps/launch_api.gpu \
	kernels/apps/two_streams.gpu \
	kernels/apps/bad_launch.gpu \
	kernels/apps/overhead_loop.gpu \
	kernels/apps/bench_loop.gpu \
	kernels/apps/bench_suite.gpu \
	kernels/apps/host_flag_wait.gpu \
	kernels/apps/cg_blas.gpu \
	kernels/apps/unhooked_calls.gpu \
	kernels/apps/pcg_ilu.gpu \
	kernels/apps/lt_gemm.gpu \
	kernels/apps/train_lt.gpu \
	kernels/apps/decode_loop.gpu \
	kernels/apps/pdl_chain.gpu \
	kernels/apps/pdl_edges.gpu \
	kernels/apps/event_pool.gpu \
	kernels/apps/own_graph_loop.gpu

## The same programs built with nvcc's default, the *static* CUDA runtime
## (libcudart_static.a linked in: no libcudart.so is NEEDED), as most CUDA
## programs are: the shim sees their work only through libcuda's driver API
## (the driver front door).  Same options but the runtime; each link is
## followed by a check (readelf -d) that no libcudart.so is NEEDED.
## cg_blas.static is meaningful: libcublas.so.13 and libcusparse.so.12 carry
## their own static runtime and need no libcudart.so either.
GPU_STATIC_APPS = \
	kernels/apps/launch_loop.static \
	kernels/apps/launch_loop_ptds.static \
	kernels/apps/launch_api.static \
	kernels/apps/two_streams.static \
	kernels/apps/bad_launch.static \
	kernels/apps/overhead_loop.static \
	kernels/apps/bench_loop.static \
	kernels/apps/bench_suite.static \
	kernels/apps/host_flag_wait.static \
	kernels/apps/cg_blas.static \
	kernels/apps/pcg_ilu.static \
	kernels/apps/lt_gemm.static \
	kernels/apps/train_lt.static \
	kernels/apps/decode_loop.static \
	kernels/apps/pdl_chain.static \
	kernels/apps/pdl_edges.static \
	kernels/apps/event_pool.static \
	kernels/apps/own_graph_loop.static

## sm_90 machine code for the H100/H200 and compute_90 PTX for anything newer.
## The runtime is found through an rpath to the toolkit, or the usual search.
GPU_NVCC_OPTIONS = -cudart shared -O2 -arch=sm_90 \
	-gencode arch=compute_90,code=compute_90 \
	-Xcompiler -Wall -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64
NVCC_APP = $(NVCC) $(GPU_NVCC_OPTIONS) -I$(srcdir)/kernels/apps
GPU_NVCC_STATIC_OPTIONS = -cudart static -O2 -arch=sm_90 \
	-gencode arch=compute_90,code=compute_90 \
	-Xcompiler -Wall -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64
NVCC_STATIC_APP = $(NVCC) $(GPU_NVCC_STATIC_OPTIONS) -I$(srcdir)/kernels/apps
## After a static link: fails (and removes the program) if it NEEDS a libcudart.so.
static_runtime_check = { ! command -v readelf > /dev/null 2>&1 || \
	! readelf -d $@ | grep -q 'NEEDED.*libcudart'; } || \
	{ echo "$@ NEEDS a libcudart.so: not a static-runtime build" >&2; rm -f $@; exit 1; }
nvcc_verbose = $(nvcc_verbose_@AM_V@)
nvcc_verbose_ = $(nvcc_verbose_@AM_DEFAULT_V@)
nvcc_verbose_0 = @echo "  NVCC     $@";
nvcc_verbose_1 =

if HAVE_NVCC
gpu-programs: $(GPU_APPS) $(GPU_STATIC_APPS) kernels/probes/lt_pdl_probe

kernels/apps/launch_loop.gpu: $(srcdir)/kernels/apps/launch_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/launch_loop.cu
kernels/apps/launch_loop_ptds.gpu: $(srcdir)/kernels/apps/launch_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) --default-stream per-thread -o $@ $(srcdir)/kernels/apps/launch_loop.cu
kernels/apps/launch_api.gpu: $(srcdir)/kernels/apps/launch_api.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/launch_api.cu
kernels/apps/two_streams.gpu: $(srcdir)/kernels/apps/two_streams.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/two_streams.cu
kernels/apps/bad_launch.gpu: $(srcdir)/kernels/apps/bad_launch.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/bad_launch.cu
kernels/apps/overhead_loop.gpu: $(srcdir)/kernels/apps/overhead_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/overhead_loop.cu

kernels/apps/bench_loop.gpu: $(srcdir)/kernels/apps/bench_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/bench_loop.cu
kernels/apps/bench_suite.gpu: $(srcdir)/kernels/apps/bench_suite.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/bench_suite.cu

## Issue 12's two programs: the host spinning on mapped memory, and a CG solver on cuBLAS and cuSPARSE.
kernels/apps/host_flag_wait.gpu: $(srcdir)/kernels/apps/host_flag_wait.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/host_flag_wait.cu
kernels/apps/cg_blas.gpu: $(srcdir)/kernels/apps/cg_blas.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/library_check.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/cg_blas.cu -lcublas -lcusparse

## Runtime functions the shim does not hook, between a loop's launches.
kernels/apps/unhooked_calls.gpu: $(srcdir)/kernels/apps/unhooked_calls.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/unhooked_calls.cu

kernels/apps/launch_loop.static: $(srcdir)/kernels/apps/launch_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/launch_loop.cu && $(static_runtime_check)
kernels/apps/launch_loop_ptds.static: $(srcdir)/kernels/apps/launch_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) --default-stream per-thread -o $@ $(srcdir)/kernels/apps/launch_loop.cu && $(static_runtime_check)
kernels/apps/launch_api.static: $(srcdir)/kernels/apps/launch_api.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/launch_api.cu && $(static_runtime_check)
kernels/apps/two_streams.static: $(srcdir)/kernels/apps/two_streams.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/two_streams.cu && $(static_runtime_check)
kernels/apps/bad_launch.static: $(srcdir)/kernels/apps/bad_launch.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/bad_launch.cu && $(static_runtime_check)
kernels/apps/overhead_loop.static: $(srcdir)/kernels/apps/overhead_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/overhead_loop.cu && $(static_runtime_check)
kernels/apps/bench_loop.static: $(srcdir)/kernels/apps/bench_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/bench_loop.cu && $(static_runtime_check)
kernels/apps/bench_suite.static: $(srcdir)/kernels/apps/bench_suite.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/bench_suite.cu && $(static_runtime_check)
kernels/apps/host_flag_wait.static: $(srcdir)/kernels/apps/host_flag_wait.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/host_flag_wait.cu && $(static_runtime_check)
kernels/apps/cg_blas.static: $(srcdir)/kernels/apps/cg_blas.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/library_check.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/cg_blas.cu -lcublas -lcusparse && $(static_runtime_check)

## The zoo's own programs (tests/gpu/zoo.sh): a preconditioned CG on cuBLAS and cuSPARSE (ILU(0), SpSV, SpMV,
## cudaDeviceReset at the end) and a loop of cuBLASLt GEMMs; each built both ways, as cg_blas is.
kernels/apps/pcg_ilu.gpu: $(srcdir)/kernels/apps/pcg_ilu.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/library_check.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/pcg_ilu.cu -lcublas -lcusparse
kernels/apps/pcg_ilu.static: $(srcdir)/kernels/apps/pcg_ilu.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/library_check.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/pcg_ilu.cu -lcublas -lcusparse && $(static_runtime_check)
kernels/apps/lt_gemm.gpu: $(srcdir)/kernels/apps/lt_gemm.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/lt_common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/lt_gemm.cu -lcublasLt
kernels/apps/lt_gemm.static: $(srcdir)/kernels/apps/lt_gemm.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/lt_common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/lt_gemm.cu -lcublasLt && $(static_runtime_check)

## Issue 25's programs: a training step on cuBLASLt (its GEMMs launched by cuBLASLt through the driver API, with
## programmatic dependent launch on Hopper) and a decode loop whose grids and copy sizes grow every iteration.
kernels/apps/train_lt.gpu: $(srcdir)/kernels/apps/train_lt.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/lt_common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/train_lt.cu -lcublasLt
kernels/apps/train_lt.static: $(srcdir)/kernels/apps/train_lt.cu $(srcdir)/kernels/apps/common.h $(srcdir)/kernels/apps/lt_common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/train_lt.cu -lcublasLt && $(static_runtime_check)
kernels/apps/decode_loop.gpu: $(srcdir)/kernels/apps/decode_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/decode_loop.cu
kernels/apps/decode_loop.static: $(srcdir)/kernels/apps/decode_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/decode_loop.cu && $(static_runtime_check)
## Which cuBLASLt GEMMs launch with programmatic dependent launch (docs/measurements.md, session 13).
kernels/probes/lt_pdl_probe: $(srcdir)/kernels/probes/lt_pdl_probe.cu
	$(nvcc_verbose)$(MKDIR_P) kernels/probes && $(NVCC_APP) -o $@ $(srcdir)/kernels/probes/lt_pdl_probe.cu -lcublasLt
## Kernels of the program's own launched with programmatic dependent launch (cuBLASLt 13.0 launched none on the H200).
kernels/apps/pdl_chain.gpu: $(srcdir)/kernels/apps/pdl_chain.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/pdl_chain.cu
kernels/apps/pdl_chain.static: $(srcdir)/kernels/apps/pdl_chain.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/pdl_chain.cu && $(static_runtime_check)
## Programmatic edges where an edge too weak shows in the results (tests/gpu/pdl_edges.sh).
kernels/apps/pdl_edges.gpu: $(srcdir)/kernels/apps/pdl_edges.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/pdl_edges.cu
kernels/apps/pdl_edges.static: $(srcdir)/kernels/apps/pdl_edges.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/pdl_edges.cu && $(static_runtime_check)
## tools/dev/bench-zoo's two programs: an event from a pool of 8 recorded each iteration and waited on from a second
## stream (JAX's way of ordering buffers), and a program launching its own captured graph between eager kernels.
kernels/apps/event_pool.gpu: $(srcdir)/kernels/apps/event_pool.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/event_pool.cu
kernels/apps/event_pool.static: $(srcdir)/kernels/apps/event_pool.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/event_pool.cu && $(static_runtime_check)
kernels/apps/own_graph_loop.gpu: $(srcdir)/kernels/apps/own_graph_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_APP) -o $@ $(srcdir)/kernels/apps/own_graph_loop.cu
kernels/apps/own_graph_loop.static: $(srcdir)/kernels/apps/own_graph_loop.cu $(srcdir)/kernels/apps/common.h
	$(nvcc_verbose)$(MKDIR_P) kernels/apps && $(NVCC_STATIC_APP) -o $@ $(srcdir)/kernels/apps/own_graph_loop.cu && $(static_runtime_check)
else
gpu-programs:
	@echo "gpu-programs: nvcc was not found by configure (pass --with-cuda=PATH)" >&2; exit 1
endif
.PHONY: gpu-programs
CLEANFILES += $(GPU_APPS) $(GPU_STATIC_APPS) kernels/probes/lt_pdl_probe

## The GPU tests: they skip (77) without the programs above or without a GPU.
TESTS += tests/gpu/passthrough.sh tests/gpu/torch.sh tests/gpu/torch_robust.sh tests/gpu/auto_scenarios.sh \
	tests/gpu/library_and_flag.sh tests/gpu/driver_door.sh tests/gpu/libraries.sh tests/gpu/torchrun.sh \
	tests/gpu/training.sh tests/gpu/unhooked_calls.sh tests/gpu/zoo.sh tests/gpu/issue25.sh tests/gpu/pdl_edges.sh

EXTRA_DIST += $(GPU_APP_FILES) kernels/probes/lt_pdl_probe.cu kernels/torch/tiny_ops.py \
	tests/gpu/passthrough.sh tests/gpu/torch.sh tests/gpu/torch_robust.sh tests/gpu/auto_scenarios.sh \
	tests/gpu/library_and_flag.sh tests/gpu/driver_door.sh tests/gpu/libraries.sh tests/gpu/torchrun.sh \
	tests/gpu/training.sh tests/gpu/unhooked_calls.sh tests/gpu/zoo.sh \
	kernels/torch/mlp_infer.py kernels/torch/mlp_train.py \
	kernels/torch/tiny_chain.py kernels/torch/bench_common.py kernels/torch/side_stream.py docs/bench/README.md \
	kernels/torch/cupy_loop.py kernels/torch/triton_loop.py kernels/torch/nccl_single.py \
	kernels/torch/ddp_train.py kernels/torch/cnn_train.py kernels/torch/zoo_generate.py \
	kernels/torch/zoo_compile.py kernels/torch/zoo_jax.py tests/gpu/issue25.sh tests/gpu/pdl_edges.sh

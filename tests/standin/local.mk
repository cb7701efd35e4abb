# SPDX-License-Identifier: MIT
## The tests of and with the CPU stand-in for the CUDA runtime and driver (standin/, built by
## standin/local.mk; docs/standin.md says what it models and how), the CPU twins of the test kernels
## (kernels/libkernels_cpu.la) and the fake libraries built on the stand-in (tests/standin/fake*.c).
## The scenario programs (tests/scenarios/) and tests/conformance are built
## against both; `make gpu-programs` builds their GPU versions (*.gpu).
## Nothing here is installed.

check_LTLIBRARIES += kernels/libkernels_cpu.la

## The CPU twins: no FMA contraction, so a*x+y rounds like the GPU's
## -fmad=false build of kernels/*.cu.
kernels_libkernels_cpu_la_SOURCES = kernels/kernels.h kernels/cpu/cpu_kernel.h \
	kernels/cpu/k_add_step.c \
	kernels/cpu/k_apply_coef.c \
	kernels/cpu/k_axpy.c \
	kernels/cpu/k_big_arg.c \
	kernels/cpu/k_combine.c \
	kernels/cpu/k_empty.c \
	kernels/cpu/k_fill.c \
	kernels/cpu/k_poke.c \
	kernels/cpu/k_reduce_sum.c \
	kernels/cpu/k_scale.c
kernels_libkernels_cpu_la_CPPFLAGS = $(CUDA_CPPFLAGS)
kernels_libkernels_cpu_la_CFLAGS = $(AM_CFLAGS) -ffp-contract=off

STANDIN_LINK_LIBS = kernels/libkernels_cpu.la standin/libcudart_standin.la
## -no-install: real binaries, so that LD_PRELOAD reaches the program itself.
STANDIN_LINK_FLAGS = -no-install
STANDIN_SCENARIO_INCS = tests/scenarios/scenario.h tests/report.h kernels/kernels.h

check_PROGRAMS += tests/conformance tests/standin/test_standin tests/standin/ordering
tests_conformance_SOURCES = tests/conformance.c tests/report.h kernels/kernels.h
tests_conformance_LDADD = $(STANDIN_LINK_LIBS)
tests_conformance_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_standin_test_standin_SOURCES = tests/standin/test_standin.c tests/check.h
tests_standin_test_standin_LDADD = $(STANDIN_LINK_LIBS)
tests_standin_test_standin_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_standin_ordering_SOURCES = tests/standin/ordering.c $(STANDIN_SCENARIO_INCS)
tests_standin_ordering_LDADD = $(STANDIN_LINK_LIBS)
tests_standin_ordering_LDFLAGS = $(STANDIN_LINK_FLAGS)

## The scenario programs; tests/standin/scenarios.sh runs each of them.
STANDIN_SCENARIOS = \
	tests/scenarios/alternating_args \
	tests/scenarios/d2h_each \
	tests/scenarios/event_timing \
	tests/scenarios/fork_join \
	tests/scenarios/host_flag_wait \
	tests/scenarios/host_func \
	tests/scenarios/capture_status \
	tests/scenarios/launch_loop \
	tests/scenarios/legacy_stream \
	tests/scenarios/malloc_in_loop \
	tests/scenarios/own_graph \
	tests/scenarios/pageable_h2d \
	tests/scenarios/per_thread \
	tests/scenarios/per_thread_threads \
	tests/scenarios/query_sync \
	tests/scenarios/symbol_update \
	tests/scenarios/sync_free \
	tests/scenarios/two_shapes \
	tests/scenarios/growing \
	tests/scenarios/reshaped \
	tests/scenarios/variants \
	tests/scenarios/layouts \
	tests/scenarios/token_regions \
	tests/scenarios/two_threads
check_PROGRAMS += $(STANDIN_SCENARIOS)
tests_scenarios_alternating_args_SOURCES = tests/scenarios/alternating_args.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_alternating_args_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_alternating_args_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_d2h_each_SOURCES = tests/scenarios/d2h_each.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_d2h_each_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_d2h_each_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_event_timing_SOURCES = tests/scenarios/event_timing.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_event_timing_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_event_timing_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_fork_join_SOURCES = tests/scenarios/fork_join.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_fork_join_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_fork_join_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_host_flag_wait_SOURCES = tests/scenarios/host_flag_wait.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_host_flag_wait_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_host_flag_wait_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_capture_status_SOURCES = tests/scenarios/capture_status.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_capture_status_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_capture_status_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_host_func_SOURCES = tests/scenarios/host_func.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_host_func_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_host_func_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_launch_loop_SOURCES = tests/scenarios/launch_loop.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_launch_loop_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_launch_loop_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_legacy_stream_SOURCES = tests/scenarios/legacy_stream.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_legacy_stream_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_legacy_stream_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_malloc_in_loop_SOURCES = tests/scenarios/malloc_in_loop.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_malloc_in_loop_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_malloc_in_loop_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_own_graph_SOURCES = tests/scenarios/own_graph.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_own_graph_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_own_graph_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_pageable_h2d_SOURCES = tests/scenarios/pageable_h2d.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_pageable_h2d_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_pageable_h2d_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_per_thread_SOURCES = tests/scenarios/per_thread.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_per_thread_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_per_thread_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_query_sync_SOURCES = tests/scenarios/query_sync.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_query_sync_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_query_sync_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_symbol_update_SOURCES = tests/scenarios/symbol_update.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_symbol_update_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_symbol_update_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_sync_free_SOURCES = tests/scenarios/sync_free.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_sync_free_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_sync_free_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_two_shapes_SOURCES = tests/scenarios/two_shapes.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_two_shapes_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_two_shapes_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_growing_SOURCES = tests/scenarios/growing.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_growing_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_growing_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_reshaped_SOURCES = tests/scenarios/reshaped.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_reshaped_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_reshaped_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_variants_SOURCES = tests/scenarios/variants.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_variants_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_variants_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_layouts_SOURCES = tests/scenarios/layouts.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_layouts_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_layouts_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_token_regions_SOURCES = tests/scenarios/token_regions.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_token_regions_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_token_regions_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_per_thread_threads_SOURCES = tests/scenarios/per_thread_threads.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_per_thread_threads_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_per_thread_threads_LDFLAGS = $(STANDIN_LINK_FLAGS)

## Argument sets (issue 14, item 2): a region's pointers rotating among 2 and
## 3 buffers; tests/standin/arg_sets.sh compares it with the run without the
## shim; tests/standin/scenarios.sh with the H200's output (expected/).
check_PROGRAMS += tests/scenarios/rotating_args
tests_scenarios_rotating_args_SOURCES = tests/scenarios/rotating_args.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_rotating_args_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_rotating_args_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/arg_sets.sh
EXTRA_DIST += tests/standin/arg_sets.sh
## Event handles that rotate (issue 39, item 3): a JAX-like loop naming a pool's events in turn, one region
## whose graph's events change; tests/event_pool.sh compares it with the run without the shim and counts replays.
check_PROGRAMS += tests/scenarios/event_pool
tests_scenarios_event_pool_SOURCES = tests/scenarios/event_pool.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_event_pool_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_event_pool_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/event_pool.sh
EXTRA_DIST += tests/event_pool.sh
## Shapes of one step learnt once (issue 39, item 4): a training-step-like loop whose batches come in three sizes
## (grids, copies from pageable memory), one region; tests/step_shapes.sh compares it with the run without the shim.
check_PROGRAMS += tests/scenarios/step_shapes
tests_scenarios_step_shapes_SOURCES = tests/scenarios/step_shapes.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_step_shapes_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_step_shapes_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/step_shapes.sh
EXTRA_DIST += tests/step_shapes.sh
## Parameters wider than 8 bytes: an address and a counter changing inside two launches' by-value tables;
## tests/standin/wide_param.sh checks the debug log's description of the patches (stand-in only).
check_PROGRAMS += tests/scenarios/wide_param
tests_scenarios_wide_param_SOURCES = tests/scenarios/wide_param.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_wide_param_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_wide_param_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/wide_param.sh
EXTRA_DIST += tests/standin/wide_param.sh
## Gaps between a kernel's parameters (issue 24, item 5): the same arguments every iteration, other bytes where
## the gap is; tests/standin/param_gaps.sh requires replays that patch nothing (stand-in only: no GPU twin yet).
check_PROGRAMS += tests/scenarios/param_gaps
tests_scenarios_param_gaps_SOURCES = tests/scenarios/param_gaps.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_param_gaps_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_param_gaps_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/param_gaps.sh
EXTRA_DIST += tests/standin/param_gaps.sh
tests_scenarios_two_threads_SOURCES = tests/scenarios/two_threads.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_two_threads_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_two_threads_LDFLAGS = $(STANDIN_LINK_FLAGS)

TESTS += tests/standin/test_standin tests/standin/conformance.sh \
	tests/standin/scenarios.sh tests/standin/ordering.sh

## Outputs recorded on an H200 (tests/gpu/standin-vs-gpu.sh --record).
STANDIN_EXPECTED = tests/standin/expected/conformance.out \
	tests/standin/expected/alternating_args.out \
	tests/standin/expected/d2h_each.out \
	tests/standin/expected/event_timing.out \
	tests/standin/expected/fork_join.out \
	tests/standin/expected/host_flag_wait.out \
	tests/standin/expected/host_func.out \
	tests/standin/expected/capture_status.out \
	tests/standin/expected/launch_loop.out \
	tests/standin/expected/legacy_stream.out \
	tests/standin/expected/malloc_in_loop.out \
	tests/standin/expected/own_graph.out \
	tests/standin/expected/pageable_h2d.out \
	tests/standin/expected/per_thread.out \
	tests/standin/expected/per_thread_threads.out \
	tests/standin/expected/query_sync.out \
	tests/standin/expected/symbol_update.out \
	tests/standin/expected/sync_free.out \
	tests/standin/expected/two_shapes.out \
	tests/standin/expected/growing.out \
	tests/standin/expected/reshaped.out \
	tests/standin/expected/variants.out \
	tests/standin/expected/layouts.out \
	tests/standin/expected/token_regions.out \
	tests/standin/expected/plan_per_size.out \
	tests/standin/expected/two_threads.out \
	tests/standin/expected/rotating_args.out \
	tests/standin/expected/handover.out \
	tests/standin/expected/unhooked_copy.capture.out
EXTRA_DIST += tests/standin/conformance.sh \
	tests/standin/scenarios.sh tests/standin/ordering.sh \
	standin/gen-error-table.sh tests/gpu/standin-vs-gpu.sh \
	$(STANDIN_EXPECTED)

## GPU builds of the same programs: nvcc, the shared CUDA runtime (a preload
## only interposes libcudart.so), the kernels with -fmad=false.
STANDIN_NVCC_OPTIONS = -cudart shared -O2 -arch=sm_90 \
	-gencode arch=compute_90,code=compute_90 -fmad=false \
	-Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64
standin_nvcc_verbose = $(standin_nvcc_verbose_@AM_V@)
standin_nvcc_verbose_ = $(standin_nvcc_verbose_@AM_DEFAULT_V@)
standin_nvcc_verbose_0 = @echo "  NVCC     $@";
standin_nvcc_verbose_1 =
STANDIN_NVCC = $(standin_nvcc_verbose)$(MKDIR_P) `dirname $@` && \
	$(NVCC) $(STANDIN_NVCC_OPTIONS) -I$(srcdir)/kernels
STANDIN_GPU_KERNELS = \
	kernels/k_add_step.gpu.o \
	kernels/k_apply_coef.gpu.o \
	kernels/k_axpy.gpu.o \
	kernels/k_big_arg.gpu.o \
	kernels/k_combine.gpu.o \
	kernels/k_empty.gpu.o \
	kernels/k_fill.gpu.o \
	kernels/k_poke.gpu.o \
	kernels/k_reduce_sum.gpu.o \
	kernels/k_scale.gpu.o
STANDIN_GPU_BINS = tests/conformance.gpu \
	tests/scenarios/alternating_args.gpu \
	tests/scenarios/d2h_each.gpu \
	tests/scenarios/event_timing.gpu \
	tests/scenarios/fork_join.gpu \
	tests/scenarios/host_flag_wait.gpu \
	tests/scenarios/host_func.gpu \
	tests/scenarios/capture_status.gpu \
	tests/scenarios/launch_loop.gpu \
	tests/scenarios/legacy_stream.gpu \
	tests/scenarios/malloc_in_loop.gpu \
	tests/scenarios/own_graph.gpu \
	tests/scenarios/pageable_h2d.gpu \
	tests/scenarios/per_thread.gpu \
	tests/scenarios/per_thread_threads.gpu \
	tests/scenarios/query_sync.gpu \
	tests/scenarios/symbol_update.gpu \
	tests/scenarios/sync_free.gpu \
	tests/scenarios/two_shapes.gpu \
	tests/scenarios/growing.gpu \
	tests/scenarios/reshaped.gpu \
	tests/scenarios/no_repeat.gpu \
	tests/scenarios/variants.gpu \
	tests/scenarios/layouts.gpu \
	tests/scenarios/token_regions.gpu \
	tests/scenarios/two_threads.gpu \
	tests/scenarios/rotating_args.gpu \
	tests/scenarios/event_pool.gpu \
	tests/scenarios/handover.gpu \
	tests/scenarios/unhooked_copy.gpu \
	tests/scenarios/driver_loop.gpu \
	tests/scenarios/driver_mixed.gpu \
	tests/scenarios/no_repeat_driver.gpu \
	tests/scenarios/mixed_door.gpu \
	kernels/all_kernels.fatbin
CLEANFILES += $(STANDIN_GPU_KERNELS) $(STANDIN_GPU_BINS)
EXTRA_DIST += kernels/all_kernels.cu kernels/k_add_step.cu kernels/k_apply_coef.cu kernels/k_axpy.cu kernels/k_big_arg.cu kernels/k_combine.cu kernels/k_empty.cu kernels/k_fill.cu kernels/k_poke.cu kernels/k_reduce_sum.cu kernels/k_scale.cu

if HAVE_NVCC
gpu-programs: $(STANDIN_GPU_BINS)

kernels/k_add_step.gpu.o: $(srcdir)/kernels/k_add_step.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_add_step.cu
kernels/k_apply_coef.gpu.o: $(srcdir)/kernels/k_apply_coef.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_apply_coef.cu
kernels/k_axpy.gpu.o: $(srcdir)/kernels/k_axpy.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_axpy.cu
kernels/k_big_arg.gpu.o: $(srcdir)/kernels/k_big_arg.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_big_arg.cu
kernels/k_combine.gpu.o: $(srcdir)/kernels/k_combine.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_combine.cu
kernels/k_empty.gpu.o: $(srcdir)/kernels/k_empty.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_empty.cu
kernels/k_fill.gpu.o: $(srcdir)/kernels/k_fill.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_fill.cu
kernels/k_poke.gpu.o: $(srcdir)/kernels/k_poke.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_poke.cu
kernels/k_reduce_sum.gpu.o: $(srcdir)/kernels/k_reduce_sum.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_reduce_sum.cu
kernels/k_scale.gpu.o: $(srcdir)/kernels/k_scale.cu $(srcdir)/kernels/kernels.h
	$(STANDIN_NVCC) -c -o $@ $(srcdir)/kernels/k_scale.cu
tests/conformance.gpu: $(srcdir)/tests/conformance.c $(srcdir)/tests/report.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/conformance.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/alternating_args.gpu: $(srcdir)/tests/scenarios/alternating_args.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/alternating_args.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/d2h_each.gpu: $(srcdir)/tests/scenarios/d2h_each.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/d2h_each.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/event_timing.gpu: $(srcdir)/tests/scenarios/event_timing.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/event_timing.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/fork_join.gpu: $(srcdir)/tests/scenarios/fork_join.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/fork_join.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/host_flag_wait.gpu: $(srcdir)/tests/scenarios/host_flag_wait.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/host_flag_wait.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/capture_status.gpu: $(srcdir)/tests/scenarios/capture_status.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/capture_status.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/host_func.gpu: $(srcdir)/tests/scenarios/host_func.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/host_func.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/launch_loop.gpu: $(srcdir)/tests/scenarios/launch_loop.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/launch_loop.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/legacy_stream.gpu: $(srcdir)/tests/scenarios/legacy_stream.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/legacy_stream.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/malloc_in_loop.gpu: $(srcdir)/tests/scenarios/malloc_in_loop.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/malloc_in_loop.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/own_graph.gpu: $(srcdir)/tests/scenarios/own_graph.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/own_graph.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/pageable_h2d.gpu: $(srcdir)/tests/scenarios/pageable_h2d.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/pageable_h2d.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/per_thread.gpu: $(srcdir)/tests/scenarios/per_thread.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/per_thread.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/per_thread_threads.gpu: $(srcdir)/tests/scenarios/per_thread_threads.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/per_thread_threads.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/query_sync.gpu: $(srcdir)/tests/scenarios/query_sync.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/query_sync.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/symbol_update.gpu: $(srcdir)/tests/scenarios/symbol_update.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/symbol_update.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/sync_free.gpu: $(srcdir)/tests/scenarios/sync_free.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/sync_free.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/two_shapes.gpu: $(srcdir)/tests/scenarios/two_shapes.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/two_shapes.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/growing.gpu: $(srcdir)/tests/scenarios/growing.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/growing.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/reshaped.gpu: $(srcdir)/tests/scenarios/reshaped.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/reshaped.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/no_repeat.gpu: $(srcdir)/tests/scenarios/no_repeat.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/no_repeat.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/variants.gpu: $(srcdir)/tests/scenarios/variants.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/variants.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/layouts.gpu: $(srcdir)/tests/scenarios/layouts.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/layouts.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/token_regions.gpu: $(srcdir)/tests/scenarios/token_regions.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/token_regions.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/two_threads.gpu: $(srcdir)/tests/scenarios/two_threads.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/two_threads.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/rotating_args.gpu: $(srcdir)/tests/scenarios/rotating_args.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/rotating_args.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/event_pool.gpu: $(srcdir)/tests/scenarios/event_pool.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/event_pool.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
tests/scenarios/handover.gpu: $(srcdir)/tests/scenarios/handover.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/handover.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/unhooked_copy.gpu: $(srcdir)/tests/scenarios/unhooked_copy.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/unhooked_copy.c $(STANDIN_GPU_KERNELS)
## The driver-only scenarios as a program built with nvcc's defaults would be: the static runtime (no
## -cudart shared), libcuda linked, the kernels loaded by name from kernels/all_kernels.fatbin
## (SCENARIO_MODULE; tests/gpu/standin-vs-gpu.sh sets it).  mixed_door: the shared runtime and libcuda.
STANDIN_DRIVER_NVCC = $(standin_nvcc_verbose)$(MKDIR_P) `dirname $@` && \
	$(NVCC) -O2 -arch=sm_90 -gencode arch=compute_90,code=compute_90 -fmad=false -I$(srcdir)/kernels
STANDIN_DRIVER_GPU_LIBS = -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread
kernels/all_kernels.fatbin: $(srcdir)/kernels/all_kernels.cu $(STANDIN_GPU_KERNELS)
	$(STANDIN_DRIVER_NVCC) -fatbin -o $@ $(srcdir)/kernels/all_kernels.cu
tests/scenarios/driver_loop.gpu: $(srcdir)/tests/scenarios/driver_loop.c $(srcdir)/tests/scenarios/driver_scenario.h $(STANDIN_GPU_KERNELS) kernels/all_kernels.fatbin
	$(STANDIN_DRIVER_NVCC) -o $@ $(srcdir)/tests/scenarios/driver_loop.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
tests/scenarios/driver_mixed.gpu: $(srcdir)/tests/scenarios/driver_mixed.c $(srcdir)/tests/scenarios/driver_scenario.h $(STANDIN_GPU_KERNELS) kernels/all_kernels.fatbin
	$(STANDIN_DRIVER_NVCC) -o $@ $(srcdir)/tests/scenarios/driver_mixed.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
tests/scenarios/no_repeat_driver.gpu: $(srcdir)/tests/scenarios/no_repeat_driver.c $(srcdir)/tests/scenarios/driver_scenario.h $(STANDIN_GPU_KERNELS) kernels/all_kernels.fatbin
	$(STANDIN_DRIVER_NVCC) -o $@ $(srcdir)/tests/scenarios/no_repeat_driver.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
tests/scenarios/mixed_door.gpu: $(srcdir)/tests/scenarios/mixed_door.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/mixed_door.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
endif

## bench_loop on the stand-in, for counting the shim's instructions per
## held-back call (tools/dev/callgrind-auto); tests/bench/held_back.sh checks
## that its output does not depend on the mode.
check_PROGRAMS += tests/bench/held_back_loop
tests_bench_held_back_loop_SOURCES = tests/bench/held_back_loop.c tests/report.h kernels/kernels.h
tests_bench_held_back_loop_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_bench_held_back_loop_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/bench/held_back.sh tests/ceiling.sh
EXTRA_DIST += tests/bench/held_back.sh tests/ceiling.sh

## The driver API, seen (docs/design.md, "Seeing the driver API"): a
## stand-in libcuda.so.1 feeding the runtime stand-in's queues, a fake
## library that launches through it the way cuBLAS does, a scenario mixing
## the two on one stream, and tests/standin/driver.sh; the stand-in libcuda.so.1
## is standin/driver/libcuda.la (standin/local.mk).
check_LTLIBRARIES += tests/standin/libfakeblas.la
tests_standin_libfakeblas_la_SOURCES = tests/standin/fakeblas.c tests/standin/fakeblas.h
tests_standin_libfakeblas_la_CPPFLAGS = $(CUDA_CPPFLAGS)
tests_standin_libfakeblas_la_CFLAGS = $(AM_CFLAGS) -ffp-contract=off
tests_standin_libfakeblas_la_LDFLAGS = -rpath /nowhere -avoid-version -shared -no-undefined \
	-export-symbols-regex '^fakeblas_'
tests_standin_libfakeblas_la_LIBADD = standin/libcudart_standin.la -ldl -lpthread

## The same fake library under a communication library's name (libnccl*): its launches are never held back.
check_LTLIBRARIES += tests/standin/libnccl_standin.la
tests_standin_libnccl_standin_la_SOURCES = $(tests_standin_libfakeblas_la_SOURCES)
tests_standin_libnccl_standin_la_CPPFLAGS = $(tests_standin_libfakeblas_la_CPPFLAGS)
tests_standin_libnccl_standin_la_CFLAGS = $(tests_standin_libfakeblas_la_CFLAGS)
tests_standin_libnccl_standin_la_LDFLAGS = $(tests_standin_libfakeblas_la_LDFLAGS)
tests_standin_libnccl_standin_la_LIBADD = $(tests_standin_libfakeblas_la_LIBADD)

check_PROGRAMS += tests/scenarios/driver_library tests/scenarios/driver_threads tests/standin/driver_import \
	tests/standin/dlsym_check tests/standin/driver_library_nccl
tests_standin_driver_library_nccl_SOURCES = tests/scenarios/driver_library.c $(STANDIN_SCENARIO_INCS)
tests_standin_driver_library_nccl_LDADD = tests/standin/libnccl_standin.la standin/driver/libcuda.la \
	$(STANDIN_LINK_LIBS)
tests_standin_driver_library_nccl_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_driver_threads_SOURCES = tests/scenarios/driver_threads.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_driver_threads_LDADD = tests/standin/libfakeblas.la $(STANDIN_LINK_LIBS) -lpthread
tests_scenarios_driver_threads_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_standin_driver_import_SOURCES = tests/standin/driver_import.c $(STANDIN_SCENARIO_INCS)
tests_standin_driver_import_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_standin_driver_import_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_driver_library_SOURCES = tests/scenarios/driver_library.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_driver_library_LDADD = tests/standin/libfakeblas.la standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_driver_library_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_standin_dlsym_check_SOURCES = tests/standin/dlsym_check.c tests/check.h
tests_standin_dlsym_check_LDADD = $(STANDIN_LINK_LIBS) standin/driver/libcuda.la -ldl
tests_standin_dlsym_check_LDFLAGS = $(STANDIN_LINK_FLAGS)
## A GEMM-like library launching with programmatic dependent launch (issue 25): tests/standin/pdl.sh checks that
## the shim holds its cuLaunchKernelEx launches back and graphs them, and that a boundary's attribute is named.
check_PROGRAMS += tests/scenarios/pdl_library
tests_scenarios_pdl_library_SOURCES = tests/scenarios/pdl_library.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_pdl_library_LDADD = tests/standin/libfakeblas.la standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_pdl_library_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/pdl.sh
EXTRA_DIST += tests/standin/pdl.sh tests/standin/expected/pdl_library.out
## Launches at several priorities (attributes through both doors, a stream created with one):
## tests/standin/priorities.sh checks that the shim's graphs run each kernel at the priority it runs at without it.
check_PROGRAMS += tests/scenarios/priorities
tests_scenarios_priorities_SOURCES = tests/scenarios/priorities.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_priorities_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_priorities_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/priorities.sh
EXTRA_DIST += tests/standin/priorities.sh
check_PROGRAMS += tests/standin/test_driver_standin
tests_standin_test_driver_standin_SOURCES = tests/standin/test_driver_standin.c tests/check.h
tests_standin_test_driver_standin_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_standin_test_driver_standin_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/driver.sh tests/standin/test_driver_standin

## Programmatic dependent launch as it is (docs/standin.md): a dependent may start before its primary, only its
## grid-dependency wait waits for it.
check_PROGRAMS += tests/standin/test_programmatic
tests_standin_test_programmatic_SOURCES = tests/standin/test_programmatic.c tests/check.h
tests_standin_test_programmatic_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_standin_test_programmatic_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/test_programmatic
EXTRA_DIST += tests/standin/driver.sh

## Issue 12, case 2: a library that asks the driver whether its stream is
## capturing and takes another path if so, as cuBLAS does
## (tests/standin/fakecublas.c), in the shape of a conjugate-gradient loop
## (tests/scenarios/cg_library), and tests/standin/capture_library.sh.
check_LTLIBRARIES += tests/standin/libfakecublas.la
tests_standin_libfakecublas_la_SOURCES = tests/standin/fakecublas.c tests/standin/fakecublas.h \
	tests/standin/fakecublas_kernels.c tests/standin/fakecublas_kernels.h
tests_standin_libfakecublas_la_CPPFLAGS = $(CUDA_CPPFLAGS)
tests_standin_libfakecublas_la_CFLAGS = $(AM_CFLAGS) -ffp-contract=off
tests_standin_libfakecublas_la_LDFLAGS = -rpath /nowhere -avoid-version -shared -no-undefined \
	-export-symbols-regex '^fakecublas_'
tests_standin_libfakecublas_la_LIBADD = standin/libcudart_standin.la -ldl
check_PROGRAMS += tests/scenarios/cg_library
tests_scenarios_cg_library_SOURCES = tests/scenarios/cg_library.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_cg_library_CFLAGS = $(AM_CFLAGS) -ffp-contract=off
tests_scenarios_cg_library_LDADD = tests/standin/libfakecublas.la $(STANDIN_LINK_LIBS)
## (The library finds the stand-in libcuda.so.1 on the search path, as cuBLAS finds the driver.)
tests_scenarios_cg_library_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/capture_library.sh
EXTRA_DIST += tests/standin/capture_library.sh

## The driver front door (docs/standin.md, "The static runtime"): standin/static/libcuda.la, the second stand-in
## libcuda.so.1 with the whole runtime stand-in inside and none of its cuda* names exported, as a program built with
## nvcc's default (static) runtime sees the driver: no libcudart.so is loaded, everything reaches libcuda.  Driver-only
## scenarios linked against it (tests/scenarios/driver_loop, driver_mixed), one mixing the program's runtime
## launches with a library's cuGetProcAddress-obtained cuLaunchKernel on the normal stand-ins
## (tests/scenarios/mixed_door), tests/standin/static_check (no runtime visible) and tests/standin/driver_door.sh.
STANDIN_STATIC_LINK_LIBS = kernels/libkernels_cpu.la standin/static/libcuda.la
STANDIN_DRIVER_SCENARIO_INCS = tests/scenarios/driver_scenario.h kernels/kernels.h
check_PROGRAMS += tests/scenarios/driver_loop tests/scenarios/driver_mixed tests/scenarios/mixed_door \
	tests/standin/static_check
tests_scenarios_driver_loop_SOURCES = tests/scenarios/driver_loop.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_driver_loop_LDADD = $(STANDIN_STATIC_LINK_LIBS)
tests_scenarios_driver_loop_LDFLAGS = $(STANDIN_LINK_FLAGS)
check_PROGRAMS += tests/scenarios/no_repeat_driver
tests_scenarios_no_repeat_driver_SOURCES = tests/scenarios/no_repeat_driver.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_no_repeat_driver_LDADD = $(STANDIN_STATIC_LINK_LIBS)
tests_scenarios_no_repeat_driver_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_driver_mixed_SOURCES = tests/scenarios/driver_mixed.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_driver_mixed_LDADD = $(STANDIN_STATIC_LINK_LIBS)
tests_scenarios_driver_mixed_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_mixed_door_SOURCES = tests/scenarios/mixed_door.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_mixed_door_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_mixed_door_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_standin_static_check_SOURCES = tests/standin/static_check.c tests/check.h
tests_standin_static_check_LDADD = $(STANDIN_STATIC_LINK_LIBS) -ldl
tests_standin_static_check_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/static_check tests/standin/driver_door.sh
EXTRA_DIST += tests/standin/driver_door.sh

## The robust path without a dynamic runtime: tests/scenarios/driver_direct, a driver-only program linked
## against the static-runtime driver whose loop has work the shim cannot hold back inside it (a library's own
## launches, tests/standin/fakeblas.c built without its runtime route as libfakeblas_static, and a 2-D
## memset); tests/standin/robust_driver.sh.
check_LTLIBRARIES += tests/standin/libfakeblas_static.la
tests_standin_libfakeblas_static_la_SOURCES = $(tests_standin_libfakeblas_la_SOURCES)
tests_standin_libfakeblas_static_la_CPPFLAGS = $(CUDA_CPPFLAGS) -DFAKEBLAS_DRIVER_ONLY
tests_standin_libfakeblas_static_la_CFLAGS = $(tests_standin_libfakeblas_la_CFLAGS)
tests_standin_libfakeblas_static_la_LDFLAGS = $(tests_standin_libfakeblas_la_LDFLAGS)
tests_standin_libfakeblas_static_la_LIBADD = standin/static/libcuda.la -ldl -lpthread
check_PROGRAMS += tests/scenarios/driver_direct
tests_scenarios_driver_direct_SOURCES = tests/scenarios/driver_direct.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_driver_direct_LDADD = tests/standin/libfakeblas_static.la $(STANDIN_STATIC_LINK_LIBS)
tests_scenarios_driver_direct_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/robust_driver.sh
EXTRA_DIST += tests/standin/robust_driver.sh

## Issue 24: programs whose CUDA objects die while a shim may still hold graphs of them.  A module or library
## unloaded and loaded again (tests/scenarios/module_unload, driver API only), the context reset before main
## returns or in the middle (tests/scenarios/device_reset, runtime; device_reset_driver, driver API only), the
## runtime loaded privately with dlopen(RTLD_LOCAL) (tests/scenarios/private_runtime, with the kernels' twins
## in a plugin of their own, tests/standin/libkernels_private.la); tests/standin/lifetimes.sh runs them with and
## without the shim (docs/standin.md, "Lifetimes").
check_LTLIBRARIES += tests/standin/libkernels_private.la
tests_standin_libkernels_private_la_SOURCES =
tests_standin_libkernels_private_la_LDFLAGS = -rpath /nowhere -avoid-version -shared -no-undefined \
	-export-symbols-regex '^k_'
tests_standin_libkernels_private_la_LIBADD = kernels/libkernels_cpu.la standin/libcudart_standin.la
check_PROGRAMS += tests/scenarios/module_unload tests/scenarios/device_reset tests/scenarios/device_reset_driver \
	tests/scenarios/private_runtime
tests_scenarios_module_unload_SOURCES = tests/scenarios/module_unload.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_module_unload_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_module_unload_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_device_reset_SOURCES = tests/scenarios/device_reset.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_device_reset_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_device_reset_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_device_reset_driver_SOURCES = tests/scenarios/device_reset_driver.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_device_reset_driver_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_device_reset_driver_LDFLAGS = $(STANDIN_LINK_FLAGS)
tests_scenarios_private_runtime_SOURCES = tests/scenarios/private_runtime.c
tests_scenarios_private_runtime_CPPFLAGS = $(CUDA_CPPFLAGS) \
	-DSTANDIN_RUNTIME_PATH='"$(abs_top_builddir)/standin/.libs/libcudart_standin.so"' \
	-DSTANDIN_KERNELS_PATH='"$(abs_top_builddir)/tests/standin/.libs/libkernels_private.so"'
tests_scenarios_private_runtime_LDADD = -ldl
## What it loads with dlopen, which make would not build for it otherwise (tools/dev/check-one builds only that).
EXTRA_tests_scenarios_private_runtime_DEPENDENCIES = tests/standin/libkernels_private.la standin/driver/libcuda.la
tests_scenarios_private_runtime_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/standin/lifetimes.sh
EXTRA_DIST += tests/standin/lifetimes.sh

## A decode loop whose attention-like kernel comes from a module loaded per size, as cuDNN's plans
## (tests/scenarios/plan_per_size, driver API only; tests/kernel_twins.sh).
check_PROGRAMS += tests/scenarios/plan_per_size
tests_scenarios_plan_per_size_SOURCES = tests/scenarios/plan_per_size.c $(STANDIN_DRIVER_SCENARIO_INCS)
tests_scenarios_plan_per_size_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS)
tests_scenarios_plan_per_size_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/kernel_twins.sh
EXTRA_DIST += tests/kernel_twins.sh
## Their GPU builds (make gpu-programs): device_reset as the other runtime scenarios; module_unload and
## device_reset_driver as mixed_door (the shared runtime and libcuda; SCENARIO_MODULE=kernels/all_kernels.fatbin
## to run them).  private_runtime is stand-in only: on a GPU its kernels would need a module the runtime loads.
STANDIN_GPU_BINS += tests/scenarios/device_reset.gpu tests/scenarios/module_unload.gpu \
	tests/scenarios/device_reset_driver.gpu tests/scenarios/plan_per_size.gpu
if HAVE_NVCC
tests/scenarios/device_reset.gpu: $(srcdir)/tests/scenarios/device_reset.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/device_reset.c $(STANDIN_GPU_KERNELS) -lpthread
tests/scenarios/module_unload.gpu: $(srcdir)/tests/scenarios/module_unload.c $(srcdir)/tests/scenarios/driver_scenario.h $(STANDIN_GPU_KERNELS) kernels/all_kernels.fatbin
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/module_unload.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
tests/scenarios/device_reset_driver.gpu: $(srcdir)/tests/scenarios/device_reset_driver.c $(srcdir)/tests/scenarios/driver_scenario.h $(STANDIN_GPU_KERNELS) kernels/all_kernels.fatbin
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/device_reset_driver.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
tests/scenarios/plan_per_size.gpu: $(srcdir)/tests/scenarios/plan_per_size.c $(srcdir)/tests/scenarios/driver_scenario.h $(STANDIN_GPU_KERNELS) kernels/all_kernels.fatbin
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/plan_per_size.c $(STANDIN_GPU_KERNELS) $(STANDIN_DRIVER_GPU_LIBS)
endif

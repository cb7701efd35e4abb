# SPDX-License-Identifier: MIT
## Tests that need no GPU: unit tests of policy/ and the log, and the shim
## preloaded into programs linked against a fake runtime.

TESTS_INCLUDES = $(AM_CPPFLAGS) -I$(srcdir)/tests -I$(srcdir)/tests/recorder
## -no-install: real binaries, not libtool wrapper scripts, so that
## LD_PRELOAD reaches the test program and not a shell.
NO_INSTALL = -no-install

check_PROGRAMS += tests/test_options tests/test_log tests/test_verdict tests/test_period tests/test_regions tests/test_patterns \
	tests/test_driver_table tests/test_payoff
tests_test_driver_table_SOURCES = tests/test_driver_table.c tests/check.h
tests_test_driver_table_LDADD = libreprise_core.la
tests_test_period_SOURCES = tests/test_period.c tests/check.h
tests_test_period_LDADD = libreprise_core.la
tests_test_regions_SOURCES = tests/test_regions.c tests/check.h
tests_test_regions_LDADD = libreprise_core.la
tests_test_payoff_SOURCES = tests/test_payoff.c tests/check.h
tests_test_payoff_LDADD = libreprise_core.la
tests_test_patterns_SOURCES = tests/test_patterns.c tests/check.h
tests_test_patterns_LDADD = libreprise_core.la
tests_test_options_SOURCES = tests/test_options.c tests/check.h
tests_test_options_LDADD = libreprise_core.la
tests_test_log_SOURCES = tests/test_log.c tests/check.h
tests_test_log_LDADD = libreprise_core.la
tests_test_verdict_SOURCES = tests/test_verdict.c tests/check.h
tests_test_verdict_LDADD = libreprise_core.la
TESTS += tests/test_options tests/test_log tests/test_verdict tests/test_period tests/test_regions tests/test_patterns \
	tests/test_driver_table tests/test_payoff
check_PROGRAMS += tests/test_stream_filter
tests_test_stream_filter_SOURCES = tests/test_stream_filter.c tests/check.h
tests_test_stream_filter_LDADD = libreprise_core.la
TESTS += tests/test_stream_filter
check_PROGRAMS += tests/test_cuts
tests_test_cuts_SOURCES = tests/test_cuts.c tests/check.h
tests_test_cuts_LDADD = libreprise_core.la
TESTS += tests/test_cuts
check_PROGRAMS += tests/test_neighbours
tests_test_neighbours_SOURCES = tests/test_neighbours.c tests/check.h
tests_test_neighbours_LDADD = libreprise_core.la
TESTS += tests/test_neighbours
check_PROGRAMS += tests/test_event_refs
tests_test_event_refs_SOURCES = tests/test_event_refs.c tests/check.h
tests_test_event_refs_LDADD = libreprise_core.la
TESTS += tests/test_event_refs
## The governor's decisions (policy/governor.c): learning, probes, ties, noise, back-offs, phases.
check_PROGRAMS += tests/test_governor
tests_test_governor_SOURCES = tests/test_governor.c tests/check.h
tests_test_governor_LDADD = libreprise_core.la
TESTS += tests/test_governor

## The launch attributes' table (policy/launch_attrs.def): a decision for each attribute CUDA 13 defines.
check_PROGRAMS += tests/test_launch_attrs
tests_test_launch_attrs_SOURCES = tests/test_launch_attrs.c tests/check.h
tests_test_launch_attrs_LDADD = libreprise_core.la
TESTS += tests/test_launch_attrs

## The recorder: a fake runtime generated from hooks.def.
check_LTLIBRARIES += tests/libcudart_recorder.la tests/libctor_caller.la
tests_libcudart_recorder_la_SOURCES = tests/recorder/recorder.c tests/recorder/recorder.h tests/recorder/each_arg.h
tests_libcudart_recorder_la_CPPFLAGS = $(TESTS_INCLUDES)
tests_libcudart_recorder_la_LDFLAGS = -rpath /nowhere -avoid-version -shared
tests_libctor_caller_la_SOURCES = tests/ctor_caller.c
tests_libctor_caller_la_CPPFLAGS = $(TESTS_INCLUDES)
tests_libctor_caller_la_LDFLAGS = -rpath /nowhere -avoid-version -shared
tests_libctor_caller_la_LIBADD = tests/libcudart_recorder.la

check_PROGRAMS += tests/test_forwarding tests/test_threads tests/test_ctor tests/test_missing_symbol tests/test_launch_config
tests_test_launch_config_SOURCES = tests/test_launch_config.c tests/check.h
tests_test_launch_config_CPPFLAGS = $(TESTS_INCLUDES)
tests_test_launch_config_LDFLAGS = $(NO_INSTALL)
tests_test_launch_config_LDADD = tests/libcudart_recorder.la
tests_test_forwarding_SOURCES = tests/test_forwarding.c tests/check.h
tests_test_forwarding_CPPFLAGS = $(TESTS_INCLUDES)
tests_test_forwarding_LDFLAGS = $(NO_INSTALL)
tests_test_forwarding_LDADD = tests/libcudart_recorder.la
tests_test_threads_SOURCES = tests/test_threads.c
tests_test_threads_CPPFLAGS = $(TESTS_INCLUDES)
tests_test_threads_LDFLAGS = $(NO_INSTALL)
tests_test_threads_LDADD = tests/libcudart_recorder.la
tests_test_ctor_SOURCES = tests/test_ctor.c
tests_test_ctor_CPPFLAGS = $(TESTS_INCLUDES)
tests_test_ctor_LDFLAGS = $(NO_INSTALL)
tests_test_ctor_LDADD = tests/libctor_caller.la tests/libcudart_recorder.la
tests_test_missing_symbol_SOURCES = tests/test_missing_symbol.c
tests_test_missing_symbol_LDFLAGS = $(NO_INSTALL)

## Shell tests: they preload .libs/libreprise.so into the programs above.
TESTS += \
	tests/forwarding.sh \
	tests/environment.sh \
	tests/init.sh \
	tests/linkage.sh \
	tests/options_doc.sh \
	tests/auto_scenarios.sh \
	tests/layers.sh
EXTRA_DIST += tests/lib.sh tests/forwarding.sh tests/environment.sh tests/init.sh \
	tests/linkage.sh tests/options_doc.sh tests/auto_scenarios.sh tests/layers.sh tests/layers.txt

## The log and trace files: appended, created 0644, never through a symbolic link (issue 27).
TESTS += tests/output_files.sh
EXTRA_DIST += tests/output_files.sh

## Warm-ups that never repeat build no graph (issue 24, item 3).
TESTS += tests/warmup.sh
EXTRA_DIST += tests/warmup.sh

## Regions whose geometry changes (issue 25, item 3): growing, a decode-like loop, replays as one region.
TESTS += tests/geometry.sh
EXTRA_DIST += tests/geometry.sh
TESTS += tests/token_regions.sh
EXTRA_DIST += tests/token_regions.sh

## A graph whose build fails half-way (a node the driver refuses): the program's results, and the next build.
TESTS += tests/graph_build_error.sh
EXTRA_DIST += tests/graph_build_error.sh

## Why nothing was graphed (issue 25, item 4): a loop whose sequences never repeat; the exit summary, the trace,
## `reprise report` and observe mode name the first call that differs between two neighbouring ones.
check_PROGRAMS += tests/scenarios/no_repeat
tests_scenarios_no_repeat_SOURCES = tests/scenarios/no_repeat.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_no_repeat_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_no_repeat_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/no_repeat.sh
EXTRA_DIST += tests/no_repeat.sh

## tools/dev/host_cpus.py, with which tools/dev/bench-suite pins its runs to the fast CPUs (issue 14, the PyTorch rows).
TESTS += tests/host_cpus.sh
EXTRA_DIST += tests/host_cpus.sh

## Ranks (issue 16): the rank in the log and trace, `reprise run` under a launcher, `reprise report TRACE...`.
TESTS += tests/reprise_ranks.sh
EXTRA_DIST += tests/reprise_ranks.sh tests/traces/README tests/traces/one.trace tests/traces/one.report \
	tests/traces/one.json tests/traces/rank0.trace tests/traces/rank1.trace tests/traces/job.report

## The cross-stream waits around a fast-path graph's launches (issue 14, item 3): a fork/join loop whose forked
## streams are used outside its region between replays, in every way that must settle a wait the stream owes;
## tests/owed_waits.sh compares it with the run without the shim and counts fork3's replay calls.
check_PROGRAMS += tests/standin/fork_reuse
tests_standin_fork_reuse_SOURCES = tests/standin/fork_reuse.c tests/standin/driver_axpy.h tests/standin/fork3_loop.h \
	$(STANDIN_SCENARIO_INCS)
tests_standin_fork_reuse_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS) -lpthread
tests_standin_fork_reuse_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/owed_waits.sh
EXTRA_DIST += tests/owed_waits.sh
## tests/standin/owed_records: fork3's loop whose events are observed between replays, every way the program can;
## tests/owed_records.sh compares it with the run without the shim and counts the records owed and made.
check_PROGRAMS += tests/standin/owed_records
tests_standin_owed_records_SOURCES = tests/standin/owed_records.c tests/standin/fork3_loop.h $(STANDIN_SCENARIO_INCS)
tests_standin_owed_records_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS) -lpthread
tests_standin_owed_records_LDFLAGS = $(STANDIN_LINK_FLAGS)
## tests/standin/owed_record_error: fork3's loop and a region waiting for its event, whose owed record the stand-in
## refuses once; tests/owed_records.sh checks that occurrence falls back.
check_PROGRAMS += tests/standin/owed_record_error
tests_standin_owed_record_error_SOURCES = tests/standin/owed_record_error.c tests/standin/fork3_loop.h \
	$(STANDIN_SCENARIO_INCS)
tests_standin_owed_record_error_LDADD = $(STANDIN_LINK_LIBS)
tests_standin_owed_record_error_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/owed_records.sh
EXTRA_DIST += tests/owed_records.sh
## Calls in flight (issue 15, item 2): a second thread's calls down every forwarding path, then silence, while the
## first loops on the same stream; tests/in_flight.sh checks that the first thread's robust-path region replays.
check_PROGRAMS += tests/standin/in_flight
tests_standin_in_flight_SOURCES = tests/standin/in_flight.c tests/standin/driver_axpy.h $(STANDIN_SCENARIO_INCS)
tests_standin_in_flight_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS) -lpthread
tests_standin_in_flight_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/in_flight.sh
EXTRA_DIST += tests/in_flight.sh

## A runtime function the shim does not hook (cudaMemcpyBatchAsync, made through the driver) between a loop's
## launches: tests/unhooked_runtime.sh checks that it ends the held-back calls before it.
check_PROGRAMS += tests/scenarios/unhooked_copy
tests_scenarios_unhooked_copy_SOURCES = tests/scenarios/unhooked_copy.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_unhooked_copy_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_unhooked_copy_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/unhooked_runtime.sh
EXTRA_DIST += tests/unhooked_runtime.sh

## Hand-overs (issue 15, item 1): two threads taking turns on one stream; tests/handover.sh runs it without
## the shim and under auto, and checks that each thread's region replays where the other takes over.
check_PROGRAMS += tests/scenarios/handover
tests_scenarios_handover_SOURCES = tests/scenarios/handover.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_handover_LDADD = $(STANDIN_LINK_LIBS) -lpthread
tests_scenarios_handover_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/handover.sh
EXTRA_DIST += tests/handover.sh

## The fast path of a held-back launch (shim/engine/engine_fast.h): what it must
## leave to the engine (another region's record slot, another thread's
## held-back work, a sync-free loop's cut), on the stand-in.
check_PROGRAMS += tests/fast_path
tests_fast_path_SOURCES = tests/fast_path.c $(STANDIN_SCENARIO_INCS)
tests_fast_path_LDADD = $(STANDIN_LINK_LIBS) -lpthread
tests_fast_path_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/fast_path.sh
EXTRA_DIST += tests/fast_path.sh

## Where calls are cut into graph launches (issue 14, items 4 and 5): a sync-free loop's cuts grow, a slow
## host's long region is launched in segments (tests/scenarios/slow_host, stand-in only; sync_free change).
check_PROGRAMS += tests/scenarios/slow_host
tests_scenarios_slow_host_SOURCES = tests/scenarios/slow_host.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_slow_host_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_slow_host_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/cuts.sh
EXTRA_DIST += tests/cuts.sh
## Its GPU build (`make gpu-programs`, with the other scenarios'): no expected output is recorded yet.
CLEANFILES += tests/scenarios/slow_host.gpu
if HAVE_NVCC
gpu-programs: tests/scenarios/slow_host.gpu
tests/scenarios/slow_host.gpu: $(srcdir)/tests/scenarios/slow_host.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/slow_host.c $(STANDIN_GPU_KERNELS) -lpthread
endif

## The GPU scripts' verdicts without a GPU (issue 40): fake members and a fake nvidia-smi; a zoo or GPU suite that
## skipped everything, or whose members replayed less than they should, fails.
TESTS += tests/zoo_verdicts.sh tests/gpu_suite_verdicts.sh
EXTRA_DIST += tests/zoo_verdicts.sh tests/gpu_suite_verdicts.sh tests/fake_gpu.sh
## A crash report a user can send (issue 40, section 2): a fault while a replayed region's calls are held back,
## with and without the program's own handler; tests/crash_report.sh checks the report and the signal's way on.
check_PROGRAMS += tests/scenarios/crash_held
tests_scenarios_crash_held_SOURCES = tests/scenarios/crash_held.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_crash_held_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_crash_held_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/crash_report.sh
EXTRA_DIST += tests/crash_report.sh
## Its GPU build (`make gpu-programs`): the same report on a GPU, checked by hand.
CLEANFILES += tests/scenarios/crash_held.gpu
if HAVE_NVCC
gpu-programs: tests/scenarios/crash_held.gpu
tests/scenarios/crash_held.gpu: $(srcdir)/tests/scenarios/crash_held.c $(srcdir)/tests/scenarios/scenario.h $(STANDIN_GPU_KERNELS)
	$(STANDIN_NVCC) -o $@ $(srcdir)/tests/scenarios/crash_held.c $(STANDIN_GPU_KERNELS)
endif
## The governor (issue 39, item 1): a loop whose graphs cost more than they save steps aside, one whose graphs pay
## stays on, a program whose phase changes resumes, and two threads switched at every sync print the same.
check_PROGRAMS += tests/scenarios/governor
tests_scenarios_governor_SOURCES = tests/scenarios/governor.c $(STANDIN_SCENARIO_INCS)
tests_scenarios_governor_LDADD = $(STANDIN_LINK_LIBS)
tests_scenarios_governor_LDFLAGS = $(STANDIN_LINK_FLAGS)
TESTS += tests/governor.sh
EXTRA_DIST += tests/governor.sh

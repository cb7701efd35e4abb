# SPDX-License-Identifier: MIT
## The randomized differential test (issue 4): tests/fuzz/random_program
## generates a race-free CUDA program per seed; tests/fuzz/differential.sh runs
## it against the stand-in without the shim, with REPRISE_MODE=off and with
## REPRISE_MODE=auto, and requires identical outputs.  Built like the
## scenario programs (tests/standin/local.mk): stand-in (standin/), CPU kernel twins, and
## -no-install so that LD_PRELOAD reaches the real binary. Both also call the
## driver stand-in (tests/fuzz/fuzz_door.h: the driver door), linked as a
## program linked against libcuda is.

check_PROGRAMS += tests/fuzz/random_program
tests_fuzz_random_program_SOURCES = tests/fuzz/random_program.c tests/fuzz/fuzz_random.h tests/fuzz/fuzz_door.h \
	tests/fuzz/fuzz_stress.h tests/report.h kernels/kernels.h
tests_fuzz_random_program_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS) -lm
tests_fuzz_random_program_LDFLAGS = $(STANDIN_LINK_FLAGS)

TESTS += tests/fuzz/differential.sh
EXTRA_DIST += tests/fuzz/differential.sh tests/fuzz/door_checks.sh

## The multi-threaded one: tests/fuzz/random_threads generates a race-free
## program of 2..3 host threads that hand buffers to each other per seed;
## tests/fuzz/threads_differential.sh compares REPRISE_MODE=off and auto.
check_PROGRAMS += tests/fuzz/random_threads
tests_fuzz_random_threads_SOURCES = tests/fuzz/random_threads.c tests/fuzz/fuzz_random.h tests/fuzz/fuzz_door.h \
	tests/fuzz/fuzz_stress.h tests/report.h kernels/kernels.h
tests_fuzz_random_threads_LDADD = standin/driver/libcuda.la $(STANDIN_LINK_LIBS) -lpthread
tests_fuzz_random_threads_LDFLAGS = $(STANDIN_LINK_FLAGS)

TESTS += tests/fuzz/threads_differential.sh
EXTRA_DIST += tests/fuzz/threads_differential.sh

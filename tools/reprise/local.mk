# SPDX-License-Identifier: MIT
## The reprise command (tools/reprise/): run a program with the shim,
## compare it with and without the shim, check a program, report on a trace.  It links nothing of the shim: it
## finds libreprise.so at run time (the build tree's when run from it, else
## the installed one in $(libdir)).  It shares the shim's option list
## (policy/options.def), how its choices are described (policy/values.c),
## how the ceiling is worded (policy/verdict.c) and why sequences do not
## repeat (policy/neighbours.c).

bin_PROGRAMS = tools/reprise/reprise
tools_reprise_reprise_SOURCES = \
	tools/reprise/main.c tools/reprise/reprise.h \
	tools/reprise/run.c \
	tools/reprise/compare.c \
	tools/reprise/timed_run.c tools/reprise/timed_run.h \
	tools/reprise/same_output.c tools/reprise/same_output.h \
	tools/reprise/summary_read.c tools/reprise/summary_read.h \
	tools/reprise/check.c \
	tools/reprise/report.c \
	tools/reprise/chrome.c tools/reprise/chrome.h \
	tools/reprise/trace_read.c tools/reprise/trace_read.h \
	tools/reprise/elf_read.c tools/reprise/elf_read.h \
	tools/reprise/json.c tools/reprise/json.h \
	policy/values.c policy/values.h \
	policy/verdict.c policy/verdict.h policy/activity.h \
	policy/neighbours.c policy/neighbours.h policy/signature.c policy/signature.h
tools_reprise_reprise_CPPFLAGS = $(AM_CPPFLAGS) -DREPRISE_LIBDIR='"$(libdir)"' $(CUDA_CPPFLAGS)
## REPRISE_LIBDIR is on the command line, which make does not compare: the objects depend on libdir.stamp
## (Makefile.am), so that a new --prefix or --libdir compiles them again.
$(tools_reprise_reprise_OBJECTS): libdir.stamp

TESTS += tests/reprise_run.sh tests/reprise_compare.sh tests/reprise_report.sh tests/reprise_check.sh
EXTRA_DIST += tests/reprise_run.sh tests/reprise_compare.sh tests/reprise_report.sh tests/reprise_check.sh

## Manual pages: the command, and the options (tests/reprise_man.sh checks
## reprise.7 against policy/options.def).
dist_man_MANS = tools/reprise/reprise.1 tools/reprise/reprise.7
TESTS += tests/reprise_man.sh
EXTRA_DIST += tests/reprise_man.sh

# SPDX-License-Identifier: MIT
## The developer scripts (tools/dev/): nothing here is installed.  The README's two commands (demo, install-deps),
## the checks CI runs after them (sanitize-check, prefix-check), one test alone (check-one), the GPU suite and
## the benchmarks and counts it runs (gpu-suite, bench-*, diagnose-overhead, callgrind-*, deferral-sweep, pin-check, host_cpus.py,
## which tests/host_cpus.sh tests), and the generator of the README's options table (options_doc).

## The options table for the README (tests/options_doc.sh compares them).
noinst_PROGRAMS += tools/dev/options_doc
tools_dev_options_doc_SOURCES = tools/dev/options_doc.c
tools_dev_options_doc_LDADD = libreprise_core.la

EXTRA_DIST += tools/dev/demo tools/dev/install-deps tools/dev/sanitize-check tools/dev/prefix-check \
	tools/dev/check-one tools/dev/layout-metrics \
	tools/dev/gpu-suite tools/dev/bench-auto tools/dev/bench-issue25 tools/dev/bench-zoo tools/dev/bench-overhead \
	tools/dev/diagnose-overhead \
	tools/dev/bench-segments tools/dev/bench-suite tools/dev/callgrind-auto tools/dev/callgrind-events \
	tools/dev/deferral-sweep tools/dev/pin-check tools/dev/host_cpus.py

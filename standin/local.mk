# SPDX-License-Identifier: MIT
## The CPU stand-in for CUDA 13's libcudart and libcuda (standin/README.md; docs/standin.md says what it models
## and how).  Test programs link it instead of the real runtime, and the shim, preloaded, reaches it through
## dlsym(RTLD_NEXT) as it reaches the real one.  The tests that use it, their programs and the fake libraries
## built on it are in tests/ (tests/standin/local.mk).  Nothing here is installed: every library is a check_
## one, built by `make check`; -rpath makes libtool build a real shared library out of a check_ one.

## The runtime stand-in's code, as a libtool convenience library (no -rpath): linked whole into
## libcudart_standin.la, which exports its cuda* names, and into the "static runtime" driver
## standin/static/libcuda.la, which exports none of them.
check_LTLIBRARIES += standin/libstandin_runtime.la standin/libcudart_standin.la
standin_libstandin_runtime_la_SOURCES = \
	standin/standin.h standin/standin_kernel.h \
	standin/error-table.h standin/errors.c standin/util.c standin/host_cost.c \
	standin/work.c standin/scheduler.c standin/streams.c \
	standin/events.c standin/memory.c standin/launch.c \
	standin/capture.c standin/graph.c standin/device.c standin/device_thread.c \
	standin/modules.c standin/context.c \
	standin/driver_entry.c standin/standin_driver.h
standin_libstandin_runtime_la_CPPFLAGS = $(CUDA_CPPFLAGS)
## The runtime stand-in, libcudart_standin.so: it loads the driver stand-in below as the real runtime loads libcuda.
standin_libcudart_standin_la_SOURCES = standin/loads_driver.c
standin_libcudart_standin_la_CPPFLAGS = \
	-DSTANDIN_DRIVER_PATH='"$(abs_top_builddir)/standin/driver/.libs/libcuda.so.1"'
standin_libcudart_standin_la_LDFLAGS = -rpath /nowhere -avoid-version -shared \
	-no-undefined -export-symbols-regex '^(cuda|__cuda|standin_)'
standin_libcudart_standin_la_LIBADD = standin/libstandin_runtime.la -ldl -lpthread

## The virtual host clock (standin/host_clock.c), preloaded before the shim by tests that assert what the
## shim decides from host time (tests/lib.sh's with_clock): CLOCK_MONOTONIC moves only by the host costs the
## stand-in was asked for, spent on it without sleeping.
check_LTLIBRARIES += standin/libstandin_clock.la
standin_libstandin_clock_la_SOURCES = standin/host_clock.c
standin_libstandin_clock_la_LDFLAGS = -rpath /nowhere -avoid-version -shared -no-undefined \
	-export-symbols-regex '^(clock_gettime|standin_clock_advance)$$'

## The driver stand-in (docs/design.md, "Seeing the driver API"): a libcuda.so.1 feeding the runtime
## stand-in's queues.  -Bsymbolic: the stand-in's own addresses (what cuGetProcAddress hands out) are its own,
## not the preloaded shim's exports of the same names, as in NVIDIA's.
check_LTLIBRARIES += standin/driver/libcuda.la
STANDIN_DRIVER_SOURCES = standin/libcuda.c standin/libcuda_capture.c \
	standin/libcuda_memory.c standin/libcuda_work.c standin/libcuda_module.c \
	standin/libcuda_graph.c standin/libcuda.h standin/standin_driver.h
standin_driver_libcuda_la_SOURCES = $(STANDIN_DRIVER_SOURCES)
standin_driver_libcuda_la_CPPFLAGS = $(CUDA_CPPFLAGS)
standin_driver_libcuda_la_LDFLAGS = -rpath /nowhere -version-info 1:0:0 -shared -no-undefined \
	-Wl,-Bsymbolic -export-symbols-regex '^(cu[A-Z]|standin_private_)'
standin_driver_libcuda_la_LIBADD = standin/libcudart_standin.la

## The driver as a program built with nvcc's default (static) runtime sees it (docs/standin.md, "The static
## runtime"): a second libcuda.so.1 with the whole runtime stand-in inside and none of its cuda* names exported.
check_LTLIBRARIES += standin/static/libcuda.la
standin_static_libcuda_la_SOURCES = $(STANDIN_DRIVER_SOURCES)
standin_static_libcuda_la_CPPFLAGS = $(CUDA_CPPFLAGS)
standin_static_libcuda_la_LDFLAGS = -rpath /nowhere -version-info 1:0:0 -shared -no-undefined \
	-Wl,-Bsymbolic -export-symbols-regex '^(cu[A-Z]|standin_)'
standin_static_libcuda_la_LIBADD = standin/libstandin_runtime.la -ldl -lpthread

## error-table.h is generated from the real libcudart by standin/gen-error-table.sh and kept in git.
EXTRA_DIST += standin/README.md standin/gen-error-table.sh

# SPDX-License-Identifier: MIT
# The sanitizers' options for the tests of a sanitizer build (configure --enable-asan or --enable-tsan),
# sourced before each test by Makefile.am's AM_TESTS_ENVIRONMENT; nothing in a plain build.  Every report
# ends its process with a non-zero status.  With SANITIZER_LOG_DIR set (tools/dev/sanitize-check), ASan's,
# LSan's and TSan's reports go to files there (asan.PID, tsan.PID), which a test that discards a program's
# stderr or status cannot hide; UBSan's go to stderr whatever log_path says (GCC 12's runtime, as ASan's
# plugin), but -fno-sanitize-recover=all makes each fatal.  Options already in the environment come after
# these, and win.
if [ -n "${SANITIZER_PRELOAD:-}" ]; then
    # verify_asan_link_order=0: `reprise run` puts the shim before the runtime in LD_PRELOAD (tests/lib.sh's
    # reprise_run), which ASan refuses unless told; the runtime still comes before libc, which is what it needs.
    # Leaks are reported (detect_leaks=1): the shim frees what it holds at exit, so a leak there is a bug;
    # tests/lsan.supp leaves out the reprise command, which reads its traces and exits without freeing them.
    asan="halt_on_error=1:detect_leaks=1:verify_asan_link_order=0"
    tsan="halt_on_error=1:second_deadlock_stack=1"
    if [ -n "${SANITIZER_LOG_DIR:-}" ]; then
        asan="$asan:log_path=$SANITIZER_LOG_DIR/asan"
        tsan="$tsan:log_path=$SANITIZER_LOG_DIR/tsan"
    fi
    ASAN_OPTIONS="$asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    TSAN_OPTIONS="$tsan${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS
    unset asan tsan
fi

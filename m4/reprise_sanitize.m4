# SPDX-License-Identifier: MIT
# REPRISE_SANITIZERS
# ------------------
# --enable-asan (AddressSanitizer and UndefinedBehaviorSanitizer) or
# --enable-tsan (ThreadSanitizer): adds the flags to CFLAGS, so that the
# shim, the stand-ins, the kernels' CPU twins, the test programs and the
# reprise command are all built with them (a target's own _CFLAGS replace
# AM_CFLAGS, never CFLAGS).  Substitutes SANITIZER_PRELOAD, empty or the
# sanitizer's runtime, which the tests put before the shim in LD_PRELOAD
# (tests/lib.sh): a program not built with it (a shell) must load it before
# libc.  Called last, so that configure's
# other checks are compiled without the flags.  tools/dev/sanitize-check builds
# and tests both.
AC_DEFUN([REPRISE_SANITIZERS], [
  AC_ARG_ENABLE([asan],
    [AS_HELP_STRING([--enable-asan],
      [build everything with -fsanitize=address,undefined (for tools/dev/sanitize-check)])],
    [], [enable_asan=no])
  AC_ARG_ENABLE([tsan],
    [AS_HELP_STRING([--enable-tsan],
      [build everything with -fsanitize=thread (for tools/dev/sanitize-check)])],
    [], [enable_tsan=no])
  SANITIZER=
  AS_IF([test "x$enable_asan" != xno && test "x$enable_tsan" != xno],
    [AC_MSG_ERROR([--enable-asan and --enable-tsan cannot be combined: configure one build of each])],
    [test "x$enable_asan" != xno],
    [SANITIZER=asan
     reprise_sanitize_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
     reprise_sanitize_runtime=libasan.so],
    [test "x$enable_tsan" != xno],
    [SANITIZER=tsan
     reprise_sanitize_flags="-fsanitize=thread -fno-omit-frame-pointer"
     reprise_sanitize_runtime=libtsan.so])
  SANITIZER_PRELOAD=
  AS_IF([test -n "$SANITIZER"], [
    reprise_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $reprise_sanitize_flags"
    AC_MSG_CHECKING([whether $CC links with $reprise_sanitize_flags])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([$CC cannot build with $reprise_sanitize_flags
         (Debian/Ubuntu: apt-get install libasan8 libubsan1 libtsan2, for GCC 12)])])
    AC_MSG_CHECKING([for the $SANITIZER runtime to preload])
    SANITIZER_PRELOAD=`$CC -print-file-name=$reprise_sanitize_runtime`
    AS_IF([test -f "$SANITIZER_PRELOAD"],
      [SANITIZER_PRELOAD=`readlink -f "$SANITIZER_PRELOAD"`; AC_MSG_RESULT([$SANITIZER_PRELOAD])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([$CC -print-file-name=$reprise_sanitize_runtime names no file])])
  ])
  AC_SUBST([SANITIZER_PRELOAD])
])

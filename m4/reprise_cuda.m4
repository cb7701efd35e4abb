# SPDX-License-Identifier: MIT
# REPRISE_CHECK_CUDA
# ------------------
# Finds the CUDA Toolkit headers (never its libraries: the shim reaches the
# program's own runtime through dlsym).  --with-cuda=PATH picks the toolkit;
# otherwise /usr/local/cuda, else the directory above `nvcc` on the PATH.
# Substitutes CUDA_HOME, CUDA_CPPFLAGS and NVCC; defines the HAVE_NVCC
# conditional.  Fails with a clear message when cuda_runtime_api.h is missing
# or older than CUDA 12.8, whose __cudaLaunchKernel the shim must hook.
AC_DEFUN([REPRISE_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=PATH],
      [CUDA Toolkit to compile against (default: /usr/local/cuda, else the one holding nvcc on the PATH)])],
    [], [with_cuda=check])

  AS_CASE([$with_cuda],
    [no], [AC_MSG_ERROR([reprise cannot be built without the CUDA Toolkit headers (--without-cuda given)])],
    [check|yes], [
      AS_IF([test -f /usr/local/cuda/include/cuda_runtime_api.h],
        [CUDA_HOME=/usr/local/cuda],
        [AC_PATH_PROG([NVCC_ON_PATH], [nvcc])
         AS_IF([test -n "$NVCC_ON_PATH"],
           [CUDA_HOME=`dirname "$NVCC_ON_PATH"`; CUDA_HOME=`dirname "$CUDA_HOME"`],
           [CUDA_HOME=/usr/local/cuda])])],
    [CUDA_HOME=$with_cuda])

  CUDA_CPPFLAGS="-I$CUDA_HOME/include"
  reprise_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
  AC_MSG_CHECKING([for cuda_runtime_api.h in $CUDA_HOME/include])
  AC_PREPROC_IFELSE([AC_LANG_SOURCE([[#include <cuda_runtime_api.h>]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([CUDA headers not found in $CUDA_HOME/include: install the CUDA Toolkit or pass --with-cuda=PATH])])
  AC_MSG_CHECKING([whether the CUDA runtime is 12.8 or newer])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
      [[#if CUDART_VERSION < 12080
        #error too old
        #endif]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([the CUDA Toolkit in $CUDA_HOME is older than 12.8; reprise needs 12.8 or newer (CUDA 13 recommended)])])
  CPPFLAGS=$reprise_save_CPPFLAGS

  AC_PATH_PROG([NVCC], [nvcc], [], [$CUDA_HOME/bin$PATH_SEPARATOR$PATH])
  AM_CONDITIONAL([HAVE_NVCC], [test -n "$NVCC"])
  AC_SUBST([CUDA_HOME])
  AC_SUBST([CUDA_CPPFLAGS])
])

# AX_REPRISE_PTHREAD
# ------------------
# Checks that -pthread works and adds it to CFLAGS and LIBS.
AC_DEFUN([AX_REPRISE_PTHREAD], [
  reprise_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -pthread"
  AC_MSG_CHECKING([whether $CC accepts -pthread])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pthread.h>]],
      [[pthread_once_t o = PTHREAD_ONCE_INIT; (void)o; pthread_self();]])],
    [AC_MSG_RESULT([yes]); LIBS="$LIBS -pthread"],
    [AC_MSG_RESULT([no]); CFLAGS=$reprise_save_CFLAGS
     AC_MSG_ERROR([POSIX threads are required])])
])

#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/conformance against the stand-in: the same output for several
# scheduler seeds, and byte for byte the output recorded on an H200
# (tests/standin/expected/conformance.out, see tests/gpu/standin-vs-gpu.sh).
. "${top_srcdir:-.}/tests/lib.sh"
same_as_gpu conformance "$top_builddir/tests/conformance" 60 2 3 7 42
finish

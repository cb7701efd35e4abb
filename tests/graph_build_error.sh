#!/bin/sh
# SPDX-License-Identifier: MIT
# A graph whose build fails half-way (region_graph.c's builder): the driver stand-in refuses the N-th node
# added (STANDIN_FAIL_GRAPH_NODE=N, standin/libcuda_graph.c), once.  fork_join (16 calls on 3 streams,
# kernels, copies and events) and pageable_h2d (staged copies: the staging buffer is allocated before the
# nodes) must exit 0 and print what they print without the shim; the log says why the region was not
# graphed, and the region's next build, from what the failed one left, is replayed.
. "${top_srcdir:-.}/tests/lib.sh"

# Runs scenario $1 under auto with the stand-in refusing node $2, and checks its output and log.
refuse_node() {
    name=$1.$2
    STANDIN_FAIL_GRAPH_NODE=$2 REPRISE_TRIAL=0 REPRISE_MIN_REGION_CALLS=1 REPRISE_LOG=info \
        with_shim "$top_builddir/tests/scenarios/$1" > "$WORK/$name.out" 2> "$WORK/$name.log" ||
        fail "$1 (node $2 refused) exited $?"
    cmp -s "$top_srcdir/tests/standin/expected/$1.out" "$WORK/$name.out" ||
        fail "$1 (node $2 refused): output differs from the run without the shim"
    expect_in "$WORK/$name.log" "region 2: not graphed: building the graph failed: CUDA_ERROR_OUT_OF_MEMORY"
    expect_in "$WORK/$name.log" "region 2: replayed as a graph"
    expect_not_in "$WORK/$name.log" "standin:"
}

# The first node, and nodes further in (after edges, on other streams).
for n in 1 4 7; do
    refuse_node fork_join $n
done
for n in 1 2 3; do
    refuse_node pageable_h2d $n
done
finish

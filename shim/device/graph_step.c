/* SPDX-License-Identifier: MIT */
/* What the calling thread is doing with one of the shim's graphs right now: for a crash report. */
#include "config.h"

#include "graph_step.h"

__thread unsigned char graph_step_now __attribute__((tls_model("initial-exec")));

/* The calling thread's step in words, for the crash report ("no graph launch or patch in flight"). */
const char *graph_step_words(void)
{
    switch ((enum graph_step)graph_step_now) {
    case GRAPH_STEP_BUILD:
        return "a graph build in flight (region_graph_build)";
    case GRAPH_STEP_PATCH:
        return "a graph patch in flight (its nodes' parameters set before its launch)";
    case GRAPH_STEP_LAUNCH:
        return "a graph launch in flight (cuGraphLaunch and the stream joins around it)";
    case GRAPH_STEP_CAPTURE:
        return "a robust-path capture ending in flight (its graph instantiated or updated, then launched)";
    case GRAPH_STEP_NONE:
        break;
    }
    return "no graph launch or patch in flight";
}

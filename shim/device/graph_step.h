/* SPDX-License-Identifier: MIT */
/* What the calling thread is doing with one of the shim's graphs right now: for a crash report. */
#ifndef REPRISE_GRAPH_STEP_H
#define REPRISE_GRAPH_STEP_H

enum graph_step {
    GRAPH_STEP_NONE,
    GRAPH_STEP_BUILD,   /* building a fast-path graph and its executable instance */
    GRAPH_STEP_PATCH,   /* patching the nodes of an executable instance */
    GRAPH_STEP_LAUNCH,  /* launching an executable instance */
    GRAPH_STEP_CAPTURE, /* ending a robust-path capture: its graph instantiated or updated, then launched */
};

/* The calling thread's step (initial-exec: a signal handler reads it). */
extern __thread unsigned char graph_step_now __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Sets the calling thread's step; one store, at a graph's build, patch, launch or capture, never per call. */
static inline void graph_step_set(enum graph_step step)
{
    graph_step_now = (unsigned char)step;
}

/* The calling thread's step in words, for the crash report ("no graph launch or patch in flight"). */
const char *graph_step_words(void);

#endif

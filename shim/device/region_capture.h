/* SPDX-License-Identifier: MIT */
/* The robust path: a region re-captured from the program's own calls each time, applied with cudaGraphExecUpdate. */
#ifndef REPRISE_REGION_CAPTURE_H
#define REPRISE_REGION_CAPTURE_H

#include <stdbool.h>

#include "driver_api.h"
#include "held_calls.h"

#define CAPTURE_STREAMS_MAX 16
#define CAPTURE_EVENTS_MAX 32

/* A region's executable graph on the robust path, brought up to date from each new capture. */
struct region_capture;

/* One capture in progress on a thread: the streams it holds and the events recorded in it. */
struct capture_session {
    bool active;
    cudaStream_t streams[CAPTURE_STREAMS_MAX]; /* streams[0] is the origin, where the graph is launched */
    unsigned stream_count;
    cudaEvent_t events[CAPTURE_EVENTS_MAX];   /* the program's events recorded inside the capture */
    unsigned event_count;
    cudaEvent_t waited[CAPTURE_EVENTS_MAX];   /* those recorded before it that it waits for: its wait nodes' */
    unsigned waited_count;
    bool waited_all;                          /* more than waited holds */
    cudaEvent_t joins[CAPTURE_STREAMS_MAX];   /* private, made on first need and kept: joins of streams[i] */
    cudaEvent_t after;                        /* private: the launch, joined by the other streams */
    cudaEvent_t fork;                         /* private: recorded as the capture begins, for streams to join it */
    /* Pinned copies of pageable copy sources, which the graph reads when it runs. */
    unsigned char *staging;
    size_t staging_size, staging_used, staging_needed;
    cudaEvent_t staging_free;                 /* recorded after a launch that reads the staging buffer */
    bool staging_in_flight;
};

/* What ending a capture did. */
enum capture_outcome {
    CAPTURE_UPDATED,      /* the region's executable graph was updated in place and launched */
    CAPTURE_INSTANTIATED, /* a new executable graph was made (first time, or the update was refused) and launched */
    CAPTURE_RESUBMITTED,  /* the capture was lost: the recorded calls were submitted one by one */
};

/* Whether libcuda has what the robust path captures with, beyond what the fast path uses; else *missing names it. */
bool capture_supported(const char **missing);

/* Whether a region starting on this stream can be captured: not the legacy or per-thread default stream. */
bool capture_stream_eligible(cudaStream_t stream);

/* Starts a relaxed-mode capture on origin through libcuda, unseen by the program, with room for staging_bytes. */
CUresult capture_begin(struct capture_session *s, cudaStream_t origin, size_t staging_bytes);

/* Whether stream takes part in the capture. */
bool capture_holds(const struct capture_session *s, cudaStream_t stream);

/*
 * Whether c can be forwarded into the capture, keeping it valid and in the
 * program's order: not on the legacy or per-thread stream, within the
 * session's bounds, and (from pageable memory) with room in the staging
 * buffer, which grows for the next capture if not.  On false, *why says
 * what stands in the way.
 */
bool capture_admits(struct capture_session *s, const struct call *c, bool pageable_source, const char **why);

/* Makes stream take part in the capture (joining it at its start) if it does not yet. */
CUresult capture_join(struct capture_session *s, cudaStream_t stream);

/* Forwards a recorded call into the capture and notes what it adds to it; returns what CUDA says. */
cudaError_t capture_forward(struct capture_session *s, const struct held_list *list, const struct held_call *r);

/*
 * Ends the capture and runs what it holds, in the program's order: through
 * *rc (created if NULL when keep, updated if it exists) or, if !keep,
 * through a one-time executable graph.  If the capture was lost, submits
 * the recorded calls one by one instead (their runtime errors owed to
 * this thread's cudaGetLastError, errors_owe).  *error has the first error
 * of the shim's own calls (the work has run or been submitted regardless);
 * *owed, what the program's next wait through the driver owes it: the
 * first error of the resubmitted driver calls, or of the ordering after a
 * launch.
 */
enum capture_outcome capture_finish(struct capture_session *s, struct region_capture **rc, bool keep,
                                    const struct held_list *list, CUresult *error, CUresult *owed);

/* Before a program event is destroyed: whether rc's executable graph has a wait node for it (rc must go first). */
bool region_capture_names_event(const struct region_capture *rc, cudaEvent_t event);

/* Destroys a region's robust-path graph. */
void region_capture_destroy(struct region_capture *rc);

/* Frees a session's private events (at exit). */
void capture_session_fini(struct capture_session *s);

#endif

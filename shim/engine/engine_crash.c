/* SPDX-License-Identifier: MIT */
/*
 * What a crash report tells of the faulting thread's engine state: which
 * region it follows and how, how many calls it holds back, the last call
 * it made, and whether it was building, patching or launching a graph.
 * Called in a signal handler on that thread (crash_report.c), so it reads
 * the tracker without its lock, as it is: another thread that submits this
 * one's held-back work at that moment may leave a value torn (the report
 * says so), and it only formats, with crash_line's async-signal-safe
 * functions.
 */
#include "config.h"

#include "engine.h"
#include "engine_crash.h"
#include "engine_fast.h"
#include "graph_step.h"

/* How the thread follows its sequence, in words. */
static const char *follow_words(const struct tracker *t)
{
    switch (t->mode) {
    case FOLLOW_NONE:
        return t->region ? "passing calls through, matching region " : "passing calls through (following no region)";
    case FOLLOW_RECORD:
        return "recording region ";
    case FOLLOW_REPLAY:
        return "replaying region ";
    case FOLLOW_RECAPTURE:
        return "replaying, by capture (the robust path), region ";
    }
    return "following, in an unknown way, region ";
}

/* Appends the thread's last call: the fast path's if it held one back since the engine's last call. */
static void append_last_call(struct crash_line *line, const struct tracker *t)
{
    const struct held_call *fast = fast_last_unsynced(t);
    unsigned api = fast ? (unsigned)fast->call.api : t->last_call.api;
    crash_line_text(line, "; last call ");
    if (api == LAST_CALL_NONE)
        crash_line_text(line, "none yet");
    else if (api == LAST_CALL_DIRECT)
        crash_line_text(line, t->last_call.direct ? t->last_call.direct : "a driver call");
    else
        crash_line_text(line, call_api_name((enum hook_id)api));
}

/* Appends the calling thread's engine state to line, for the crash report (in its signal handler). */
void engine_crash_state(struct crash_line *line)
{
    const struct tracker *t = self;
    if (t == NULL) {
        crash_line_text(line, "the engine has seen no call of this thread; ");
        crash_line_text(line, graph_step_words());
        return;
    }
    crash_line_text(line, "thread ");
    crash_line_number(line, t->thread_number);
    crash_line_text(line, " is ");
    crash_line_text(line, follow_words(t));
    const struct region *r = t->region;
    if (r) {
        crash_line_number(line, r->id);
        crash_line_text(line, " (");
        crash_line_number(line, r->length);
        crash_line_text(line, " calls)");
    }
    unsigned unsynced = fast_unsynced(t);
    crash_line_text(line, ", at call ");
    crash_line_number(line, t->observed_count + unsynced);
    crash_line_text(line, " of its sequence, with ");
    crash_line_number(line, holds_back_unlocked(t) ? t->records.count + unsynced : 0);
    crash_line_text(line, " calls held back");
    int others = atomic_load_explicit(&pending_trackers, memory_order_relaxed) - (tracker_counted(t) ? 1 : 0);
    if (others > 0) {
        crash_line_text(line, " (other threads holding calls back or recording: ");
        crash_line_number(line, (unsigned long long)others);
        crash_line_text(line, ")");
    }
    append_last_call(line, t);
    crash_line_text(line, "; ");
    crash_line_text(line, graph_step_words());
}

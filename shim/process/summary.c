/* SPDX-License-Identifier: MIT */
/* The exit summary: in the log for people, as an event in the trace. */
#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "log.h"
#include "observe.h"
#include "observe_sequences.h"
#include "settings.h"
#include "summary.h"
#include "trace.h"

/* A growing text buffer for the trace's exit event. */
struct text {
    char *buf;
    size_t len, cap;
};

/* Appends formatted text; gives up quietly when memory runs out. */
static void __attribute__((format(printf, 2, 3))) text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (t->buf && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)n;
        char *grown = realloc(t->buf, cap);
        if (grown == NULL)
            return;
        t->buf = grown, t->cap = cap;
    }
}

/* Appends "name":n to a JSON object (first: no comma before it yet) if n is not 0. */
static void text_add_count(struct text *t, bool *first, const char *name, unsigned long long n)
{
    if (n == 0)
        return;
    text_add(t, "%s\"%s\":%llu", *first ? "" : ",", name, n);
    *first = false;
}

/* A stream's name for people and for the trace. */
static void stream_label(cudaStream_t stream, char *buf, size_t len)
{
    if (stream == STREAM_NONE)
        snprintf(buf, len, "device");
    else if (stream == cudaStreamLegacy)
        snprintf(buf, len, "legacy");
    else if (stream == cudaStreamPerThread)
        snprintf(buf, len, "per-thread");
    else
        snprintf(buf, len, "%p", (void *)stream);
}

/* Logs one stream's nonzero counts. */
static void log_stream(cudaStream_t stream, const struct activity_counts *counts, void *ctx)
{
    (void)ctx;
    char label[32], line[512];
    size_t used = 0;
    line[0] = '\0';
    for (int a = 0; a < ACT_COUNT && used < sizeof line; a++) {
        if (counts->n[a] == 0)
            continue;
        int w = snprintf(line + used, sizeof line - used, "%s%llu %s", used ? ", " : "", counts->n[a],
                         activity_name(a));
        used += w > 0 ? (size_t)w : 0;
    }
    stream_label(stream, label, sizeof label);
    log_always(LOG_INFO, "stream %s: %s", label, used ? line : "nothing");
}

/* Adds one stream's counts to the trace's exit event. */
static void trace_stream(cudaStream_t stream, const struct activity_counts *counts, void *ctx)
{
    struct text *t = ctx;
    char label[32];
    stream_label(stream, label, sizeof label);
    text_add(t, "%s{\"stream\":\"%s\"", t->buf[t->len - 1] == '[' ? "" : ",", label);
    for (int a = 0; a < ACT_COUNT; a++)
        text_add(t, ",\"%s\":%llu", activity_name(a), counts->n[a]);
    text_add(t, "}");
}

/*
 * Why nothing was graphed, if sequences that do not repeat say it: auto
 * built no graph, or observe saw no sequence as often as auto builds one
 * (REPRISE_MIN_REPEATS sightings, then REPRISE_RECORDINGS recorded); into
 * why.  NULL if something was, or would be, graphed.
 */
static const struct no_repeat *why_nothing_graphed(struct no_repeat *why)
{
    bool nothing;
    if (shim_auto) {
        nothing = engine_no_repeat(why);
    } else {
        observe_no_repeat(why);
        nothing = !no_repeat_graphable(why, (unsigned)(shim_options.num[OPT_MIN_REPEATS] +
                                                       shim_options.num[OPT_RECORDINGS]));
    }
    return nothing && why->found ? why : NULL;
}

/* The trace's no_repeat event: the difference and its words, as reprise report reads them back. */
static void trace_no_repeat(const struct no_repeat *r)
{
    const struct sig_difference *d = &r->difference;
    const struct difference_words *w = &r->words;
    trace_event("no_repeat",
                "\"thread\":%u,\"call\":%u,\"field\":\"%s\",\"api\":\"%s\",\"kernel\":\"%s\",\"what\":\"%s\","
                "\"before\":\"%s\",\"after\":\"%s\",\"before_calls\":%u,\"after_calls\":%u,\"compared\":%llu,"
                "\"recurred\":%llu,\"compared_calls\":%llu,\"most_seen\":%u",
                r->thread, d->position + 1, sig_field_name(d->field), w->api, w->kernel, w->field, w->before,
                w->after, d->before_length, d->after_length, r->compared, r->recurred, r->compared_calls,
                r->most_seen);
}

/* Logs the summary (observe mode or REPRISE_STATS) and writes the exit event to the trace. */
void summary_at_exit(void)
{
    static atomic_bool done;
    if (atomic_exchange(&done, true))
        return;
    bool to_log = shim_options.num[OPT_MODE] == MODE_OBSERVE || shim_options.num[OPT_STATS];
    if (!to_log && !trace_enabled())
        return;
    const char *mode = shim_options.text[OPT_MODE];
    struct program_profile profile;
    observe_profile(&profile);
    profile.timed = shim_observing && !shim_auto; /* observe mode times; auto's held-back calls would not tell */
    struct no_repeat why;
    profile.no_repeat = shim_observing ? why_nothing_graphed(&why) : NULL;
    struct verdict verdict;
    describe_program(&profile, &verdict);
    if (profile.calls == 0 && profile.direct_calls == 0 && shim_observing) {
        /* A process that never reached CUDA (a shell or compiler a CUDA program started, preloaded too). */
        log_debug("exit: no CUDA call was made");
        to_log = false;
    }

    if (to_log && !shim_observing) {
        log_always(LOG_INFO, "exit: mode off: nothing was counted");
    } else if (to_log) {
        log_always(LOG_INFO, "exit: %llu calls intercepted, %u streams carried work", profile.calls, profile.streams);
        observe_each_stream(log_stream, NULL);
        char line[900];
        size_t used = 0;
        line[0] = '\0';
        for (int id = 0; id < HOOK_COUNT; id++)
            log_append_count(line, sizeof line, &used, hook_table[id].name, observe_hook_calls(id));
        if (used)
            log_always(LOG_INFO, "calls: %s", line);
        used = 0;
        line[0] = '\0';
        for (int id = 0; id < DRIVER_COUNT; id++)
            log_append_count(line, sizeof line, &used, driver_table[id].name, observe_driver_calls(id));
        if (used)
            log_always(LOG_INFO, "driver calls from outside the runtime: %s", line);
        unsigned long long communication = observe_communication_calls();
        if (communication)
            log_always(LOG_INFO,
                       "communication libraries: %llu of their calls (launches, copies, event records) passed through, "
                       "never held back; %llu calls intercepted in all",
                       communication, profile.calls + profile.direct_calls);
        char ceiling[VERDICT_LINE_LEN];
        if (profile.timed && describe_ceiling(&profile.ceiling, ceiling, sizeof ceiling))
            log_always(LOG_INFO, "ceiling: %s", ceiling);
        for (unsigned i = 0; i < verdict.count; i++)
            log_always(LOG_INFO, "verdict: %s", verdict.line[i]);
    }
    if (shim_auto && (to_log || trace_enabled())) {
        engine_summary(to_log);
        engine_governor_summary(to_log);
    }

    if (!trace_enabled())
        return;
    if (profile.no_repeat)
        trace_no_repeat(profile.no_repeat);
    struct text t = {0};
    text_add(&t, "\"mode\":\"%s\",\"calls_total\":%llu,\"calls\":{", mode, profile.calls);
    bool first = true;
    for (int id = 0; id < HOOK_COUNT; id++)
        text_add_count(&t, &first, hook_table[id].name, observe_hook_calls(id));
    text_add(&t, "},\"foreign_calls\":{");
    first = true;
    for (int id = 0; id < DRIVER_COUNT; id++)
        text_add_count(&t, &first, driver_table[id].name, observe_driver_calls(id));
    text_add(&t, "},\"communication_calls\":%llu,\"streams\":[", observe_communication_calls());
    if (t.buf)
        observe_each_stream(trace_stream, &t);
    text_add(&t, "],\"verdict\":[");
    for (unsigned i = 0; i < verdict.count; i++)
        text_add(&t, "%s\"%s\"", i ? "," : "", verdict.line[i]);
    text_add(&t, "]");
    if (profile.timed) {
        const struct ceiling *c = &profile.ceiling;
        text_add(&t, ",\"ceiling\":{\"share\":%.4f,\"node_calls\":%llu,\"node_ns\":%llu,\"between_syncs_ns\":%llu,"
                     "\"sync_ns\":%llu,\"spans\":%llu,\"warmup_ns\":%llu,\"warmup_spans\":%llu}",
                 ceiling_share(c), c->node_calls, c->node_ns, c->between_ns, c->sync_ns, c->spans, c->warmup_ns,
                 c->warmup_spans);
    }
    if (t.buf)
        trace_event("exit", "%s", t.buf);
    free(t.buf);
}

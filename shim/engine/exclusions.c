/* SPDX-License-Identifier: MIT */
/* What the user keeps out of graphs: kernels by name, streams by kind, priority or id (REPRISE_EXCLUDE_*). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "exclusions.h"
#include "call.h"
#include "kernel_params.h"
#include "held_calls.h"
#include "patterns.h"
#include "settings.h"
#include "stream_facts.h"

static struct stream_filter excluded_streams;

/* Reads REPRISE_EXCLUDE_STREAMS (already checked by the options); called once at init in auto mode. */
void exclusions_configure(void)
{
    char bad[64];
    /* A bad value leaves the filter empty; the options reported it and kept the default already. */
    (void)stream_filter_parse(shim_options.text[OPT_EXCLUDE_STREAMS], &excluded_streams, bad, sizeof bad);
}

/* The name of a kernel REPRISE_EXCLUDE_KERNELS names, or NULL; api is the function that launched it. */
static const char *excluded_kernel(const void *func, enum hook_id api)
{
    const char *name = kernel_name_of(func, kernel_handle_of(api));
    return name && name_matches_any(name, shim_options.text[OPT_EXCLUDE_KERNELS]) ? name : NULL;
}

/* Whether REPRISE_EXCLUDE_KERNELS names the kernel a launch through api names as func. */
bool kernel_excluded(const void *func, enum hook_id api)
{
    return shim_options.text[OPT_EXCLUDE_KERNELS][0] != '\0' && excluded_kernel(func, api) != NULL;
}

/* Whether an earlier signature of the region has the same stream (already judged). */
static bool stream_seen_before(const struct call_sig *sigs, unsigned i)
{
    for (unsigned j = 0; j < i; j++)
        if (sigs[j].stream == sigs[i].stream)
            return true;
    return false;
}

/* Names a region's streams as REPRISE_EXCLUDE_STREAMS can: "stream 7 (non_blocking), stream 1 (legacy)". */
void describe_streams(const struct call_sig *sigs, unsigned count, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < count && used < len; i++) {
        if (stream_seen_before(sigs, i))
            continue;
        struct stream_facts f = stream_facts_of((cudaStream_t)(uintptr_t)sigs[i].stream);
        int w = f.priority < 0 ? snprintf(buf + used, len - used, "%sstream %llu (%s, high_priority %d)",
                                          used ? ", " : "", f.id, stream_kind_name(f.kind), f.priority)
                               : snprintf(buf + used, len - used, "%sstream %llu (%s)", used ? ", " : "", f.id,
                                          stream_kind_name(f.kind));
        used += w > 0 ? (size_t)w : 0;
    }
}

/* Whether REPRISE_EXCLUDE_KERNELS or REPRISE_EXCLUDE_STREAMS names one of the region's kernels or streams. */
bool region_excluded(const struct call_sig *sigs, unsigned count, char *why, size_t why_len)
{
    bool check_kernels = shim_options.text[OPT_EXCLUDE_KERNELS][0] != '\0';
    bool check_streams = !stream_filter_empty(&excluded_streams);
    for (unsigned i = 0; i < count && (check_kernels || check_streams); i++) {
        const struct call_sig *sig = &sigs[i];
        const char *kernel;
        if (check_kernels && call_api_kind(sig->api) == CALL_LAUNCH &&
            (kernel = excluded_kernel((const void *)(uintptr_t)sig->target, (enum hook_id)sig->api)) != NULL) {
            snprintf(why, why_len, "it launches %s, which REPRISE_EXCLUDE_KERNELS names", kernel);
            return true;
        }
        if (!check_streams || stream_seen_before(sigs, i))
            continue;
        struct stream_facts f = stream_facts_of((cudaStream_t)(uintptr_t)sig->stream);
        if (stream_filter_matches(&excluded_streams, &f)) {
            snprintf(why, why_len, "it uses stream %llu (%s, priority %d), which REPRISE_EXCLUDE_STREAMS names", f.id,
                     stream_kind_name(f.kind), f.priority);
            return true;
        }
    }
    return false;
}

/* SPDX-License-Identifier: MIT */
/* A difference between two calls in words: the function, the kernel's name, the stream, what differs. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "call.h"
#include "call_words.h"
#include "event_refs.h"
#include "kernel_params.h"
#include "held_calls.h"
#include "stream_facts.h"

/* What a signature's target is, by the kind of call: "kernel", "host function", "event". */
static const char *target_word(const struct call_sig *sig)
{
    switch (call_kind_target(call_api_kind(sig->api))) {
    case CALL_TARGET_KERNEL: return "kernel";
    case CALL_TARGET_HOST_FUNC: return "host function";
    case CALL_TARGET_EVENT: return "event";
    default: return "target";
    }
}

/* The name of the kernel a launch's signature names, or NULL (not a launch, or the driver cannot tell). */
const char *call_sig_kernel_name(const struct call_sig *sig)
{
    if (call_api_kind(sig->api) != CALL_LAUNCH || sig->target == 0)
        return NULL;
    return kernel_name_of((const void *)(uintptr_t)sig->target, kernel_handle_of((enum hook_id)sig->api));
}

/* What a field is called for people. */
static const char *field_word(enum sig_field field, const struct call_sig *sig)
{
    switch (field) {
    case SIG_FIELD_API: return "function";
    case SIG_FIELD_TARGET: return target_word(sig);
    case SIG_FIELD_STREAM: return "stream";
    case SIG_FIELD_COPY_KIND: return "copy direction";
    case SIG_FIELD_BYTES: return "size";
    case SIG_FIELD_SHARED_MEM: return "shared memory";
    case SIG_FIELD_GRID: return "grid";
    case SIG_FIELD_BLOCK: return "block";
    case SIG_FIELD_FLAGS: return "flags";
    case SIG_FIELD_LENGTH: return "length";
    default: return "signature";
    }
}

/* Where a copy goes, by its cudaMemcpyKind (the signature's low byte). */
static const char *copy_direction(uint32_t copy_kind)
{
    static const char *const names[] = {"host to host", "host to device", "device to host", "device to device",
                                        "either way (cudaMemcpyDefault)"};
    unsigned kind = copy_kind & 0xff;
    return kind < sizeof names / sizeof names[0] ? names[kind] : "an unknown direction";
}

/* One call's value of field in words: a kernel's or a function's name, a stream's id and kind. */
static void value_words(enum sig_field field, const struct call_sig *sig, char *buf, size_t len)
{
    const char *name;
    if (field == SIG_FIELD_API) {
        snprintf(buf, len, "%s", call_api_name((enum hook_id)sig->api));
    } else if (field == SIG_FIELD_TARGET && (name = call_sig_kernel_name(sig)) != NULL) {
        snprintf(buf, len, "%s", name);
    } else if (field == SIG_FIELD_TARGET && call_kind_target(call_api_kind(sig->api)) == CALL_TARGET_EVENT) {
        event_ref_words(sig->target, buf, (unsigned)len); /* which earlier call named its event */
    } else if (field == SIG_FIELD_TARGET) {
        snprintf(buf, len, "0x%llx (no name known)", (unsigned long long)sig->target);
    } else if (field == SIG_FIELD_STREAM) {
        struct stream_facts f = stream_facts_of((cudaStream_t)(uintptr_t)sig->stream);
        snprintf(buf, len, "stream %llu (%s)", f.id, stream_kind_name(f.kind));
    } else if (field == SIG_FIELD_COPY_KIND) {
        snprintf(buf, len, "%s", copy_direction(sig->copy_kind));
    } else {
        sig_field_value(field, sig, buf, len);
    }
}

/* Makes a word safe in a JSON string and a log line: quotes, backslashes and control characters become '?'. */
static void plain(char *word)
{
    for (unsigned char *c = (unsigned char *)word; *c; c++)
        if (*c == '"' || *c == '\\' || *c < 0x20)
            *c = '?';
}

/* Fills w for difference d: the function and kernel at its position, what differs and both values. */
void difference_in_words(const struct sig_difference *d, struct difference_words *w)
{
    const struct call_sig *at = d->position < d->before_length ? &d->before : &d->after;
    const char *kernel = call_sig_kernel_name(at);
    snprintf(w->api, sizeof w->api, "%s", call_api_name((enum hook_id)at->api));
    snprintf(w->kernel, sizeof w->kernel, "%s", kernel ? kernel : "");
    snprintf(w->field, sizeof w->field, "%s", field_word(d->field, at));
    w->before[0] = w->after[0] = '\0';
    if (d->field != SIG_FIELD_LENGTH) {
        value_words(d->field, &d->before, w->before, sizeof w->before);
        value_words(d->field, &d->after, w->after, sizeof w->after);
    }
    char *words[] = {w->api, w->kernel, w->field, w->before, w->after};
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++)
        plain(words[i]);
}

/* SPDX-License-Identifier: MIT */
/* Unit tests of event references: how an event call's event relates to its sequence's earlier event calls. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "event_refs.h"

/*
 * The references of a sequence given as letters, one event call each ('a'
 * + k names event k of the pool, '.' a call naming none), into refs;
 * offset shifts every handle (another pool).
 */
static void refs_of(struct event_refs *r, const char *calls, uint64_t offset, uint64_t *refs)
{
    event_refs_reset(r);
    for (unsigned i = 0; calls[i]; i++)
        refs[i] = calls[i] == '.' ? 0xdead : event_refs_note(r, offset + (uint64_t)(calls[i] - 'a') * 64, i);
}

int main(void)
{
    struct event_refs r = {0};
    uint64_t one[16], two[16];

    /* A wait for an event recorded just before, then again three calls on; a new event; the first again. */
    CHECK(event_refs_note(&r, 0x100, 0) == EVENT_REF_NEW);
    CHECK(event_refs_note(&r, 0x100, 1) == 1);
    CHECK(event_refs_note(&r, 0x200, 2) == EVENT_REF_NEW);
    CHECK(event_refs_note(&r, 0x100, 4) == 3);
    CHECK(event_refs_note(&r, 0x200, 7) == 5);
    CHECK(event_refs_named_since(&r, 0x100, 4) && !event_refs_named_since(&r, 0x100, 5));
    CHECK(event_refs_named_since(&r, 0x200, 7) && !event_refs_named_since(&r, 0x300, 0));
    event_refs_reset(&r);
    CHECK(!event_refs_named_since(&r, 0x100, 0) && event_refs_note(&r, 0x100, 0) == EVENT_REF_NEW);

    /* A pool's events in turn: each occurrence names others, and relates them alike. */
    refs_of(&r, "a..ab..b", 0, one);
    refs_of(&r, "c..cd..d", 0, two);
    CHECK(memcmp(one, two, 8 * sizeof *one) == 0);
    refs_of(&r, "a..ab..b", 4096, two);
    CHECK(memcmp(one, two, 8 * sizeof *one) == 0);
    /* A wait for an event recorded earlier in the region is not one for an event recorded before it. */
    refs_of(&r, "a..ab..a", 0, two);
    CHECK(memcmp(one, two, 8 * sizeof *one) != 0 && two[7] == 4);
    refs_of(&r, "a..bb..b", 0, two);
    CHECK(memcmp(one, two, 8 * sizeof *one) != 0 && two[3] == EVENT_REF_NEW);
    /* The same event in both halves of a doubled sequence is not two events of a pool. */
    refs_of(&r, "a.aa.a", 0, one);
    refs_of(&r, "a.ab.b", 0, two);
    CHECK(one[3] == 1 && two[3] == EVENT_REF_NEW && memcmp(one, two, 3 * sizeof *one) == 0);

    /* Full: a new event is unknown, a known one still found. */
    event_refs_reset(&r);
    uint64_t last = 0;
    for (unsigned i = 0; i < EVENT_REFS_MAX; i++)
        last |= event_refs_note(&r, 1000 + i, i);
    CHECK(last == EVENT_REF_NEW);
    CHECK(event_refs_note(&r, 999, EVENT_REFS_MAX) == EVENT_REF_UNKNOWN);
    CHECK(event_refs_note(&r, 1000, EVENT_REFS_MAX + 1) == EVENT_REFS_MAX + 1);

    char words[64];
    CHECK_STR_EQ(event_ref_words(EVENT_REF_NEW, words, sizeof words), "an event new to the sequence");
    CHECK_STR_EQ(event_ref_words(3, words, sizeof words), "the event named 3 calls before");
    CHECK_STR_EQ(event_ref_words(1, words, sizeof words), "the event named 1 call before");
    event_refs_free(&r);
    return check_result("test_event_refs");
}

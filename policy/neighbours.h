/* SPDX-License-Identifier: MIT */
/* Why sequences do not repeat: each sequence compared with its neighbour, the thread's last one that began alike. */
#ifndef REPRISE_NEIGHBOURS_H
#define REPRISE_NEIGHBOURS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signature.h"

/*
 * A field of struct call_sig, in the order two calls are looked at: the
 * first that differs is the one said.  The comparison goes over whatever
 * fields the signature has (sig_first_field): one that no longer tells
 * calls apart (always 0) never differs, and one added later shows as
 * SIG_FIELD_OTHER until it gets a row of its own.
 */
enum sig_field {
    SIG_FIELD_API,        /* the function called */
    SIG_FIELD_TARGET,     /* the kernel, host function or event */
    SIG_FIELD_STREAM,
    SIG_FIELD_COPY_KIND,
    SIG_FIELD_BYTES,
    SIG_FIELD_SHARED_MEM,
    SIG_FIELD_GRID,
    SIG_FIELD_BLOCK,
    SIG_FIELD_FLAGS,
    SIG_FIELD_OTHER,      /* none of the above: a field struct call_sig gained since */
    SIG_FIELD_LENGTH,     /* one sequence ended where the other went on */
    SIG_FIELD_COUNT
};

/* The field's name in the trace ("target", "grid"); "?" for none. */
const char *sig_field_name(enum sig_field field);

/* The field the trace names so, or SIG_FIELD_COUNT. */
enum sig_field sig_field_named(const char *name);

/* The first field (in enum sig_field's order) in which a and b differ; SIG_FIELD_COUNT if they are the same. */
enum sig_field sig_first_field(const struct call_sig *a, const struct call_sig *b);

/* A field's value for people, where no name says more (bytes, grid, flags): "4096 bytes", "(16, 1, 1)". */
void sig_field_value(enum sig_field field, const struct call_sig *sig, char *buf, size_t len);

/* Where two sequences first differ. */
struct sig_difference {
    unsigned position;             /* the first call that differs, from 0 */
    enum sig_field field;
    struct call_sig before, after; /* the earlier and the later sequence's call there (zeros where one ended) */
    unsigned before_length, after_length;
};

/* Compares the earlier sequence a (na calls) with the later b (nb); false if they are the same, else *d says where. */
bool sequences_differ(const struct call_sig *a, unsigned na, const struct call_sig *b, unsigned nb,
                      struct sig_difference *d);

#define NEIGHBOURS_WORD_LEN 128

/* A difference in words: the shim names kernels and streams as it finds it; reprise report reads them back. */
struct difference_words {
    char api[64];                     /* the function called at that position: "cudaLaunchKernel" */
    char kernel[NEIGHBOURS_WORD_LEN]; /* the kernel it launches, "" when none or unknown */
    char field[32];                   /* what differs: "kernel", "stream", "grid" */
    char before[NEIGHBOURS_WORD_LEN], after[NEIGHBOURS_WORD_LEN];
};

/* What a thread's sequences showed, or a whole program's (no_repeat_merge). */
struct no_repeat {
    unsigned long long compared;       /* sequences that had a neighbour (an earlier one that began alike) */
    unsigned long long recurred;       /* of those, the same as one of the last few that began alike */
    unsigned long long compared_calls; /* the calls of the compared sequences: their mean length */
    unsigned most_seen;                /* the most times one sequence was seen, of those remembered */
    bool found;                        /* difference and words hold the first difference found */
    unsigned thread;                   /* where it was found (the log's thread number; the shim sets it) */
    struct sig_difference difference;
    struct difference_words words;
};

/* Different first calls followed at once, and sequences remembered for each. */
#define NEIGHBOURS_SLOTS 8
#define NEIGHBOURS_KEPT 16

/* The sequences of one thread that began with one call. */
struct neighbour_slot {
    uint64_t first;      /* sig_hash of the first call; 0: free */
    uint64_t last_used;  /* the watcher's clock when last fed */
    struct call_sig *sigs; /* the last of them, whole */
    unsigned count, capacity;
    uint64_t hash;       /* its hash */
    uint64_t kept[NEIGHBOURS_KEPT]; /* the hashes of the last few different ones, and how often each was seen */
    unsigned seen[NEIGHBOURS_KEPT];
};

/* The calls where the last sequence fed differed from its neighbour, kept only while asked for (explain_left). */
#define NEIGHBOURS_EXPLAINED 8

struct neighbour_differences {
    unsigned count;  /* differences kept in at (at most NEIGHBOURS_EXPLAINED), from the first call on; 0: none */
    unsigned total;  /* calls that differ in all, the one where a sequence ended counted once */
    struct sig_difference at[NEIGHBOURS_EXPLAINED];
};

/* One thread's watch over its sequences (zeroed: empty).  Its buffers grow at most once a sequence, never shrink. */
struct neighbours {
    struct neighbour_slot slots[NEIGHBOURS_SLOTS];
    uint64_t clock;
    struct no_repeat summary;
    unsigned explain_left;                 /* sequences that differ from their neighbour still to be explained */
    struct neighbour_differences explained; /* the last one explained, while explain_left was above 0 */
};

/*
 * Feeds a complete sequence of count calls (hash: its hash, as the caller
 * computes it for every sequence; 0 to have it computed).  sightings: how
 * many times the caller has seen it, this time included (a region's); 0
 * if it does not count them: the watch then counts among the last few
 * that began alike (NEIGHBOURS_KEPT), which misses sequences that recur
 * only after more others.  Compared with its neighbour: O(count), a copy
 * of it at most.  Returns true when it found the thread's first
 * difference: the caller then fills summary.words.  While explain_left
 * is above 0, a sequence that differs from its neighbour is explained
 * (every call that differs, into explained; O(count) more) and
 * explain_left counts down; explained.count is 0 when this one was not.
 */
bool neighbours_sequence(struct neighbours *n, const struct call_sig *sigs, unsigned count, uint64_t hash,
                         unsigned sightings);

/*
 * Every call where two sequences differ, not only the first (the earlier
 * a, na calls, the later b, nb): the first NEIGHBOURS_EXPLAINED into
 * out->at, in order, and how many in all.  Returns out->total.
 */
unsigned sequences_differences(const struct call_sig *a, unsigned na, const struct call_sig *b, unsigned nb,
                               struct neighbour_differences *out);

/* Frees the watch's buffers; it is empty again. */
void neighbours_free(struct neighbours *n);

/* Adds a thread's summary into a program's: the counts; the difference of the first that has one. */
void no_repeat_merge(struct no_repeat *into, const struct no_repeat *from);

/* Whether some sequence was seen often enough to be graphed: needed times (REPRISE_MIN_REPEATS and recordings). */
bool no_repeat_graphable(const struct no_repeat *r, unsigned needed);

/* Where two neighbouring sequences first differ, in words: "call 2, cudaLaunchKernel: its kernel k_scale then k_axpy". */
void describe_difference(const struct sig_difference *d, const struct difference_words *w, char *line, size_t len);

/*
 * The difference in one sentence ("sequences of about 9 calls never repeat:
 * the first difference between two neighbouring ones is call 2,
 * cudaLaunchKernel: its kernel k_scale then k_axpy"); false, and line
 * empty, if none was found.
 */
bool describe_no_repeat(const struct no_repeat *r, char *line, size_t len);

#endif

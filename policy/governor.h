/* SPDX-License-Identifier: MIT */
/*
 * The governor: whether auto mode pays for the whole process, judged by the program's own progress.  Epochs with
 * the engine on and stepped aside alternate, and the same stretches between host syncs are timed in both.
 */
#ifndef REPRISE_GOVERNOR_H
#define REPRISE_GOVERNOR_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Auto mode keeps running only if, for the same stretches, it takes less
 * than this fraction of the time they take stepped aside.  A tie steps
 * aside: that is the program as written, and a gain of under 2% is within
 * what a few epochs of host timings can tell apart.
 */
#define GOVERNOR_MARGIN 0.98

#define GOVERNOR_KEYS 16     /* kinds of stretch an epoch tells apart; the rest count only in its total */
#define GOVERNOR_SAMPLES 64  /* stretches of one kind an epoch keeps (the last ones) */
#define GOVERNOR_PAIRS_MAX 8 /* pairs of epochs one probe can compare */

/* Where the governor is. */
enum governor_state {
    GOVERNOR_LEARN,   /* auto, while the engine finds its regions and builds their graphs */
    GOVERNOR_PROBE,   /* epochs alternate, auto and stepped aside, in pairs */
    GOVERNOR_SETTLED, /* a verdict is in force until the next probe */
};

/* What runs: the engine (auto mode proper) or nothing (stepped aside: the wrappers forward, as in off mode). */
enum governor_way {
    GOVERNOR_AUTO,
    GOVERNOR_ASIDE,
};

/* The governor's bounds, in nanoseconds of the host's monotonic clock and in stretches. */
struct governor_params {
    uint64_t epoch_ns;         /* an epoch lasts at least this long */
    unsigned epoch_stretches;  /* and holds at least this many stretches */
    unsigned pairs;            /* pairs a probe compares (at most GOVERNOR_PAIRS_MAX) */
    unsigned min_key_samples;  /* a kind of stretch is compared only with this many in each epoch of a pair */
    uint64_t learn_ns;         /* learning lasts at least this long from the first stretch */
    unsigned learn_stretches;  /* and this many stretches */
    uint64_t learn_quiet_ns;   /* and until no graph was built for this long */
    uint64_t learn_max_ns;     /* but no longer than this */
    uint64_t backoff_ns;       /* the first wait for the next probe after a verdict */
    uint64_t backoff_max_ns;   /* the longest, after the same verdict again and again */
};

/* One kind of stretch seen in an epoch: the host sync that ended it. */
struct governor_kind {
    uint64_t key;
    unsigned count;                     /* stretches of this kind */
    uint64_t sum_ns;                    /* their time */
    uint64_t samples[GOVERNOR_SAMPLES]; /* the last min(count, GOVERNOR_SAMPLES), a ring */
};

/* What one epoch saw. */
struct governor_epoch {
    struct governor_kind kinds[GOVERNOR_KEYS];
    unsigned kind_count;
    unsigned stretches;
    uint64_t total_ns; /* every stretch's time, kinds beyond GOVERNOR_KEYS included */
};

/* An epoch in short: each kind's typical stretch (the mean of its middle half) and count. */
struct governor_summary {
    unsigned kind_count;
    uint64_t key[GOVERNOR_KEYS];
    double typical_ns[GOVERNOR_KEYS];
    unsigned count[GOVERNOR_KEYS];
    uint64_t sum_ns[GOVERNOR_KEYS];
    uint64_t total_ns;
};

/* A probe's outcome. */
struct governor_verdict {
    enum governor_way way;
    double ratio;   /* median over pairs of auto's time / aside's for the same stretches; 0 if nothing compared */
    unsigned pairs; /* pairs it was drawn from (0: nothing compared, auto kept) */
    uint64_t at_ns; /* when */
};

/* What the caller must do, and tell, after governor_tick. */
struct governor_news {
    bool switch_way;    /* switch to g->way, then call governor_switched (or governor_switch_failed) */
    bool probe_started; /* a probe began (from learning, or after a back-off) */
    bool verdict;       /* a probe ended: g->verdict holds it */
};

/* The governor of one process.  Not thread-safe: its caller serialises every call. */
struct governor {
    struct governor_params params;
    enum governor_state state;
    enum governor_way way;  /* what runs now, or is being switched to */
    bool switching;         /* between governor_tick's switch_way and governor_switched */
    unsigned epoch;         /* the current epoch's number: stretches begun in another are not counted */
    uint64_t epoch_start;
    bool started;            /* a stretch was seen: learning is timed from started_ns */
    uint64_t started_ns;
    unsigned learn_stretches;
    unsigned long builds_seen;
    uint64_t last_build_ns;
    struct governor_epoch current;
    struct governor_summary first; /* the first epoch of the pair under way */
    enum governor_way first_way;
    bool in_second;                /* the current epoch is its pair's second */
    double ratios[GOVERNOR_PAIRS_MAX];
    unsigned ratio_count, pairs_tried;
    struct governor_verdict verdict; /* the last one (pairs 0 and at_ns 0: none yet) */
    unsigned verdicts;
    uint64_t backoff_ns;
    uint64_t next_probe;
    uint64_t way_since;   /* when the way in force began */
    uint64_t aside_ns;    /* time stepped aside before way_since */
    uint64_t first_aside; /* when the process first stepped aside after a verdict (0: never) */
};

/* Starts a governor in LEARN (auto) at time now. */
void governor_init(struct governor *g, const struct governor_params *params, uint64_t now);

/* Whether stretches are wanted: while learning (counted) and probing (timed); not while a verdict holds. */
bool governor_measures(const struct governor *g);

/* A stretch of ns, ended by a host sync of kind key, that began in epoch `epoch`; counted if that is the current. */
void governor_add(struct governor *g, unsigned epoch, uint64_t key, uint64_t ns);

/* Moves on at time now (builds: graphs built so far in the process): ends learning, an epoch, a probe, a back-off. */
struct governor_news governor_tick(struct governor *g, uint64_t now, unsigned long builds);

/* The switch governor_tick asked for is done at time now: the next epoch, or the verdict's stay, begins. */
void governor_switched(struct governor *g, uint64_t now);

/* The engine could not step aside (work it must see through is still owed): auto stays, until the next probe. */
void governor_switch_failed(struct governor *g, uint64_t now);

/* When governor_tick has something to do with no stretch coming (the next probe); 0 if nothing. */
uint64_t governor_wake_at(const struct governor *g);

/* How long the process has been stepped aside in all, up to now. */
uint64_t governor_aside_ns(const struct governor *g, uint64_t now);

/* What a ratio (auto's time / aside's) means, for the log: "cost 14%", "save 35%", "save only 1.2%". */
void governor_describe_ratio(double ratio, char *out, unsigned len);

#endif

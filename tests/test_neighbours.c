/* SPDX-License-Identifier: MIT */
/* Unit tests of why sequences do not repeat: neighbouring sequences compared, the first difference said. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "neighbours.h"

#define KERNEL_A 0x1000
#define KERNEL_B 0x2000
#define STREAM_S 0x7000

/* A launch of kernel on stream s with grid x (the api id is made up: the policy knows no CUDA). */
static struct call_sig launch(uint64_t kernel, uint64_t s, unsigned x)
{
    return (struct call_sig){.api = 3, .stream = s, .target = kernel, .grid = {x, 1, 1}, .block = {256, 1, 1}};
}

/* The first field that differs is the one said, whatever the field; the same calls differ in none. */
static void test_fields(void)
{
    struct call_sig a = launch(KERNEL_A, STREAM_S, 4), b = a;
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_COUNT);
    b.target = KERNEL_B;
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_TARGET);
    b = a, b.stream = STREAM_S + 1;
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_STREAM);
    b = a, b.grid[2] = 2;
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_GRID);
    b = a, b.block[0] = 128;
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_BLOCK);
    b = a, b.bytes = 64;
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_BYTES);
    b = a, b.api = 4, b.target = KERNEL_B; /* another function comes first */
    CHECK(sig_first_field(&a, &b) == SIG_FIELD_API);
    for (int f = 0; f < SIG_FIELD_COUNT; f++)
        CHECK(sig_field_named(sig_field_name((enum sig_field)f)) == (enum sig_field)f);
    CHECK(sig_field_named("bogus") == SIG_FIELD_COUNT);
    char value[64];
    b = a, b.grid[0] = 16;
    sig_field_value(SIG_FIELD_GRID, &b, value, sizeof value);
    CHECK_STR_EQ(value, "(16, 1, 1)");
    b.bytes = 4096;
    sig_field_value(SIG_FIELD_BYTES, &b, value, sizeof value);
    CHECK_STR_EQ(value, "4096 bytes");
}

/* Two sequences: the same, or the first position and field that differ, or where one ends. */
static void test_sequences(void)
{
    struct call_sig a[4] = {launch(KERNEL_A, STREAM_S, 4), launch(KERNEL_A, STREAM_S, 4),
                            launch(KERNEL_B, STREAM_S, 4), launch(KERNEL_A, STREAM_S, 4)};
    struct call_sig b[5];
    memcpy(b, a, sizeof a);
    struct sig_difference d;
    CHECK(!sequences_differ(a, 4, b, 4, &d));
    b[2].target = KERNEL_A;
    b[3].stream = STREAM_S + 1; /* later: the first difference is said */
    CHECK(sequences_differ(a, 4, b, 4, &d));
    CHECK(d.position == 2 && d.field == SIG_FIELD_TARGET);
    CHECK(d.before.target == KERNEL_B && d.after.target == KERNEL_A);
    memcpy(b, a, sizeof a);
    b[4] = launch(KERNEL_B, STREAM_S, 8);
    CHECK(sequences_differ(a, 4, b, 5, &d));
    CHECK(d.position == 4 && d.field == SIG_FIELD_LENGTH && d.before_length == 4 && d.after_length == 5);
    CHECK(d.after.target == KERNEL_B && d.before.target == 0);
    CHECK(sequences_differ(b, 5, a, 4, &d));
    CHECK(d.position == 4 && d.field == SIG_FIELD_LENGTH && d.before.target == KERNEL_B);
}

/* Every call that differs is listed (the first NEIGHBOURS_EXPLAINED), with the count of all; a watch explains while asked. */
static void test_every_difference(void)
{
    struct call_sig a[20], b[21];
    for (unsigned i = 0; i < 20; i++)
        a[i] = launch(KERNEL_A, STREAM_S, 4);
    memcpy(b, a, sizeof a);
    b[3].target = KERNEL_B;
    b[7].bytes = 64;
    struct neighbour_differences diffs;
    CHECK(sequences_differences(a, 20, b, 20, &diffs) == 2);
    CHECK(diffs.count == 2 && diffs.at[0].position == 3 && diffs.at[0].field == SIG_FIELD_TARGET);
    CHECK(diffs.at[1].position == 7 && diffs.at[1].field == SIG_FIELD_BYTES && diffs.at[1].after.bytes == 64);
    CHECK(sequences_differences(a, 20, a, 20, &diffs) == 0 && diffs.count == 0);
    for (unsigned i = 1; i < 20; i += 2)
        b[i].stream = STREAM_S + 1;
    b[20] = a[0];
    CHECK(sequences_differences(a, 20, b, 21, &diffs) == 11); /* calls 1, 3, ..., 19 and the length */
    CHECK(diffs.count == NEIGHBOURS_EXPLAINED && diffs.at[0].position == 1 && diffs.at[0].field == SIG_FIELD_STREAM);
    CHECK(diffs.at[NEIGHBOURS_EXPLAINED - 1].position == 2 * NEIGHBOURS_EXPLAINED - 1);

    struct neighbours n = {.explain_left = 1};
    neighbours_sequence(&n, a, 20, 0, 1);
    CHECK(n.explained.count == 0); /* no neighbour yet */
    neighbours_sequence(&n, b, 21, 0, 1);
    CHECK(n.explained.count == NEIGHBOURS_EXPLAINED && n.explained.total == 11 && n.explain_left == 0);
    neighbours_sequence(&n, a, 20, 0, 1);
    CHECK(n.explained.count == 0); /* differs again, but no longer asked */
    neighbours_free(&n);
}

/* A sequence of 9 launches whose calls 2 to 9 are kernel A or B as the bits of pattern say. */
static void pattern(struct call_sig *seq, unsigned bits)
{
    seq[0] = launch(KERNEL_A, STREAM_S, 1);
    for (unsigned i = 1; i < 9; i++)
        seq[i] = launch(bits >> (i - 1) & 1 ? KERNEL_B : KERNEL_A, STREAM_S, 4);
}

/* A loop whose every iteration differs: the first difference found once, nothing seen twice. */
static void test_never_repeats(void)
{
    struct neighbours n = {0};
    struct call_sig seq[9];
    unsigned found = 0;
    for (unsigned it = 0; it < 40; it++) {
        pattern(seq, it);
        found += neighbours_sequence(&n, seq, 9, 0, 0);
    }
    CHECK(found == 1);
    const struct no_repeat *r = &n.summary;
    CHECK(r->found && r->compared == 39 && r->recurred == 0 && r->most_seen == 1);
    CHECK(r->difference.position == 1 && r->difference.field == SIG_FIELD_TARGET);
    CHECK(r->difference.before.target == KERNEL_A && r->difference.after.target == KERNEL_B);
    CHECK(!no_repeat_graphable(r, 2));
    struct no_repeat said = *r;
    strcpy(said.words.api, "cudaLaunchKernel");
    strcpy(said.words.kernel, "k_scale");
    strcpy(said.words.field, "kernel");
    strcpy(said.words.before, "k_scale");
    strcpy(said.words.after, "k_axpy");
    char line[512];
    CHECK(describe_no_repeat(&said, line, sizeof line));
    CHECK_STR_EQ(line, "sequences of about 9 calls never repeat: the first difference between two neighbouring ones "
                       "is call 2, cudaLaunchKernel: its kernel k_scale then k_axpy");
    describe_difference(&said.difference, &said.words, line, sizeof line);
    CHECK_STR_EQ(line, "call 2, cudaLaunchKernel: its kernel k_scale then k_axpy");
    said.difference.field = SIG_FIELD_GRID; /* the kernel named, the field's values said */
    strcpy(said.words.field, "grid");
    strcpy(said.words.before, "(4, 1, 1)");
    strcpy(said.words.after, "(8, 1, 1)");
    CHECK(describe_no_repeat(&said, line, sizeof line));
    CHECK_CONTAINS(line, "is call 2, cudaLaunchKernel of k_scale: its grid (4, 1, 1) then (8, 1, 1)");
    neighbours_free(&n);
    CHECK(n.summary.compared == 0 && !describe_no_repeat(&n.summary, line, sizeof line) && line[0] == '\0');
}

/* The same sequence again is no difference, and two that take turns both recur: graphable, though they differ. */
static void test_recurring(void)
{
    struct neighbours n = {0};
    struct call_sig seq[9];
    for (unsigned it = 0; it < 5; it++) {
        pattern(seq, 0x5);
        CHECK(!neighbours_sequence(&n, seq, 9, 0, 0));
    }
    CHECK(!n.summary.found && n.summary.compared == 4 && n.summary.recurred == 4 && n.summary.most_seen == 5);
    neighbours_free(&n);
    unsigned found = 0;
    for (unsigned it = 0; it < 10; it++) {
        pattern(seq, it % 2 ? 0x5 : 0x6);
        found += neighbours_sequence(&n, seq, 9, 0, 0);
    }
    CHECK(found == 1 && n.summary.recurred == 8 && n.summary.most_seen == 5);
    CHECK(no_repeat_graphable(&n.summary, 5) && !no_repeat_graphable(&n.summary, 6));
    CHECK(n.summary.difference.position == 1); /* 0x6 then 0x5: bit 0 differs first */
    char line[512];
    strcpy(n.summary.words.api, "cudaLaunchKernel");
    CHECK(describe_no_repeat(&n.summary, line, sizeof line));
    CHECK_CONTAINS(line, "sequences of about 9 calls repeat too rarely to graph (8 of 9 were seen before)");
    neighbours_free(&n);
    /* As many sequences in turn as the watch remembers, three times: each seen three times. */
    for (unsigned it = 0; it < 3 * NEIGHBOURS_KEPT; it++) {
        pattern(seq, it % NEIGHBOURS_KEPT);
        neighbours_sequence(&n, seq, 9, 0, 0);
    }
    CHECK(n.summary.recurred == 2 * NEIGHBOURS_KEPT && n.summary.most_seen == 3);
    neighbours_free(&n);
    /* More than it remembers: some are not found again; the caller may count their sightings instead. */
    unsigned sightings[NEIGHBOURS_KEPT + 8] = {0}, kinds = NEIGHBOURS_KEPT + 8;
    for (unsigned it = 0; it < 3 * kinds; it++) {
        pattern(seq, it % kinds);
        neighbours_sequence(&n, seq, 9, 0, 0);
    }
    CHECK(n.summary.recurred > 0 && n.summary.recurred < 2 * kinds);
    neighbours_free(&n);
    for (unsigned it = 0; it < 3 * kinds; it++) {
        pattern(seq, it % kinds);
        neighbours_sequence(&n, seq, 9, 0, ++sightings[it % kinds]);
    }
    CHECK(n.summary.recurred == 2 * kinds && n.summary.most_seen == 3 && n.summary.compared == 3 * kinds - 1);
    CHECK(!no_repeat_graphable(&n.summary, 4) && no_repeat_graphable(&n.summary, 3));
    neighbours_free(&n);
}

/* Sequences that begin with other calls are not neighbours; one that grows by a call differs in its length. */
static void test_neighbours_only(void)
{
    struct neighbours n = {0};
    struct call_sig seq[12];
    for (unsigned it = 0; it < NEIGHBOURS_SLOTS; it++) {
        for (unsigned i = 0; i < 6; i++)
            seq[i] = launch(KERNEL_A + it, STREAM_S, i); /* each begins with another kernel */
        CHECK(!neighbours_sequence(&n, seq, 6, 0, 0));
    }
    CHECK(n.summary.compared == 0 && !n.summary.found);
    neighbours_free(&n);
    for (unsigned length = 4; length < 12; length++) {
        for (unsigned i = 0; i < length; i++)
            seq[i] = launch(KERNEL_A, STREAM_S, 1);
        neighbours_sequence(&n, seq, length, 0, 0);
    }
    CHECK(n.summary.found && n.summary.difference.field == SIG_FIELD_LENGTH);
    CHECK(n.summary.difference.position == 4 && n.summary.difference.before_length == 4);
    strcpy(n.summary.words.api, "cudaLaunchKernel");
    strcpy(n.summary.words.kernel, "k_fill");
    char line[512];
    CHECK(describe_no_repeat(&n.summary, line, sizeof line));
    CHECK_CONTAINS(line, "is call 5: the earlier one ends before it (4 calls), the later goes on with cudaLaunchKernel "
                         "of k_fill (5 calls)");
    /* The program's: counts added up, the first thread's difference kept. */
    struct no_repeat program = {0}, other = {.compared = 3, .recurred = 1, .compared_calls = 30, .most_seen = 2};
    no_repeat_merge(&program, &other);
    CHECK(!program.found && program.compared == 3 && program.most_seen == 2);
    n.summary.thread = 7;
    no_repeat_merge(&program, &n.summary);
    CHECK(program.found && program.thread == 7 && program.compared == 10 && program.most_seen == 2);
    other.found = true, other.thread = 9;
    no_repeat_merge(&program, &other);
    CHECK(program.thread == 7 && program.difference.field == SIG_FIELD_LENGTH);
    neighbours_free(&n);
}

int main(void)
{
    test_fields();
    test_sequences();
    test_every_difference();
    test_never_repeats();
    test_recurring();
    test_neighbours_only();
    return check_result("test_neighbours");
}

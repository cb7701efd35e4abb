/* SPDX-License-Identifier: MIT */
/* Why sequences do not repeat: each sequence compared with its neighbour, the thread's last one that began alike. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neighbours.h"

/* One field of struct call_sig: where it lies, and its name in the trace. */
struct field_place {
    enum sig_field field;
    size_t offset, size;
    const char *name;
};

#define FIELD(id, member, name)                                                                             \
    {id, offsetof(struct call_sig, member), sizeof(((struct call_sig *)0)->member), name}

/* The fields in the order two calls are looked at: what is called first, then where, then its shape. */
static const struct field_place fields[] = {
    FIELD(SIG_FIELD_API, api, "api"),
    FIELD(SIG_FIELD_TARGET, target, "target"),
    FIELD(SIG_FIELD_STREAM, stream, "stream"),
    FIELD(SIG_FIELD_COPY_KIND, copy_kind, "copy_kind"),
    FIELD(SIG_FIELD_BYTES, bytes, "bytes"),
    FIELD(SIG_FIELD_SHARED_MEM, shared_mem, "shared_mem"),
    FIELD(SIG_FIELD_GRID, grid, "grid"),
    FIELD(SIG_FIELD_BLOCK, block, "block"),
    FIELD(SIG_FIELD_FLAGS, flags, "flags"),
};

#undef FIELD

/* The field's name in the trace ("target", "grid"); "?" for none. */
const char *sig_field_name(enum sig_field field)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].field == field)
            return fields[i].name;
    return field == SIG_FIELD_OTHER ? "other" : field == SIG_FIELD_LENGTH ? "length" : "?";
}

/* The field the trace names so, or SIG_FIELD_COUNT. */
enum sig_field sig_field_named(const char *name)
{
    for (int f = 0; f < SIG_FIELD_COUNT; f++)
        if (strcmp(sig_field_name((enum sig_field)f), name) == 0)
            return (enum sig_field)f;
    return SIG_FIELD_COUNT;
}

/* The first field (in enum sig_field's order) in which a and b differ; SIG_FIELD_COUNT if they are the same. */
enum sig_field sig_first_field(const struct call_sig *a, const struct call_sig *b)
{
    if (sig_equal(a, b))
        return SIG_FIELD_COUNT;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (memcmp((const char *)a + fields[i].offset, (const char *)b + fields[i].offset, fields[i].size) != 0)
            return fields[i].field;
    return SIG_FIELD_OTHER;
}

/* A field's value for people, where no name says more (bytes, grid, flags): "4096 bytes", "(16, 1, 1)". */
void sig_field_value(enum sig_field field, const struct call_sig *sig, char *buf, size_t len)
{
    switch (field) {
    case SIG_FIELD_BYTES: snprintf(buf, len, "%llu bytes", (unsigned long long)sig->bytes); break;
    case SIG_FIELD_SHARED_MEM: snprintf(buf, len, "%u bytes of shared memory", sig->shared_mem); break;
    case SIG_FIELD_GRID: snprintf(buf, len, "(%u, %u, %u)", sig->grid[0], sig->grid[1], sig->grid[2]); break;
    case SIG_FIELD_BLOCK: snprintf(buf, len, "(%u, %u, %u)", sig->block[0], sig->block[1], sig->block[2]); break;
    case SIG_FIELD_FLAGS: snprintf(buf, len, "0x%x", sig->flags); break;
    case SIG_FIELD_COPY_KIND: snprintf(buf, len, "%u", sig->copy_kind); break;
    case SIG_FIELD_API: snprintf(buf, len, "function %u", sig->api); break;
    case SIG_FIELD_TARGET:
    case SIG_FIELD_STREAM:
        snprintf(buf, len, "0x%llx", (unsigned long long)(field == SIG_FIELD_TARGET ? sig->target : sig->stream));
        break;
    default: snprintf(buf, len, "?"); break;
    }
}

/* The field in which call i of a (na calls) and b (nb) differ: SIG_FIELD_LENGTH past one's end, SIG_FIELD_COUNT if none. */
static enum sig_field field_at(const struct call_sig *a, unsigned na, const struct call_sig *b, unsigned nb, unsigned i)
{
    if (i < na && i < nb)
        return sig_first_field(&a[i], &b[i]);
    return na == nb ? SIG_FIELD_COUNT : SIG_FIELD_LENGTH;
}

/* The difference at call i, in field, of a (na calls) and b (nb). */
static struct sig_difference difference_at(const struct call_sig *a, unsigned na, const struct call_sig *b,
                                           unsigned nb, unsigned i, enum sig_field field)
{
    struct sig_difference d = {.position = i, .field = field, .before_length = na, .after_length = nb};
    if (i < na)
        d.before = a[i];
    if (i < nb)
        d.after = b[i];
    return d;
}

/* Compares the earlier sequence a (na calls) with the later b (nb); false if they are the same, else *d says where. */
bool sequences_differ(const struct call_sig *a, unsigned na, const struct call_sig *b, unsigned nb,
                      struct sig_difference *d)
{
    unsigned common = na < nb ? na : nb;
    for (unsigned i = 0; i <= common; i++) {
        enum sig_field field = field_at(a, na, b, nb, i);
        if (field != SIG_FIELD_COUNT) {
            *d = difference_at(a, na, b, nb, i, field);
            return true;
        }
    }
    *d = (struct sig_difference){.before_length = na, .after_length = nb, .field = SIG_FIELD_COUNT};
    return false;
}

/* A sequence's hash, where the caller has none. */
static uint64_t hash_of(const struct call_sig *sigs, unsigned count)
{
    uint64_t h = ~(uint64_t)count;
    for (unsigned i = 0; i < count; i++)
        h = sig_hash_extend(h, sig_hash(&sigs[i]));
    return h ? h : 1;
}

/* The slot of sequences that begin with sig (hash first): the one they had, else a free one, else the least used. */
static struct neighbour_slot *slot_for(struct neighbours *n, const struct call_sig *sig, uint64_t first)
{
    struct neighbour_slot *pick = NULL;
    for (unsigned i = 0; i < NEIGHBOURS_SLOTS; i++) {
        struct neighbour_slot *s = &n->slots[i];
        if (s->count == 0) {
            if (pick == NULL || pick->count > 0)
                pick = s; /* a free one before any in use */
        } else if (s->first == first && sig_equal(&s->sigs[0], sig)) {
            return s;
        } else if (pick == NULL || (pick->count > 0 && s->last_used < pick->last_used)) {
            pick = s;
        }
    }
    pick->first = 0;
    pick->count = 0;
    memset(pick->kept, 0, sizeof pick->kept);
    memset(pick->seen, 0, sizeof pick->seen);
    return pick;
}

/* Counts a sighting of the sequence with this hash among those s remembers (or sightings, if the caller counts). */
static bool slot_remember(struct no_repeat *r, struct neighbour_slot *s, uint64_t hash, unsigned sightings)
{
    if (sightings > 0) {
        if (sightings > r->most_seen)
            r->most_seen = sightings;
        return sightings > 1;
    }
    unsigned least = 0;
    for (unsigned k = 0; k < NEIGHBOURS_KEPT; k++) {
        if (s->seen[k] && s->kept[k] == hash) {
            s->seen[k]++;
            if (s->seen[k] > r->most_seen)
                r->most_seen = s->seen[k];
            return true;
        }
        if (s->seen[k] < s->seen[least])
            least = k;
    }
    s->kept[least] = hash; /* the least seen makes room: one seen often stays, to be counted on */
    s->seen[least] = 1;
    if (r->most_seen == 0)
        r->most_seen = 1;
    return false;
}

/* Keeps a copy of the sequence in s, its buffer grown if it must be; false (s freed) if memory ran out. */
static bool slot_keep(struct neighbour_slot *s, const struct call_sig *sigs, unsigned count)
{
    if (count > s->capacity) {
        struct call_sig *grown = realloc(s->sigs, sizeof *grown * count);
        if (grown == NULL) {
            s->first = 0;
            s->count = 0;
            return false;
        }
        s->sigs = grown;
        s->capacity = count;
    }
    memcpy(s->sigs, sigs, sizeof *sigs * count);
    s->count = count;
    return true;
}

/* Feeds a complete sequence; true when it found the thread's first difference (the caller fills summary.words). */
bool neighbours_sequence(struct neighbours *n, const struct call_sig *sigs, unsigned count, uint64_t hash,
                         unsigned sightings)
{
    if (count == 0)
        return false;
    if (hash == 0)
        hash = hash_of(sigs, count);
    uint64_t first = sig_hash(&sigs[0]);
    struct neighbour_slot *s = slot_for(n, &sigs[0], first);
    struct no_repeat *r = &n->summary;
    bool found_now = false;
    s->last_used = ++n->clock;
    n->explained.count = 0;
    if (s->first == first) {
        r->compared++;
        r->compared_calls += count;
        if (slot_remember(r, s, hash, sightings))
            r->recurred++;
        if (s->hash == hash && s->count == count)
            return false; /* the same as its neighbour: nothing to copy */
        if (!r->found && sequences_differ(s->sigs, s->count, sigs, count, &r->difference))
            found_now = r->found = true;
        if (n->explain_left > 0 && sequences_differences(s->sigs, s->count, sigs, count, &n->explained) > 0)
            n->explain_left--;
    } else {
        s->first = first;
        slot_remember(r, s, hash, sightings);
    }
    if (slot_keep(s, sigs, count))
        s->hash = hash;
    return found_now;
}

/* Every call where two sequences differ: the first NEIGHBOURS_EXPLAINED into out->at; how many in all. */
unsigned sequences_differences(const struct call_sig *a, unsigned na, const struct call_sig *b, unsigned nb,
                               struct neighbour_differences *out)
{
    unsigned common = na < nb ? na : nb;
    out->count = out->total = 0;
    for (unsigned i = 0; i <= common; i++) {
        enum sig_field field = field_at(a, na, b, nb, i);
        if (field == SIG_FIELD_COUNT)
            continue;
        if (out->count < NEIGHBOURS_EXPLAINED)
            out->at[out->count++] = difference_at(a, na, b, nb, i, field);
        out->total++;
    }
    return out->total;
}

/* Frees the watch's buffers; it is empty again. */
void neighbours_free(struct neighbours *n)
{
    for (unsigned i = 0; i < NEIGHBOURS_SLOTS; i++)
        free(n->slots[i].sigs);
    memset(n, 0, sizeof *n);
}

/* Adds a thread's summary into a program's: the counts; the difference of the first that has one. */
void no_repeat_merge(struct no_repeat *into, const struct no_repeat *from)
{
    into->compared += from->compared;
    into->recurred += from->recurred;
    into->compared_calls += from->compared_calls;
    if (from->most_seen > into->most_seen)
        into->most_seen = from->most_seen;
    if (!into->found && from->found) {
        into->found = true;
        into->thread = from->thread;
        into->difference = from->difference;
        into->words = from->words;
    }
}

/* Whether some sequence was seen often enough to be graphed: needed times (REPRISE_MIN_REPEATS and recordings). */
bool no_repeat_graphable(const struct no_repeat *r, unsigned needed)
{
    return r->most_seen >= needed;
}

/* Where two neighbouring sequences first differ, in words: "call 2, cudaLaunchKernel: its kernel k_scale then k_axpy". */
void describe_difference(const struct sig_difference *d, const struct difference_words *w, char *line, size_t len)
{
    char call[NEIGHBOURS_WORD_LEN + 80];
    bool named_by_field = d->field == SIG_FIELD_TARGET; /* "its kernel k_scale then k_axpy" names it already */
    snprintf(call, sizeof call, "%s%s%s", w->api, w->kernel[0] && !named_by_field ? " of " : "",
             named_by_field ? "" : w->kernel);
    if (d->field != SIG_FIELD_LENGTH)
        snprintf(line, len, "call %u, %s: its %s %s then %s", d->position + 1, call, w->field, w->before, w->after);
    else if (d->before_length < d->after_length)
        snprintf(line, len, "call %u: the earlier one ends before it (%u calls), the later goes on with %s (%u calls)",
                 d->position + 1, d->before_length, call, d->after_length);
    else
        snprintf(line, len, "call %u: the earlier one goes on with %s (%u calls), the later ends before it (%u calls)",
                 d->position + 1, call, d->before_length, d->after_length);
}

/* The difference in one sentence; false, and line empty, if none was found. */
bool describe_no_repeat(const struct no_repeat *r, char *line, size_t len)
{
    if (len)
        line[0] = '\0';
    if (!r->found)
        return false;
    unsigned about = r->compared ? (unsigned)((r->compared_calls + r->compared / 2) / r->compared)
                                 : r->difference.after_length;
    char where[2 * NEIGHBOURS_WORD_LEN + 320];
    describe_difference(&r->difference, &r->words, where, sizeof where);
    if (r->recurred == 0)
        snprintf(line, len, "sequences of about %u calls never repeat: the first difference between two neighbouring "
                            "ones is %s", about, where);
    else
        snprintf(line, len, "sequences of about %u calls repeat too rarely to graph (%llu of %llu were seen before): "
                            "the first difference between two neighbouring ones is %s",
                 about, r->recurred, r->compared, where);
    return true;
}

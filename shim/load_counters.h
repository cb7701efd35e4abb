/* How many objects the dynamic linker has loaded and unloaded: a cheap "did anything change since?". */
#ifndef REPRISE_LOAD_COUNTERS_H
#define REPRISE_LOAD_COUNTERS_H

struct load_counters {
    unsigned long long adds, subs;
};

/* Reads the dynamic linker's load and unload counters now. */
void load_counters_read(struct load_counters *now);

#endif

/* SPDX-License-Identifier: MIT */
/* Unit tests of REPRISE_EXCLUDE_KERNELS matching and of splitting the user's lists. */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "patterns.h"

/* Names and patterns on which the matcher must say what fnmatch (no flags) says. */
static const char *const names[] = {
    "", "a", "k_axpy", "_Z6k_axpyfPKfPfi", "a/b", ".hidden", "x[y", "a]b", "a-b", "a\\b", "A9_z", "ab*c", "a?c",
    "aaaaaaaaab",
};
static const char *const patterns[] = {
    "*", "?", "a", "*a*", "a*b*c", "k_*", "*_*", "?_*", "[ak]*", "[!a]*", "[^a]*", "[a-c]*", "*[0-9]*", "[]]*",
    "a[]]b", "[!]]*", "a[-]b", "a[b-]*", "[[:alpha:]]*", "[[:upper:][:digit:]]*", "*[[:punct:]]*", "[[:nope:]]*",
    "x[y", "x\\[y", "a\\*c", "a\\?c", "a\\", "a\\\\b", "*a", "a*a*a*b", "a*/b", "*.hidden", ".*", "[a", "[",
    "a[\\]]b", "a[!-]b", "**", "a**b", "[[:alpha:]", "[a-]", "*b",
};

/* Checks the matcher against fnmatch on every name and pattern above. */
static void check_against_fnmatch(void)
{
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++)
        for (size_t j = 0; j < sizeof names / sizeof *names; j++) {
            bool want = fnmatch(patterns[i], names[j], 0) == 0;
            if (name_matches_any(names[j], patterns[i]) != want)
                fprintf(stderr, "pattern \"%s\" on \"%s\": fnmatch says %s\n", patterns[i], names[j],
                        want ? "it matches" : "it does not");
            CHECK(name_matches_any(names[j], patterns[i]) == want);
        }
}

/* A pattern of 300 characters and more (a mangled CUTLASS kernel's name is that long) matches. */
static void check_long_pattern(void)
{
    char name[400], pattern[420];
    memset(name, 'x', 330);
    memcpy(name, "_ZN7cutlass6KernelI", 19);
    memcpy(name + 325, "gemmE", 6);
    snprintf(pattern, sizeof pattern, "%s", name);
    CHECK(strlen(pattern) == 330);
    CHECK(name_matches_any(name, pattern));
    pattern[200] = '?';
    CHECK(name_matches_any(name, pattern));
    snprintf(pattern, sizeof pattern, "k_foo, %s, k_bar", name);
    CHECK(name_matches_any(name, pattern));
    pattern[7 + 300] = '*';
    pattern[7 + 301] = '\0';
    CHECK(name_matches_any(name, pattern));
    name[310] = 'y'; /* after the '*': still matches */
    CHECK(name_matches_any(name, pattern));
    name[100] = 'y'; /* before it: does not */
    CHECK(!name_matches_any(name, pattern));
}

int main(void)
{
    CHECK(name_matches_any("k_axpy", "k_axpy"));
    CHECK(name_matches_any("k_axpy", "matmul*, k_*"));
    CHECK(name_matches_any("gemm_128x64", "foo,gemm_*"));
    CHECK(!name_matches_any("k_axpy", "k_scale,matmul*"));
    CHECK(!name_matches_any("k_axpy", ""));
    CHECK(!name_matches_any(NULL, "*"));
    CHECK(name_matches_any("anything", " * "));
    CHECK(!name_matches_any("k_axpy_x", "k_axpy"));
    CHECK(name_matches_any("_Z6k_axpyfPKfPfi", "*k_axpy*"));
    check_against_fnmatch();
    check_long_pattern();

    /* Items come without the spaces around them; empty ones are skipped; len 0 ends the list. */
    const char *p = " a , bc,, d e ,", *item;
    size_t len;
    item = list_next_item(&p, &len);
    CHECK(len == 1 && strncmp(item, "a", len) == 0);
    item = list_next_item(&p, &len);
    CHECK(len == 2 && strncmp(item, "bc", len) == 0);
    item = list_next_item(&p, &len);
    CHECK(len == 3 && strncmp(item, "d e", len) == 0);
    item = list_next_item(&p, &len);
    CHECK(len == 0);
    return check_result("test_patterns");
}

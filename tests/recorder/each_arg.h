/* SPDX-License-Identifier: MIT */
/* FOR_EACH over the parameters and arguments of a hooks.def line, for generated tests. */
#ifndef REPRISE_EACH_ARG_H
#define REPRISE_EACH_ARG_H

#define STRIP(...) __VA_ARGS__
#define EACH_1(M, x) M(x)
#define EACH_2(M, x, ...) M(x) EACH_1(M, __VA_ARGS__)
#define EACH_3(M, x, ...) M(x) EACH_2(M, __VA_ARGS__)
#define EACH_4(M, x, ...) M(x) EACH_3(M, __VA_ARGS__)
#define EACH_5(M, x, ...) M(x) EACH_4(M, __VA_ARGS__)
#define EACH_6(M, x, ...) M(x) EACH_5(M, __VA_ARGS__)
#define EACH_7(M, x, ...) M(x) EACH_6(M, __VA_ARGS__)
#define EACH_8(M, x, ...) M(x) EACH_7(M, __VA_ARGS__)
#define EACH_9(M, x, ...) M(x) EACH_8(M, __VA_ARGS__)
#define EACH_10(M, x, ...) M(x) EACH_9(M, __VA_ARGS__)
#define EACH_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, N, ...) EACH_##N
/* M(x) for each x of a non-empty list. */
#define FOR_EACH(M, ...) EACH_PICK(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)(M, __VA_ARGS__)

#define EACH_CAT_(a, b) a##b
#define EACH_CAT(a, b) EACH_CAT_(a, b)
#define EACH_NONEMPTY(...) __VA_OPT__(1)
#define EACH_IF_1(M, list) FOR_EACH(M, STRIP list)
#define EACH_IF_(M, list)
/* M(x) for each x of list, a parenthesised list that may be empty; `when` is
   the argument list, so that "(void)" parameters produce nothing. */
#define FOR_EACH_IF_ANY(when, M, list) EACH_CAT(EACH_IF_, EACH_NONEMPTY when)(M, list)

/* FNV-1a over the bytes of one object. */
static inline unsigned long long fnv1a(unsigned long long h, const void *p, unsigned long n)
{
    const unsigned char *b = p;
    for (unsigned long i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}
#define FNV_SEED 14695981039346656037ULL
#define HASH_ARG(x) h = fnv1a(h, &(x), sizeof(x));

#endif

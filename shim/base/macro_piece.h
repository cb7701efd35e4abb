/* SPDX-License-Identifier: MIT */
/* Optional pieces of generated code: a macro that only some kinds define, and nothing for the others. */
#ifndef REPRISE_MACRO_PIECE_H
#define REPRISE_MACRO_PIECE_H

/*
 * The wrappers are generated per hooked function from its kind, and a few
 * kinds add a piece of their own that reads the function's parameters by
 * name (a call's fields, a fast path): a macro per kind, DOOR_TAKES_LAUNCH
 * say.  PIECE_OR(DOOR_TAKES_##kind(id, s), (void)0) is that piece where
 * the macro is defined, and (void)0 where it is not: a kind without the
 * piece needs no line at all.  A piece's expansion starts with PIECE and a
 * comma, and has no other comma outside parentheses:
 *
 *     #define DOOR_TAKES_LAUNCH(id, s) PIECE, do { ... } while (0)
 *
 * How: PIECE_OR's first argument is expanded before it is used.  A defined
 * piece's comma then makes the piece the second argument of
 * PIECE_OR_PICK_, ahead of the default; an undefined macro's invocation
 * stays as it was, one argument (its commas are inside its parentheses),
 * and the default is the second.
 */
#define PIECE /* nothing: the comma after it is what counts */
#define PIECE_OR(invocation, otherwise) PIECE_OR_PICK_(invocation, otherwise, ~)
#define PIECE_OR_PICK_(first, second, ...) second

#endif

/* SPDX-License-Identifier: MIT */
/* Files named by the user: REPRISE_LOG_FILE and REPRISE_TRACE. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "output_file.h"

/* Expands %p to pid, %r to rank (pid when rank is -1: no rank) and %% to %; false if the result does not fit. */
bool expand_path_template(const char *tmpl, long pid, long rank, char *out, size_t len)
{
    size_t used = 0;
    for (const char *p = tmpl; *p; p++) {
        char piece[32];
        const char *add = piece;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(piece, sizeof piece, "%ld", pid);
            p++;
        } else if (p[0] == '%' && p[1] == 'r') {
            snprintf(piece, sizeof piece, "%ld", rank >= 0 ? rank : pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            piece[0] = '%', piece[1] = '\0';
            p++;
        } else {
            piece[0] = *p, piece[1] = '\0';
        }
        for (; *add; add++) {
            if (used + 1 >= len)
                return false;
            out[used++] = *add;
        }
    }
    if (used >= len)
        return false;
    out[used] = '\0';
    return true;
}

/* Opens the expanded template (%r: the rank log_set_rank set) for appending; -1 with errno set on failure. */
int open_output_file(const char *tmpl, char *expanded, size_t len)
{
    if (!expand_path_template(tmpl, (long)getpid(), log_rank(), expanded, len)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(expanded, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

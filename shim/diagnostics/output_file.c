/* SPDX-License-Identifier: MIT */
/* Files named by the user: REPRISE_LOG_FILE and REPRISE_TRACE; the log opens its own here, above log.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

/* Whether a path names one of the process's own streams, links by nature: /dev/stdout, /dev/stderr, /dev/fd/N. */
static bool own_stream(const char *path)
{
    return strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0 || strncmp(path, "/dev/fd/", 8) == 0 ||
           strncmp(path, "/proc/self/fd/", 14) == 0;
}

/* Warns, if path is a symbolic link (what open's ELOOP said of it), that it is not written through; keeps errno. */
static void warn_if_link(const char *path)
{
    int saved = errno;
    struct stat st;
    char target[256];
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        log_always(LOG_WARN,
                   "%s is a symbolic link (to %s): reprise does not write through one (a link planted in a shared "
                   "directory would aim its writes elsewhere); name a file of its own, with %%p for one per process",
                   path, n > 0 ? target : "?");
    }
    errno = saved;
}

/*
 * Opens the expanded template (%r: the rank log_set_rank set) for appending
 * (the processes of a job may share one file), creating it with mode 0644;
 * never through a symbolic link (O_NOFOLLOW: a link, dangling or not, is
 * refused with a warning) but for the process's own streams.  -1 with errno
 * set on failure.
 */
int open_output_file(const char *tmpl, char *expanded, size_t len)
{
    if (!expand_path_template(tmpl, (long)getpid(), log_rank(), expanded, len)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    if (!own_stream(expanded))
        flags |= O_NOFOLLOW;
    int fd = open(expanded, flags, 0644);
    if (fd < 0 && errno == ELOOP)
        warn_if_link(expanded);
    return fd;
}

/* Sets the log's threshold and opens path_template for it ("" = stderr); falls back to stderr with a warning. */
void log_setup(enum log_level threshold, const char *path_template)
{
    log_set_threshold(threshold);
    if (path_template == NULL || path_template[0] == '\0')
        return;
    char path[4096];
    int fd = open_output_file(path_template, path, sizeof path);
    if (fd < 0) {
        log_set_fd(STDERR_FILENO);
        log_always(LOG_WARN, "cannot open log file %s: %s; logging to stderr", path_template, strerror(errno));
        return;
    }
    log_set_fd(fd);
}

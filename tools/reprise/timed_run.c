/* SPDX-License-Identifier: MIT */
/* One run of a program, timed on the wall clock, its streams to files, killed at a timeout. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reprise.h"
#include "timed_run.h"

/* Seconds a run killed at its timeout has after SIGTERM before SIGKILL. */
#define GRACE_SECONDS 2.0

volatile sig_atomic_t run_interrupted;
static volatile sig_atomic_t running_group; /* the process group of the run in progress, 0 between runs */

/* SIGINT, SIGTERM: ends the run in progress (SIGTERM, SIGKILL when asked twice) and says so to the loop. */
static void on_signal(int sig)
{
    if (running_group > 0)
        kill(-running_group, run_interrupted ? SIGKILL : SIGTERM);
    run_interrupted = sig;
}

/* Catches sig with on_signal, unless it is ignored (reprise started in the background by a shell, or by nohup). */
static void catch_signal(int sig)
{
    struct sigaction sa, old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a wait returns to see it */
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* From now on, SIGINT and SIGTERM end the run in progress (its process group) and set run_interrupted. */
void timed_run_catch_signals(void)
{
    catch_signal(SIGINT);
    catch_signal(SIGTERM);
}

/* Seconds on the monotonic clock. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Opens path on descriptor fd in the child, or exits it with 127 (stdin /dev/null, the output files). */
static void open_as(int fd, const char *path, int flags)
{
    int opened = open(path, flags, 0644);
    if (opened < 0 || dup2(opened, fd) < 0)
        _exit(127);
    if (opened != fd)
        close(opened);
}

/* The child: its own process group, streams and environment, then the program; its errno to report on failure. */
static noreturn void start_child(const struct run_request *req, const sigset_t *mask, int report)
{
    sigprocmask(SIG_SETMASK, mask, NULL); /* the exec resets the handlers; what was ignored stays ignored */
    setpgid(0, 0);
    open_as(STDIN_FILENO, "/dev/null", O_RDONLY);
    open_as(STDOUT_FILENO, req->out, O_WRONLY | O_CREAT | O_TRUNC);
    open_as(STDERR_FILENO, req->err, O_WRONLY | O_CREAT | O_TRUNC);
    for (const char *const *e = req->env; e && *e; e++)
        putenv((char *)*e);
    execvp(req->argv[0], req->argv);
    int err = errno;
    if (write(report, &err, sizeof err) < 0)
        _exit(127);
    _exit(127);
}

/*
 * Waits for pid until deadline (0: none); true if it ended, its wait status
 * in *wstatus.  SIGCHLD is blocked: sigtimedwait wakes at its end.
 */
static bool wait_until(pid_t pid, double deadline, const sigset_t *chld, int *wstatus)
{
    for (;;) {
        pid_t r = waitpid(pid, wstatus, deadline > 0 ? WNOHANG : 0);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return true; /* not ours to wait for any more: taken as ended */
        if (deadline <= 0)
            continue;
        double left = deadline - now_seconds();
        if (left <= 0)
            return false;
        struct timespec ts = {.tv_sec = (time_t)left, .tv_nsec = (long)((left - (double)(time_t)left) * 1e9)};
        sigtimedwait(chld, NULL, &ts);
    }
}

/* Runs a program in its own process group and waits for it (at most its timeout, then 2 s after SIGTERM). */
void timed_run(const struct run_request *req, struct run_outcome *out)
{
    memset(out, 0, sizeof *out);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        die("cannot make a pipe: %s", strerror(errno));
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    double start = now_seconds();
    pid_t pid = fork();
    if (pid < 0)
        die("cannot fork: %s", strerror(errno));
    if (pid == 0)
        start_child(req, &old, report[1]);
    setpgid(pid, pid); /* as the child does: before a signal may need the group */
    running_group = pid;
    close(report[1]);
    ssize_t n;
    do
        n = read(report[0], &out->exec_error, sizeof out->exec_error);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof out->exec_error)
        out->exec_error = 0; /* the pipe closed at the exec: the program runs */
    close(report[0]);
    int wstatus = 0;
    if (!wait_until(pid, req->timeout > 0 ? start + req->timeout : 0, &chld, &wstatus)) {
        out->timed_out = true;
        kill(-pid, SIGTERM);
        if (!wait_until(pid, now_seconds() + GRACE_SECONDS, &chld, &wstatus)) {
            kill(-pid, SIGKILL);
            wait_until(pid, 0, &chld, &wstatus);
        }
    }
    out->seconds = now_seconds() - start;
    running_group = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    out->status = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
}

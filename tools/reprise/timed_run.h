/* SPDX-License-Identifier: MIT */
/* One run of a program, timed on the wall clock, its streams to files, killed at a timeout. */
#ifndef REPRISE_TIMED_RUN_H
#define REPRISE_TIMED_RUN_H

#include <signal.h>
#include <stdbool.h>

/* What a program runs with and where its output goes. */
struct run_request {
    char **argv;            /* the program (found as execvp finds it) and its arguments */
    const char *const *env; /* "NAME=VALUE" set in its environment, NULL-terminated; NULL: none */
    const char *out, *err;  /* the files its stdout and stderr go to (stdin: /dev/null) */
    double timeout;         /* seconds before its process group is killed; 0: none */
};

/* How a run ended. */
struct run_outcome {
    double seconds; /* wall clock from its start to its end */
    int status;     /* its exit status as a shell reports it: 128+N when killed by signal N */
    bool timed_out; /* killed at the timeout */
    int exec_error; /* execvp's errno when it could not be executed, else 0 */
};

/* The signal (SIGINT, SIGTERM) that interrupted reprise during a run, else 0; the run was ended. */
extern volatile sig_atomic_t run_interrupted;

/* From now on, SIGINT and SIGTERM end the run in progress (its process group) and set run_interrupted. */
void timed_run_catch_signals(void);

/* Runs a program in its own process group and waits for it (at most its timeout, then 2 s after SIGTERM). */
void timed_run(const struct run_request *req, struct run_outcome *out);

#endif

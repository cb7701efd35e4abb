/* SPDX-License-Identifier: MIT */
/* The shim's own threads (the watchdog, the governor's): detached, named, deaf to the program's signals. */
#ifndef REPRISE_QUIET_THREAD_H
#define REPRISE_QUIET_THREAD_H

/*
 * Starts fn(NULL) on a detached thread named name, with every signal
 * blocked (the program's signals go to the threads that expect them);
 * 0, or pthread_create's error.
 */
int quiet_thread_start(void *(*fn)(void *), const char *name);

#endif

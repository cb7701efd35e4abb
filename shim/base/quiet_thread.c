/* SPDX-License-Identifier: MIT */
/* The shim's own threads (the watchdog, the governor's): detached, named, deaf to the program's signals. */
#define _GNU_SOURCE
#include "config.h"

#include <pthread.h>
#include <signal.h>

#include "quiet_thread.h"

/* Starts fn(NULL) on a detached thread named name, every signal blocked; 0, or pthread_create's error. */
int quiet_thread_start(void *(*fn)(void *), const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits the mask */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int err = pthread_create(&thread, &attr, fn, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err == 0)
        pthread_setname_np(thread, name);
    return err;
}

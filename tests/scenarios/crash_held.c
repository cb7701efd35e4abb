/* SPDX-License-Identifier: MIT */
/*
 * crash_held: launch_loop's loop, then a crash while the calls of its
 * region are held back (tests/crash_report.sh).  CRASH_HOW says how: segv
 * (a NULL write, the default), abort, overflow (the main thread's stack
 * overflows) or none (no crash: the loop ends as launch_loop's does).
 * CRASH_HANDLER=after installs the program's own SIGSEGV and SIGABRT
 * handler in main (after the shim's constructor, as Python's faulthandler
 * does), CRASH_HANDLER=before from the executable's preinit array (before
 * any library's constructor, the shim's included): it prints a line, then
 * lets the signal take its default action.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

#define N 4096
#define ITERS 10

/* The program's own handler: one line on stderr, then the default action. */
static void program_handler(int sig)
{
    static const char said[] = "crash_held: the program's own handler got the signal\n";
    (void)!write(STDERR_FILENO, said, sizeof said - 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installs program_handler for SIGSEGV and SIGABRT, through sigaction as most programs do. */
static void install_handler(void)
{
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = program_handler;
    sigemptyset(&act.sa_mask);
    sigaction(SIGSEGV, &act, NULL);
    sigaction(SIGABRT, &act, NULL);
}

/* From the preinit array: with CRASH_HANDLER=before, the handler is in place before any constructor runs. */
static void install_before(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv;
    for (char **e = envp; *e; e++) /* from envp: getenv needs the C library's constructor, which has not run */
        if (strcmp(*e, "CRASH_HANDLER=before") == 0)
            install_handler();
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit)(int, char **, char **) = install_before;

/* Recurses until the stack overflows (depth never reaches limit); returns to keep the frames apart. */
static int overflow(volatile char *above, long depth, long limit)
{
    volatile char frame[512];
    frame[0] = (char)depth;
    frame[1] = above ? above[0] : 0;
    if (depth == limit)
        return frame[1];
    return overflow(frame, depth + 1, limit) + frame[0];
}

/* Writes through a NULL pointer the compiler cannot see, where no sanitizer of a sanitizer build reports it first. */
__attribute__((noinline, no_sanitize("address", "undefined", "thread"))) static void null_write(void)
{
    *(volatile int *)(uintptr_t)getenv("CRASH_NO_SUCH_VARIABLE") = 1;
}

/* Crashes as CRASH_HOW says, or returns for none. */
static void crash(const char *how)
{
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "overflow") == 0)
        printf("overflow %d\n", overflow(NULL, 0, -1));
    if (strcmp(how, "none") != 0)
        null_write();
}

/* Runs the loop; in its last iteration, crashes after two of the region's four launches. */
int main(void)
{
    const char *how = getenv("CRASH_HOW") ? getenv("CRASH_HOW") : "segv";
    const char *when = getenv("CRASH_HANDLER");
    if (when && strcmp(when, "after") == 0)
        install_handler();
    struct sigaction now;
    sigaction(SIGSEGV, NULL, &now);
    scenario_begin("crash_held");
    printf("the program's SIGSEGV handler: %s\n", now.sa_handler == program_handler ? "its own" : "none");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x = dev_floats(N), *y = dev_floats(N);
    k_fill_on(x, 1.0f, N, s);
    k_fill_on(y, 0.0f, N, s);
    for (int it = 0; it < ITERS; it++) {
        k_axpy_on(0.5f, x, y, N, s);
        k_scale_on(y, 0.875f, N, s);
        if (it == ITERS - 1)
            crash(how);
        k_add_step_on(x, 0.125f, it, N, s);
        k_scale_on(x, 1.0f, N, s);
        CK(cudaStreamSynchronize(s));
    }
    show("x", x, N);
    show("y", y, N);
    return scenario_end();
}

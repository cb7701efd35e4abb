/* SPDX-License-Identifier: MIT */
/*
 * The crash signals' dispositions while the shim reports crashes.  The
 * shim's handler must see a crash first and then hand it on to whatever the
 * program installed, before the shim was loaded or after: Python installs
 * its faulthandler long after the shim's constructor ran, and a handler
 * that does not chain to the one it replaced (most do not) would otherwise
 * take the report away.  So sigaction and signal (and __sysv_signal, what
 * signal is in a program built for strict ISO C) are interposed for these
 * five signals: while the shim's handler is in place, a program's change
 * is kept here as the program's disposition, and the program is told what
 * it would have been told without the shim (its own previous disposition,
 * never the shim's handler); the shim's handler passes each signal on to
 * that disposition as the kernel would have.  Every other signal, and all
 * of them once released, go straight to the C library's functions.
 * (docs/design.md, "A crash report".)
 *
 * What a signal handler calls here takes no lock that it could wait on:
 * a disposition is a pair of copies, the current one named by an atomic
 * index, written under a spin lock that only a program's sigaction (or
 * signal) waits on.  Uninstrumented, like dlsym: a sanitizer's runtime
 * calls sigaction as it starts, and finds it here (RTLD_NEXT from itself).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "real_dlsym.h"
#include "signal_chain.h"

const int signal_chain_signals[SIGNAL_CHAIN_COUNT] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef __sighandler_t (*signal_fn)(int, __sighandler_t);

/* One signal's disposition as the program sees it. */
struct chain_slot {
    atomic_bool guarded;         /* the shim's handler is the kernel's */
    atomic_flag busy;            /* held while the program's disposition changes */
    atomic_uint current;         /* which copy of program[] is the program's disposition */
    struct sigaction program[2];
};

static struct chain_slot slots[SIGNAL_CHAIN_COUNT];
static _Atomic(sigaction_fn) real_sigaction_cached;

/* The next object's function name after the shim (the C library's), through glibc's own dlsym; NULL if none. */
static DLSYM_UNINSTRUMENTED void *next_function(const char *name)
{
    dlsym_fn fn = real_dlsym_function(); /* not real_dlsym, which is instrumented: a sanitizer may not run yet */
    return fn ? fn(RTLD_NEXT, name) : NULL;
}

/* The C library's sigaction (the next object's after the shim), found once; NULL if none is. */
static DLSYM_UNINSTRUMENTED sigaction_fn real_sigaction(void)
{
    sigaction_fn fn = atomic_load_explicit(&real_sigaction_cached, memory_order_acquire);
    if (__builtin_expect(fn == NULL, 0)) {
        fn = (sigaction_fn)next_function("sigaction");
        atomic_store_explicit(&real_sigaction_cached, fn, memory_order_release);
    }
    return fn;
}

/* The C library's function name of type signal_fn, found once in *cached; NULL if none is. */
static DLSYM_UNINSTRUMENTED signal_fn real_signal_named(_Atomic(signal_fn) *cached, const char *name)
{
    signal_fn fn = atomic_load_explicit(cached, memory_order_acquire);
    if (__builtin_expect(fn == NULL, 0)) {
        fn = (signal_fn)next_function(name);
        atomic_store_explicit(cached, fn, memory_order_release);
    }
    return fn;
}

/* The slot of sig, or NULL for a signal the shim leaves alone. */
static DLSYM_UNINSTRUMENTED struct chain_slot *slot_of(int sig)
{
    for (int i = 0; i < SIGNAL_CHAIN_COUNT; i++)
        if (signal_chain_signals[i] == sig)
            return &slots[i];
    return NULL;
}

/* The name of one of the signals ("SIGSEGV"), or "a signal". */
const char *signal_chain_name(int sig)
{
    static const char *const names[SIGNAL_CHAIN_COUNT] = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"};
    for (int i = 0; i < SIGNAL_CHAIN_COUNT; i++)
        if (signal_chain_signals[i] == sig)
            return names[i];
    return "a signal";
}

/* Takes s's spin lock (only the program's changes wait on it). */
static DLSYM_UNINSTRUMENTED void slot_lock(struct chain_slot *s)
{
    while (atomic_flag_test_and_set_explicit(&s->busy, memory_order_acquire))
        sched_yield();
}

/* Releases s's spin lock. */
static DLSYM_UNINSTRUMENTED void slot_unlock(struct chain_slot *s)
{
    atomic_flag_clear_explicit(&s->busy, memory_order_release);
}

/* The program's disposition of s, copied (a copy the handler reads while it changes is at worst the old one). */
static DLSYM_UNINSTRUMENTED struct sigaction slot_program(struct chain_slot *s)
{
    return s->program[atomic_load_explicit(&s->current, memory_order_acquire) & 1];
}

/* Makes act the program's disposition of s (s's lock held): written to the other copy, then named current. */
static DLSYM_UNINSTRUMENTED void slot_set_program(struct chain_slot *s, const struct sigaction *act)
{
    unsigned next = (atomic_load_explicit(&s->current, memory_order_relaxed) + 1) & 1;
    s->program[next] = *act;
    atomic_store_explicit(&s->current, next, memory_order_release);
}

/*
 * sigaction: for a signal the shim guards (s, NULL for any other), while
 * it does, the program's disposition is read and changed here and the
 * kernel keeps the shim's handler; otherwise the C library's.
 */
static DLSYM_UNINSTRUMENTED int chain_sigaction(struct chain_slot *s, int sig, const struct sigaction *act,
                                                struct sigaction *old)
{
    sigaction_fn real = real_sigaction();
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (s == NULL || !atomic_load_explicit(&s->guarded, memory_order_acquire))
        return real(sig, act, old);
    slot_lock(s);
    if (!atomic_load_explicit(&s->guarded, memory_order_relaxed)) { /* released meanwhile */
        slot_unlock(s);
        return real(sig, act, old);
    }
    struct sigaction was = slot_program(s);
    if (act)
        slot_set_program(s, act);
    slot_unlock(s);
    if (old)
        *old = was;
    return 0;
}

/*
 * signal and __sysv_signal (the C library's name, found once in *cached):
 * for a guarded signal, sigaction with flags (their semantics), the signal
 * in its handler's mask unless SA_NODEFER; any other, the C library's.
 */
static DLSYM_UNINSTRUMENTED __sighandler_t chain_signal(const char *name, _Atomic(signal_fn) *cached, int sig,
                                                        __sighandler_t handler, int flags)
{
    struct chain_slot *s = slot_of(sig);
    if (s == NULL) {
        signal_fn real = real_signal_named(cached, name);
        if (real == NULL) {
            errno = ENOSYS;
            return SIG_ERR;
        }
        return real(sig, handler);
    }
    struct sigaction act = {.sa_handler = handler, .sa_flags = flags}, old;
    sigemptyset(&act.sa_mask);
    if (!(flags & SA_NODEFER))
        sigaddset(&act.sa_mask, sig);
    if (chain_sigaction(s, sig, &act, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* The exported sigaction: the guarded signals' kept here, any other the C library's. */
DLSYM_UNINSTRUMENTED int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return chain_sigaction(slot_of(sig), sig, act, old);
}

/* The exported signal (BSD semantics, as the C library's: the signal blocked in its handler, calls restarted). */
DLSYM_UNINSTRUMENTED __sighandler_t signal(int sig, __sighandler_t handler)
{
    static _Atomic(signal_fn) real;
    return chain_signal("signal", &real, sig, handler, SA_RESTART);
}

/* The exported __sysv_signal, what signal() calls in a program built for strict ISO C (-std=c11): System V semantics. */
DLSYM_UNINSTRUMENTED __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
    static _Atomic(signal_fn) real;
    return chain_signal("__sysv_signal", &real, sig, handler, SA_RESETHAND | SA_NODEFER);
}

/* Makes handler the kernel's for each of the signals, keeping what was there as the program's; false if it cannot. */
bool signal_chain_guard(void (*handler)(int, siginfo_t *, void *))
{
    sigaction_fn real = real_sigaction();
    if (real == NULL)
        return false;
    struct sigaction ours = {.sa_sigaction = handler, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER};
    sigemptyset(&ours.sa_mask);
    for (int i = 0; i < SIGNAL_CHAIN_COUNT; i++) {
        struct chain_slot *s = &slots[i];
        slot_lock(s);
        struct sigaction was;
        if (!atomic_load_explicit(&s->guarded, memory_order_relaxed) &&
            real(signal_chain_signals[i], &ours, &was) == 0) {
            slot_set_program(s, &was);
            atomic_store_explicit(&s->guarded, true, memory_order_release);
        }
        slot_unlock(s);
    }
    return true;
}

/* Gives each signal back to the program's disposition: the shim's handler leaves the kernel. */
void signal_chain_release(void)
{
    sigaction_fn real = real_sigaction();
    for (int i = 0; i < SIGNAL_CHAIN_COUNT && real; i++) {
        struct chain_slot *s = &slots[i];
        slot_lock(s);
        if (atomic_load_explicit(&s->guarded, memory_order_relaxed)) {
            struct sigaction program = slot_program(s);
            real(signal_chain_signals[i], &program, NULL);
            atomic_store_explicit(&s->guarded, false, memory_order_release);
        }
        slot_unlock(s);
    }
}

/* Whether a signal came from the kernel for a fault (not sent by kill, raise or abort). */
static bool from_fault(const siginfo_t *info)
{
    return info != NULL && info->si_code > 0;
}

/* Whether the program ignores sig and this one was sent, not a fault: it changes nothing (in the handler). */
bool signal_chain_ignored(int sig, const siginfo_t *info)
{
    struct chain_slot *s = slot_of(sig);
    return s && slot_program(s).sa_handler == SIG_IGN && !from_fault(info);
}

/* Whether the program has a handler of its own for sig (in the handler). */
bool signal_chain_handled(int sig)
{
    struct chain_slot *s = slot_of(sig);
    if (s == NULL)
        return false;
    struct sigaction program = slot_program(s);
    return program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN;
}

/*
 * The default action, which ends the process: the kernel's disposition
 * becomes SIG_DFL; a fault returns, to fault again at the same instruction
 * (a core file then shows it, not the shim), any other is raised again.
 */
static void take_default(int sig, struct chain_slot *s, const siginfo_t *info)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction_fn real = real_sigaction();
    if (real == NULL || real(sig, &dfl, NULL) != 0)
        return;
    atomic_store_explicit(&s->guarded, false, memory_order_release);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    if (!from_fault(info) || sig == SIGABRT)
        raise(sig);
}

/* Hands sig on as the kernel would have without the shim: to the program's handler, or to the default action. */
void signal_chain_pass(int sig, siginfo_t *info, void *context)
{
    struct chain_slot *s = slot_of(sig);
    if (s == NULL)
        return;
    struct sigaction program = slot_program(s);
    if (program.sa_handler == SIG_IGN && !from_fault(info))
        return;
    if (program.sa_handler == SIG_DFL || program.sa_handler == SIG_IGN) { /* an ignored fault kills all the same */
        take_default(sig, s, info);
        return;
    }
    if ((program.sa_flags & SA_RESETHAND) && !atomic_flag_test_and_set_explicit(&s->busy, memory_order_acquire)) {
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        slot_set_program(s, &dfl); /* as the kernel resets it before the handler runs */
        slot_unlock(s);
    }
    /* The mask the kernel would have set for the program's handler: its own, and sig unless SA_NODEFER. */
    sigset_t mask = program.sa_mask;
    if (!(program.sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    if (program.sa_flags & SA_SIGINFO)
        program.sa_sigaction(sig, info, context);
    else
        program.sa_handler(sig);
}

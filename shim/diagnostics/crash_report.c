/* SPDX-License-Identifier: MIT */
/*
 * A crash report a user can send (docs/design.md, "A crash report"): the
 * handler of SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT writes the
 * signal, the version, the shim's state for the faulting thread and its
 * stack to the log, then hands the signal on (signal_chain.c).  It runs on
 * an alternate signal stack where the thread has one (the main thread's,
 * and each thread's that makes CUDA calls), so that a stack overflow is
 * reported too; it calls only async-signal-safe functions (write, open,
 * read, backtrace once loaded; dladdr, last, excepted: crash_stack.c),
 * allocates nothing and takes no lock.  One report per process: the first
 * thread to fault writes it, another that faults meanwhile waits for it
 * (a few seconds at most) before its signal goes on, and a fault inside
 * the report itself cuts it short and goes on at once.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "crash_report.h"
#include "crash_stack.h"
#include "log.h"
#include "settings.h"
#include "signal_chain.h"

/* An alternate signal stack: room for the handler, backtrace's unwinder and the report's lines. */
#define ALT_STACK_BYTES (64u << 10)
/* How long a thread that faults while another writes the report waits for it, in 10 ms steps. */
#define REPORT_WAIT_STEPS 300

static crash_state_fn thread_state;
static atomic_bool installed;
static atomic_long reporter;     /* the thread id writing the report; 0 before the first crash */
static atomic_bool report_done;
static pthread_key_t stack_key;  /* each thread's own alternate stack, freed as it exits */
static bool stack_key_made;

/* The calling thread's kernel id (gettid, as a system call: async-signal-safe in every glibc). */
static long thread_id(void)
{
    return syscall(SYS_gettid);
}

/* The program counter at the signal: the faulting instruction for a fault; 0 where unknown. */
static uintptr_t pc_of(const void *context)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__)
    return uc ? (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__aarch64__)
    return uc ? (uintptr_t)uc->uc_mcontext.pc : 0;
#else
    (void)uc;
    return 0;
#endif
}

/* REPRISE_MODE's value in words. */
static const char *mode_name(void)
{
    switch ((enum reprise_mode)shim_options.num[OPT_MODE]) {
    case MODE_OFF:
        return "off";
    case MODE_OBSERVE:
        return "observe";
    case MODE_AUTO:
        return "auto";
    }
    return "unknown";
}

/* The report's first line: the signal, where it came from, the thread, the program, the version, where it goes. */
static void write_signal_line(int sig, const siginfo_t *info)
{
    struct crash_line line;
    crash_line_start(&line);
    crash_line_text(&line, signal_chain_name(sig));
    if (info && info->si_code > 0 && sig != SIGABRT) {
        crash_line_text(&line, " at address ");
        crash_line_hex(&line, (uintptr_t)info->si_addr);
    } else if (info && info->si_pid == getpid()) {
        crash_line_text(&line, " raised by the process itself (abort, raise, kill)");
    } else if (info) {
        crash_line_text(&line, " sent by process ");
        crash_line_number(&line, (unsigned long long)info->si_pid);
    }
    crash_line_text(&line, " in thread ");
    crash_line_number(&line, log_thread_number());
    crash_line_text(&line, " (tid ");
    crash_line_number(&line, (unsigned long long)thread_id());
    crash_line_text(&line, ") of ");
    crash_line_text(&line, program_invocation_short_name);
    crash_line_text(&line, "; reprise " PACKAGE_VERSION ", REPRISE_MODE=");
    crash_line_text(&line, mode_name());
    crash_line_text(&line, signal_chain_handled(sig) ? "; after this report the signal goes on to the program's own handler"
                                                     : "; after this report the signal takes its default action");
    crash_line_write(&line);
}

/* Writes the report: the signal, the thread's state in the shim, its stack. */
static void write_report(int sig, const siginfo_t *info, const void *context)
{
    write_signal_line(sig, info);
    struct crash_line line;
    crash_line_start(&line);
    crash_line_text(&line, "this thread in the shim (read without its locks: a value may be torn): ");
    if (thread_state)
        thread_state(&line);
    else
        crash_line_text(&line, "observe mode holds no call back");
    crash_line_write(&line);
    crash_stack_write(pc_of(context));
    crash_line_start(&line);
    crash_line_text(&line, "end of the crash report");
    crash_line_write(&line);
}

/*
 * Whether the calling thread writes the report: the first to fault does.
 * A fault inside the report itself says so and goes on at once; a thread
 * that faults while another writes it waits for that one to finish first.
 */
static bool claim_report(void)
{
    long me = thread_id(), expected = 0;
    if (atomic_compare_exchange_strong(&reporter, &expected, me))
        return true;
    if (expected == me && !atomic_load(&report_done)) {
        struct crash_line line;
        crash_line_start(&line);
        crash_line_text(&line, "another signal inside the report cut it short");
        crash_line_write(&line);
        return false;
    }
    struct timespec step = {0, 10 * 1000 * 1000};
    for (int i = 0; i < REPORT_WAIT_STEPS && !atomic_load(&report_done); i++)
        nanosleep(&step, NULL);
    return false;
}

/* The handler of the five signals: the report, once per process, then the signal goes on as without the shim. */
static void crash_handler(int sig, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    if (!signal_chain_ignored(sig, info) && claim_report()) {
        write_report(sig, info, context);
        atomic_store(&report_done, true);
    }
    errno = saved_errno;
    signal_chain_pass(sig, info, context);
}

/* Unmaps an alternate stack made by give_stack (its guard page below it included). */
static void free_stack(void *stack)
{
    long page = sysconf(_SC_PAGESIZE);
    munmap((char *)stack - page, ALT_STACK_BYTES + (size_t)page);
}

/* At a thread's exit: its alternate stack leaves the kernel, and is freed (left alone while a handler runs on it). */
static void drop_thread_stack(void *stack)
{
    stack_t now;
    if (sigaltstack(NULL, &now) != 0)
        return;
    if (now.ss_sp == stack && !(now.ss_flags & SS_DISABLE)) {
        stack_t off = {.ss_flags = SS_DISABLE};
        if ((now.ss_flags & SS_ONSTACK) || sigaltstack(&off, NULL) != 0)
            return;
    }
    free_stack(stack);
}

/* Gives the calling thread an alternate signal stack, with a guard page below it, unless it has one. */
static void give_stack(void)
{
    stack_t now;
    if (sigaltstack(NULL, &now) != 0 || !(now.ss_flags & SS_DISABLE))
        return; /* the program's own, or one given before */
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, ALT_STACK_BYTES + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return;
    (void)mprotect(map, (size_t)page, PROT_NONE);
    stack_t stack = {.ss_sp = map + page, .ss_size = ALT_STACK_BYTES};
    if (sigaltstack(&stack, NULL) != 0 || pthread_setspecific(stack_key, stack.ss_sp) != 0) {
        stack_t off = {.ss_flags = SS_DISABLE};
        (void)sigaltstack(&off, NULL);
        free_stack(stack.ss_sp);
    }
}

/* Installs the report's handler for the five signals, with an alternate stack for the calling thread. */
void crash_report_install(crash_state_fn state)
{
    thread_state = state;
    crash_stack_prepare();
    if (!stack_key_made)
        stack_key_made = pthread_key_create(&stack_key, drop_thread_stack) == 0;
    if (stack_key_made)
        give_stack();
    if (!signal_chain_guard(crash_handler)) {
        log_warn("no crash report: the C library's sigaction was not found");
        return;
    }
    atomic_store(&installed, true);
}

/* Gives the signals back to the program's dispositions and frees the calling thread's alternate stack (at exit). */
void crash_report_remove(void)
{
    if (!atomic_exchange(&installed, false))
        return;
    signal_chain_release();
    void *stack = stack_key_made ? pthread_getspecific(stack_key) : NULL;
    if (stack) {
        pthread_setspecific(stack_key, NULL);
        drop_thread_stack(stack);
    }
}

/* Gives the calling thread an alternate signal stack if it has none (freed when it exits). */
void crash_report_thread_stack(void)
{
    if (atomic_load_explicit(&installed, memory_order_relaxed) && stack_key_made)
        give_stack();
}

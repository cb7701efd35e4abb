/* SPDX-License-Identifier: MIT */
/* The engine at exit: every thread's held-back work submitted, each region's counts summarised. */
#ifndef REPRISE_ENGINE_EXIT_H
#define REPRISE_ENGINE_EXIT_H

#pragma GCC visibility push(hidden)

/* Makes sure engine_shutdown runs at exit, before the runtime's own exit handlers. */
void register_exit_hook_once(void);

#pragma GCC visibility pop

#endif

/* attnscope-background.h — the window's worker threads yield to its UI thread.
 *
 * On a machine whose cores are all busy, the analyses, thumbnails and tiles computed for a text
 * of thousands of tokens took the CPU from the main loop: frames waited for seconds although the
 * UI thread had little to do (tests/bench/RESULTS.md, the window at 4,096 tokens). A worker calls
 * attnscope_background_thread() when it starts a job: the thread gets a lower priority (nice +10,
 * Linux's per-thread nice; elsewhere nothing), which the threads it starts inherit. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lowers the calling thread's priority, once per thread. */
void attnscope_background_thread (void);

/* A worker's job begins (on the thread that starts it) and ends (in the worker, as its last
 * step): attnscope_background_wait() waits for the jobs that run. A process must not exit while
 * one runs: its exit handlers unload the libraries a worker is in (a crash in OpenBLAS at the
 * exit of bench-gui-long, a head statistics job still running). */
void attnscope_background_begin (void);
void attnscope_background_end (void);

/* Waits up to TIMEOUT_MS for every job begun to end (each is told to stop by its cancellable);
 * FALSE when some still run. */
gboolean attnscope_background_wait (guint timeout_ms);

G_END_DECLS

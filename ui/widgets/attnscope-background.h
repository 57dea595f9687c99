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

G_END_DECLS
